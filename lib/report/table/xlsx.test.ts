/**
 * A workbook holds exactly what the CSV holds, read back with exceljs: the question sheet is the
 * CSV's lines, the table sheet its header, rows and totals, every cell the same value (a percent cell
 * the CSV's percent over 100) and of the type the CSV's value is; labels that look like formulas
 * are text. Both writers are read: the server's streaming one and the browser's in-memory one.
 */
import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import type { ReportRecord } from "@/lib/contract";
import { buildReportView } from "@/lib/report/periods/view";
import { gridSheet, gridToCsv } from "@/lib/features/cohorts/csv";
import { buildCohortGrid } from "@/lib/features/cohorts/grid";
import { parseCsv } from "@/lib/core/testing/csv";
import { questionLines, readWorkbook, sheetAsCsvRows, typeMismatches } from "@/lib/report/table/testing/xlsx";
import { libreOfficeMismatches, libreOfficeSheets, soffice } from "@/lib/report/table/testing/libreoffice";
import { tableSheet, tableToCsv, type ExportSheet } from "./csv";
import { buildPivot, isPivotError, pivotSheet, pivotToCsv } from "./pivot";
import { buildViewTable } from "./table";
import { sortRows } from "./sort";
import { NUMBER_FORMATS, QUESTION_SHEET, sheetNames, singleTableBook, writeWorkbook, type WorkbookSpec } from "./xlsx";
import { workbookBytes } from "./xlsx-stream";

const FORMULA_LABEL = "=SUM(A1:A9)";
const rec = (date: string, card_brand: string, attempts: number, approvals: number, revenue: number, cb_count = 0, cb_amount = 0): ReportRecord => ({
  date,
  card_brand,
  attempts,
  approvals,
  revenue,
  cb_count,
  cb_amount,
  refund_amount: 0,
});

const days = (start: string, n: number) => Array.from({ length: n }, (_, i) => new Date(Date.parse(`${start}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10));
const brands = ["VISA", FORMULA_LABEL, "+1 brand", "@mention", "-minus"];
const records = (start: string, n: number, scale: number) =>
  days(start, n).flatMap((d, i) => brands.map((b, j) => rec(d, b, 10 + i + j, 6 + ((i * 3 + j) % 5), scale * (100.1 + i * 7.25 - j * 3.3), j % 2, j % 2 ? 12.5 : 0)));

/** The workbook through the server's streaming writer and through the browser's in-memory one. */
async function bothWriters(spec: WorkbookSpec): Promise<ExcelJS.Workbook[]> {
  const streamed = await readWorkbook(await workbookBytes(spec));
  const book = new ExcelJS.Workbook();
  await writeWorkbook({ addWorksheet: (name, options) => book.addWorksheet(name, options), streaming: false }, spec);
  const inMemory = await readWorkbook(Buffer.from(await book.xlsx.writeBuffer()));
  return [streamed, inMemory];
}

/** The annotated CSV split at its blank line: the lines above, the table below. */
function csvParts(csv: string): { lines: string[][]; table: string[][] } {
  const rows = parseCsv(csv);
  const blank = rows.findIndex((r) => r.length === 1 && r[0] === "");
  return { lines: rows.slice(0, blank), table: rows.slice(blank + 1) };
}

/** Every cell of the one-table workbook equals the CSV's, and is of the exported value's type. */
async function expectSameAsCsv(sheet: ExportSheet, csv: string, title: string): Promise<ExcelJS.Workbook> {
  const books = await bothWriters(singleTableBook(title, sheet));
  const { lines, table } = csvParts(csv);
  for (const book of books) {
    expect(book.worksheets.map((w) => w.name)).toEqual([QUESTION_SHEET, title]);
    expect(questionLines(book)).toEqual(lines);
    const ws = book.getWorksheet(title)!;
    expect(sheetAsCsvRows(ws, sheet.kinds.length)).toEqual(table);
    expect(typeMismatches(ws, sheet)).toEqual([]);
  }
  return books[0]!;
}

describe("an Explore table's workbook", () => {
  const view = buildReportView({
    op: "orders",
    groupBy: ["date", "card_brand"],
    metrics: ["attempts", "approvals", "revenue", "cb_count", "cb_amount", "refund_amount"],
    grain: "day",
    range: { start: "2026-06-20", end: "2026-06-29" },
    records: records("2026-06-20", 10, 1),
    comparison: { compare: { kind: "previous" }, range: { start: "2026-06-10", end: "2026-06-19" }, records: records("2026-06-10", 10, 0.8) },
  });
  // Today two days after the range: the chargeback rate is still maturing on its rows.
  const model = buildViewTable({ op: "orders", groupBy: ["date", "card_brand"], measures: ["attempts", "revenue", "approval_rate", "cb_rate_count", "net_revenue"] }, view, { today: "2026-07-01" });
  const rows = sortRows(model, { key: "revenue", dir: "desc" });
  const meta = { lines: [["Report", "Order summary"], ["Range", "2026-06-20 to 2026-06-29"], ["Timezone", "Europe/Berlin"], ["Filters", "Card brand: =x"], ["Exported at", "2026-07-01 10:00:00 Europe/Berlin"]] as const };
  const sheet = tableSheet(model, rows, meta);

  it("holds every cell of the CSV, with its type: numbers, days as dates, signed changes, text", async () => {
    const csv = tableToCsv(model, rows, meta);
    const book = await expectSameAsCsv(sheet, csv, "Order summary");
    // The shape the reader sees: changes, percentages, the maturing column, a totals row.
    expect(sheet.kinds).toContain("signed-currency");
    expect(sheet.kinds).toContain("signed-percent");
    expect(sheet.kinds).toContain("points");
    expect(sheet.header.at(-1)).toBe("Maturing");
    expect(sheet.rows.some((r) => String(r.at(-1)).includes("Chargeback"))).toBe(true);
    const ws = book.getWorksheet("Order summary")!;
    expect(ws.getCell("A2").value).toBeInstanceOf(Date);
    expect(ws.getCell("A2").numFmt).toBe(NUMBER_FORMATS.date);
  });

  it("formats amounts in the display currency, rates as percentages, changes with their sign, counts whole", async () => {
    const [book] = await bothWriters(singleTableBook("Order summary", sheet));
    const ws = book!.getWorksheet("Order summary")!;
    const col = (header: string) => sheet.header.indexOf(header) + 1;
    const second = ws.getRow(2);
    expect(second.getCell(col("Revenue (USD)")).numFmt).toBe(NUMBER_FORMATS.currency);
    expect(NUMBER_FORMATS.currency).toContain('"$"');
    expect(second.getCell(col("Approval rate (%)")).numFmt).toBe("0.00%");
    expect(second.getCell(col("Approval rate change (pp)")).numFmt).toBe(NUMBER_FORMATS.points);
    expect(second.getCell(col("Revenue change (USD)")).numFmt).toMatch(/^\+/);
    expect(second.getCell(col("Revenue % change (%)")).numFmt).toBe(NUMBER_FORMATS["signed-percent"]);
    expect(second.getCell(col("Attempts")).numFmt).toBe(NUMBER_FORMATS.count);
    expect(Number.isInteger(second.getCell(col("Attempts")).value)).toBe(true);
    // A rate is a fraction Excel computes with: 62.5% is 0.625.
    const rate = second.getCell(col("Approval rate (%)")).value as number;
    expect(rate).toBeGreaterThan(0);
    expect(rate).toBeLessThanOrEqual(1);
  });

  it("freezes the header row, filters the rows, and keeps the totals row last, bold and outside the filter", async () => {
    const [book] = await bothWriters(singleTableBook("Order summary", sheet));
    const ws = book!.getWorksheet("Order summary")!;
    expect(ws.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
    const last = ws.getColumn(sheet.kinds.length).letter;
    expect(ws.autoFilter).toBe(`A1:${last}${1 + rows.length}`);
    const totals = ws.getRow(2 + rows.length);
    expect(totals.getCell(1).value).toBe("Totals");
    expect(totals.font?.bold ?? totals.getCell(1).font?.bold).toBe(true);
    expect(ws.rowCount).toBe(2 + rows.length);
  });

  it("keeps a formula-looking label as text, never a formula", async () => {
    const [book] = await bothWriters(singleTableBook("Order summary", sheet));
    const ws = book!.getWorksheet("Order summary")!;
    const cells: ExcelJS.Cell[] = [];
    ws.eachRow((row) => row.eachCell((c) => cells.push(c)));
    const looking = cells.filter((c) => typeof c.value === "string" && /^[=+\-@]/.test(c.value));
    expect(looking.map((c) => c.value)).toEqual(expect.arrayContaining([FORMULA_LABEL, "+1 brand", "@mention", "-minus"]));
    for (const c of looking) expect(c.type).toBe(ExcelJS.ValueType.String);
    expect(cells.some((c) => c.type === ExcelJS.ValueType.Formula)).toBe(false);
  });

  it.skipIf(soffice === null)("LibreOffice (soffice; skipped where it is not installed) converts the table sheet headless to the CSV's values", async () => {
    const lo = libreOfficeSheets(await workbookBytes(singleTableBook("Order summary", sheet)));
    const { table } = csvParts(tableToCsv(model, rows, meta));
    expect(libreOfficeMismatches(lo.get("Order summary") ?? [], table, sheet.kinds)).toEqual([]);
  });
});

describe("a pivot's workbook", () => {
  const view = buildReportView({
    op: "orders",
    groupBy: ["date", "card_brand"],
    metrics: ["attempts", "approvals", "revenue"],
    grain: "week",
    range: { start: "2026-06-01", end: "2026-06-24" },
    records: records("2026-06-01", 24, 1),
  });
  it("holds every cell of the pivot's CSV, its totals as the totals row", async () => {
    for (const measure of ["revenue", "approval_rate"]) {
      const pivot = buildPivot(view, measure, { today: "2026-07-30" });
      if (isPivotError(pivot)) throw new Error(pivot.error);
      const meta = { lines: [["Range", "2026-06-01 to 2026-06-24"]] as const };
      const sheet = pivotSheet(pivot, meta);
      const book = await expectSameAsCsv(sheet, pivotToCsv(pivot, meta), "Pivot");
      expect(book.getWorksheet("Pivot")!.getRow(2 + pivot.rows.length).getCell(1).value).toBe("Totals");
    }
  });
});

describe("a cohort grid's workbook", () => {
  const grid = buildCohortGrid({
    records: [
      { date: "2025-06-02", billing_cycle: 0, approvals_by_initial_date: 10 },
      { date: "2025-06-02", billing_cycle: 1, approvals_by_initial_date: 4 },
      { date: "2025-06-16", billing_cycle: 0, approvals_by_initial_date: 5 },
    ],
    range: { start: "2025-06-02", end: "2025-06-16" },
    today: "2025-06-25",
    rows: "week",
    cell: "retention",
    cycles: 1,
    trialDays: 14,
    periodDays: 30,
  });
  it("holds every cell of the grid's CSV: masked cells empty, never 0; the summary as the totals row", async () => {
    const meta = { lines: [["Range", "2025-06-01 to 2025-07-25"]] as const };
    const book = await expectSameAsCsv(gridSheet(grid, meta), gridToCsv(grid, meta), "Cohorts");
    const ws = book.getWorksheet("Cohorts")!;
    expect(ws.getCell("C3").value).toBeNull();
    expect(ws.getCell("C2").value).toBe(1);
    expect(ws.getCell("C2").numFmt).toBe("0.00%");
  });
});

describe("sheet names", () => {
  it("are valid for Excel: no forbidden characters, at most 31 characters, unique ignoring case", () => {
    const names = sheetNames(["Revenue / brand [EU]?", "A very long tile title that goes on and on", "A very long tile title that goes on and on", "revenue   brand  EU", "'quoted'", "", "Question", "history"]);
    expect(names).toEqual(["Revenue brand EU", "A very long tile title that goe", "A very long tile title that (2)", "revenue brand EU (2)", "quoted", "Sheet 6", "Question (2)", "history (2)"]);
    for (const n of names) {
      expect(n.length).toBeLessThanOrEqual(31);
      expect(n).not.toMatch(/[:\\/?*[\]]/);
    }
  });
});
