/**
 * A whole dashboard downloads as one workbook: the question first, then one sheet per table, pivot
 * and retention tile, named by the tile (valid and unique for Excel), each holding exactly its CSV,
 * as exceljs and LibreOffice read it.
 */
import type ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import { parseCsv } from "@/lib/core/testing/csv";
import { questionLines, readWorkbook, sheetAsCsvRows, typeMismatches } from "@/lib/report/table/testing/xlsx";
import { libreOfficeMismatches, libreOfficeSheets, soffice } from "@/lib/report/table/testing/libreoffice";
import { guardFormula } from "@/lib/report/table/csv";
import { QUESTION_SHEET } from "@/lib/report/table/xlsx";
import { workbookBytes } from "@/lib/report/table/xlsx-stream";
import { drawnTiles } from "@/lib/features/dashboards/testing/tiles";
import { dashboardQuestion, dashboardWorkbook, tileCsv, tileCsvSource, tileSheet } from "./tile-csv";

describe("a six-tile dashboard's workbook", () => {
  const tiles = drawnTiles();
  const ctx = { dashboard: "Payments · weekly", timeZone: "Europe/London", filters: "none" };
  const sources = tiles.map((t) => tileCsvSource(t, ctx)!);
  const spec = dashboardWorkbook(sources, {
    dashboard: ctx.dashboard,
    range: "2026-04-01 to 2026-05-31",
    timeZone: ctx.timeZone,
    filters: ctx.filters,
    comparison: "none",
    grain: "Day",
    generatedAt: "2026-06-30 10:20:00 Europe/London",
  });
  let book: ExcelJS.Workbook;

  it("is one workbook: the question, then one sheet per tile in order, named by the tile and valid for Excel", async () => {
    expect(sources.every((s) => s !== null)).toBe(true);
    book = await readWorkbook(await workbookBytes(spec));
    expect(book.worksheets.map((w) => w.name)).toEqual([
      QUESTION_SHEET,
      "Revenue brand top EU",
      "Daily revenue and chargebacks",
      "Revenue by month",
      "Revenue by month (2)",
      "A retention grid whose title is",
      "=SUM(A1 A9)",
    ]);
    expect(tiles.map((t) => t.outcome.status === "done" && t.outcome.model.body.kind)).toEqual(["table", "table", "pivot", "pivot", "cohort", "table"]);
  });

  it("holds in each tile's sheet exactly its CSV: every cell's value and type", async () => {
    book ??= await readWorkbook(await workbookBytes(spec));
    spec.sheets.forEach(({ name, sheet }, i) => {
      const rows = parseCsv(tileCsv(sources[i]!));
      const blank = rows.findIndex((r) => r.length === 1 && r[0] === "");
      const ws = book.getWorksheet(name)!;
      expect(sheetAsCsvRows(ws, sheet.kinds.length), name).toEqual(rows.slice(blank + 1));
      expect(typeMismatches(ws, sheet), name).toEqual([]);
      expect(tileSheet(sources[i]!)).toEqual(sheet);
    });
  });

  it("states the question first, then each sheet's own lines under its name", async () => {
    book ??= await readWorkbook(await workbookBytes(spec));
    const lines = questionLines(book);
    expect(lines.slice(0, 7)).toEqual([
      ["Dashboard", "Payments · weekly"],
      ["Range", "2026-04-01 to 2026-05-31"],
      ["Timezone", "Europe/London"],
      ["Filters", "none"],
      ["Comparison", "none"],
      ["Grain", "Day"],
      ["Generated at", "2026-06-30 10:20:00 Europe/London"],
    ]);
    const expected = spec.sheets.flatMap(({ name }, i) => {
      const rows = parseCsv(tileCsv(sources[i]!));
      return [["", ""], ["Sheet", guardFormula(name)], ...rows.slice(0, rows.findIndex((r) => r.length === 1 && r[0] === ""))];
    });
    expect(lines.slice(7)).toEqual(expected);
  });

  it.skipIf(soffice === null)("LibreOffice (soffice; skipped where it is not installed) reads every tile's sheet, tables, pivots and the retention grid, as its CSV's values", async () => {
    const lo = libreOfficeSheets(await workbookBytes(spec));
    expect([...lo.keys()].sort()).toEqual([QUESTION_SHEET, ...spec.sheets.map((s) => s.name)].sort());
    spec.sheets.forEach(({ name, sheet }, i) => {
      const rows = parseCsv(tileCsv(sources[i]!));
      expect(libreOfficeMismatches(lo.get(name)!, rows.slice(rows.findIndex((r) => r.length === 1 && r[0] === "") + 1), sheet.kinds), name).toEqual([]);
    });
  });

  it("words the dashboard's own state as its question: days and their name, comparison, grain, filters", () => {
    const q = dashboardQuestion(
      { range: { preset: "last30" }, compare: { kind: "previous" }, grain: "month", filters: { card_brand: ["VISA"] } },
      { dashboard: "d", today: "2026-06-30", timeZone: "UTC", generatedAt: "now" },
    );
    expect(q).toMatchObject({ range: "2026-06-01 to 2026-06-30 (Last 30 days)", comparison: "Previous period of the same length", grain: "Month" });
    expect(q.filters).toContain("VISA");
  });
});
