/**
 * A calendar comparison as the table (and so the CSV) shows it: each month's row beside its compared
 * month, the "Compared with" column naming the compared days, the date cell's hover naming them too,
 * and the periods line saying exactly which days are compared.
 */
import { describe, expect, it } from "vitest";
import { addDays } from "@/lib/contract/dates";
import type { ReportRecord } from "@/lib/contract/schemas";
import { tableToCsv } from "@/lib/report/table/csv";
import { buildViewTable } from "@/lib/report/table/table";
import { comparisonRange, type CompareSelection } from "./compare";
import type { DayRange } from "./grain";
import { compareRows } from "./rollup";
import { buildReportView, describePeriods } from "./view";

const CALENDAR: CompareSelection = { kind: "calendar" };

function daysOf(range: DayRange): string[] {
  const out: string[] = [];
  for (let d = range.start; d <= range.end; d = addDays(d, 1)) out.push(d);
  return out;
}

/** One record a day, each day's attempts its day of the month (so sums tell days apart). */
const records = (range: DayRange): ReportRecord[] => daysOf(range).map((date) => ({ date, attempts: Number(date.slice(8)), approvals: 1 }));

describe("a calendar comparison in the table", () => {
  it("lines up Q3 by month beside Q2, and Q1 2024 (leap) beside Q4 2023, in the table's rows and CSV column", () => {
    const q3 = { start: "2026-07-01", end: "2026-09-30" };
    const q2 = comparisonRange(q3, CALENDAR)!;
    const view = buildReportView({ op: "orders", groupBy: ["date"], metrics: ["attempts", "approvals"], grain: "month", range: q3, records: records(q3), comparison: { compare: CALENDAR, range: q2, records: records(q2) } });
    const table = buildViewTable({ op: "orders", groupBy: ["date"], measures: ["approvals"] }, view);
    expect(table.columns.map((c) => c.label)).toEqual(["Month", "Compared with", "Approvals", "Approvals (previous quarter)", "Approvals change", "Approvals % change"]);
    expect(table.rows.map((r) => r.cells.slice(0, 4).map((c) => c.text))).toEqual([
      ["2026-07", "2026-04-01 to 2026-04-30", "31", "30"],
      ["2026-08", "2026-05-01 to 2026-05-31", "31", "31"],
      ["2026-09", "2026-06-01 to 2026-06-30", "30", "30"],
    ]);
    expect(table.rows[0]!.cells[0]!.note).toBe("Compared with 2026-04-01 to 2026-04-30.");
    // The CSV holds the same compared days, one row per month.
    const csv = tableToCsv(table, table.rows, { lines: [] }).split("\r\n");
    expect(csv[1]).toBe("Month,Compared with,Approvals,Approvals (previous quarter),Approvals change,Approvals % change (%)");
    expect(csv.slice(2, 5).map((l) => l.split(",").slice(0, 4).join(","))).toEqual(["2026-07,2026-04-01 to 2026-04-30,31,30", "2026-08,2026-05-01 to 2026-05-31,31,31", "2026-09,2026-06-01 to 2026-06-30,30,30"]);
    expect(describePeriods(view)).toBe("Rows by month; compared with the previous quarter (previous calendar period), 2026-04-01 to 2026-06-30 (91 days against the report's 92; month beside month)");

    const q1 = { start: "2024-01-01", end: "2024-03-31" };
    const q4 = comparisonRange(q1, CALENDAR)!;
    const rows = compareRows(records(q1), records(q4), { groupBy: ["date"], metrics: ["attempts", "approvals"], grain: "month", range: q1, compare: CALENDAR, comparisonRange: q4 });
    expect(rows.map((r) => [r.period!.label, r.compared, r.record.approvals, r.comparison.approvals])).toEqual([
      ["2024-01", { start: "2023-10-01", end: "2023-10-31" }, 31, 31],
      ["2024-02", { start: "2023-11-01", end: "2023-11-30" }, 29, 30],
      ["2024-03", { start: "2023-12-01", end: "2023-12-31" }, 31, 31],
    ]);
  });

  it("by day, names a day with no compared twin 'none' and says so on hover", () => {
    const q3 = { start: "2026-07-01", end: "2026-09-30" };
    const q2 = comparisonRange(q3, CALENDAR)!;
    const view = buildReportView({ op: "orders", groupBy: ["date"], metrics: ["approvals"], grain: "day", range: q3, records: records(q3), comparison: { compare: CALENDAR, range: q2, records: records(q2) } });
    const table = buildViewTable({ op: "orders", groupBy: ["date"], measures: ["approvals"] }, view);
    const jul31 = table.rows.find((r) => r.cells[0]!.text === "2026-07-31")!;
    expect(jul31.cells[1]!.text).toBe("none");
    expect(jul31.cells[0]!.note).toMatch(/No compared day/);
    expect(jul31.cells[3]!.text).toMatch(/^0/);
  });

});
