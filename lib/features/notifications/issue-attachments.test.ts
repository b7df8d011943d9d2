import { describe, expect, it } from "vitest";
import { parseCsv } from "@/lib/core/testing/csv";
import { drawnTiles } from "@/lib/features/dashboards/testing/tiles";
import { dashboardWorkbook, tileCsv, tileCsvSource } from "@/lib/features/dashboards/tile-csv";
import type { SharedDashboard } from "@/lib/features/sharing/dashboard";
import { questionLines, readWorkbook, sheetAsCsvRows } from "@/lib/report/table/testing/xlsx";
import { QUESTION_SHEET } from "@/lib/report/table/xlsx";
import { workbookBytes } from "@/lib/report/table/xlsx-stream";
import { attachedWords, attachmentsOf, mailTables } from "./issue-attachments";

const file = (filename: string) => ({ filename, content: "", contentType: "" });

describe("attachedWords", () => {
  it("says how many tables the files hold: one report's table, or a dashboard's several, a sheet each in the workbook", () => {
    expect(attachedWords([file("r.csv"), file("r.xlsx")], 1)).toBe("The table is attached as CSV and as an Excel workbook.");
    expect(attachedWords([file("r.xlsx")], 1)).toBe("The table is attached as an Excel workbook.");
    expect(attachedWords([file("d_a.csv"), file("d_b.csv"), file("d_c.csv"), file("d.xlsx")], 3)).toBe(
      "The 3 tables are attached as CSV files and as an Excel workbook, a sheet each.",
    );
    // A workbook alone still says it holds several tables.
    expect(attachedWords([file("d.xlsx")], 2)).toBe("The 2 tables are attached as an Excel workbook, a sheet each.");
    expect(attachedWords([file("d_a.csv"), file("d_b.csv")], 2)).toBe("The 2 tables are attached as CSV files.");
    // A PDF is not a table file; no table, nothing to say.
    expect(attachedWords([file("r.pdf")], 1)).toBe("");
    expect(attachedWords([], 0)).toBe("");
  });
});

describe("a scheduled dashboard's table files", () => {
  const tiles = drawnTiles();
  const question = {
    dashboard: "Payments · weekly",
    range: "2026-04-01 to 2026-05-31",
    timeZone: "Europe/London",
    filters: "none",
    comparison: "Previous period",
    grain: "Day",
    sharedBy: "Shared by owner@test.local",
  };
  const view: SharedDashboard = {
    kind: "dashboard",
    title: question.dashboard,
    sharedBy: question.sharedBy,
    mode: "live",
    timeZone: question.timeZone,
    rangeLabel: "Custom, as shared",
    preset: null,
    allowedPresets: [],
    filters: question.filters,
    widths: tiles.map(() => 2),
    answer: { today: "2026-06-30", tiles, plan: [], naiveCalls: 0, plannedCalls: 0, asOf: null },
    question,
  };
  const now = new Date("2026-06-30T09:20:00Z");
  const context = { dashboard: view.title, rangeLabel: view.rangeLabel, timeZone: view.timeZone, filters: view.filters, snapshot: false };

  it("are every table, pivot and retention tile, as the dashboard downloads them: a CSV each and one workbook, a sheet each", async () => {
    const drawn = mailTables(view, "Europe/London", now)!;
    const sources = tiles.map((t) => tileCsvSource(t, context)!);
    expect(drawn.tables.map((t) => t.title)).toEqual(sources.map((s) => s.title));
    const kinds = tiles.map((t) => t.outcome.status === "done" && t.outcome.model.body.kind);
    expect(new Set(kinds)).toEqual(new Set(["table", "pivot", "cohort"]));

    let made: Parameters<typeof workbookBytes>[0] | null = null;
    const files = await attachmentsOf(drawn, ["xlsx", "csv"], (spec) => ((made = spec), workbookBytes(spec)));
    expect(files.map((f) => f.filename)).toEqual([
      "Payments-weekly_Revenue-brand-top-EU_2026-04-01_2026-05-31.csv",
      "Payments-weekly_Daily-revenue-and-chargebacks_2026-04-01_2026-05-31.csv",
      "Payments-weekly_Revenue-by-month_2026-04-01_2026-05-31.csv",
      // Two tiles of one title: two files, two names.
      "Payments-weekly_Revenue-by-month_2026-04-01_2026-05-31-2.csv",
      "Payments-weekly_A-retention-grid-whose-title-is-far-long_2026-04-01_2026-05-31.csv",
      "Payments-weekly_SUM-A1-A9_2026-04-01_2026-05-31.csv",
      "Payments-weekly.xlsx",
    ]);
    sources.forEach((s, i) => expect(files[i]!.content, s.title).toBe(tileCsv(s)));

    // The workbook is the one "Download dashboard as Excel" makes, less the share page's "shared by".
    const { sharedBy: _sharedBy, ...asked } = question;
    const generatedAt = "2026-06-30 10:20:00 Europe/London";
    expect(made).toEqual(dashboardWorkbook(sources, { ...asked, generatedAt }));
    const book = await readWorkbook(Buffer.from(files.at(-1)!.content, "base64"));
    expect(book.worksheets).toHaveLength(1 + tiles.length);
    expect(book.worksheets[0]!.name).toBe(QUESTION_SHEET);
    expect(questionLines(book).slice(0, 7)).toEqual([
      ["Dashboard", "Payments · weekly"],
      ["Range", "2026-04-01 to 2026-05-31"],
      ["Timezone", "Europe/London"],
      ["Filters", "none"],
      ["Comparison", "Previous period"],
      ["Grain", "Day"],
      ["Generated at", generatedAt],
    ]);
    sources.forEach((s, i) => {
      const rows = parseCsv(tileCsv(s));
      const blank = rows.findIndex((r) => r.length === 1 && r[0] === "");
      expect(sheetAsCsvRows(book.worksheets[i + 1]!, rows[blank + 1]!.length), s.title).toEqual(rows.slice(blank + 1));
    });
  });
});
