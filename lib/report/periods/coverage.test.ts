import { describe, expect, it } from "vitest";
import type { ReportRecord } from "@/lib/contract/schemas";
import { tableToCsv } from "@/lib/report/table/csv";
import { buildViewTable, COVERAGE_COLUMN, comparedId } from "@/lib/report/table/table";
import { changeCells } from "@/lib/report/table/change";
import { measureFor } from "@/lib/report/metrics/kpis";
import { comparisonRange, previousAsCalendar } from "./compare";
import { comparedCoverageText, coverageDays, coverageLegend, coverageOf, coverageRequest, daysWithData, partlyCovered, partlyCoveredNote, saysCoverage } from "./coverage";
import { buildReportView, comparisonCoverage, describePeriods } from "./view";

const range = { start: "2026-11-06", end: "2026-11-10" };
const cmpRange = { start: "2026-11-01", end: "2026-11-05" };
const day = (date: string, revenue: number, attempts = 10): ReportRecord => ({ date, revenue, attempts });
const current = ["2026-11-06", "2026-11-07", "2026-11-08", "2026-11-09", "2026-11-10"].map((d) => day(d, 100));

describe("what a comparison's data covers", () => {
  it("counts the compared days on which the date-grouped answer has a record", () => {
    const records = [day("2026-11-04", 5), day("2026-11-05", 7), day("2026-11-05", 1), day("2026-10-31", 9)];
    // 31 October is outside the compared days.
    expect(daysWithData(records, cmpRange, ["date"], ["revenue", "attempts"])).toEqual(["2026-11-04", "2026-11-05"]);
    expect(coverageOf(cmpRange, ["2026-11-04", "2026-11-05"])).toEqual({ days: 5, covered: 2 });
    expect(coverageOf({ start: "2026-11-05", end: "2026-11-05" }, ["2026-11-04", "2026-11-05"])).toEqual({ days: 1, covered: 1 });
  });

  it("is not known from an answer without dates, and claims nothing then", () => {
    expect(daysWithData([{ gateway_alias: "A", revenue: 5 }], cmpRange, ["gateway_alias"], ["revenue"])).toBeNull();
    // Chargebacks alone: the service leaves out every day without one, so a missing day says nothing.
    expect(daysWithData([{ date: "2026-11-02", cb_count: 1 }], cmpRange, ["date"], ["cb_count"])).toBeNull();
    // A KPI totals its trend: the view groups by nothing, its records still carry their dates.
    expect(daysWithData([day("2026-11-02", 5)], cmpRange, [], ["revenue"])).toEqual(["2026-11-02"]);
    // An empty answer by date holds no data on any day.
    expect(daysWithData([], cmpRange, ["date"], ["revenue"])).toEqual([]);
    expect(partlyCovered(null)).toBe(false);
    expect(partlyCovered({ days: 5, covered: 5 })).toBe(false);
    expect(partlyCovered({ days: 333, covered: 67 })).toBe(true);
  });

  it("says the count of days it covers, in the words every surface uses", () => {
    const c = { days: 333, covered: 67 };
    expect(comparedCoverageText(c)).toBe("compared period: data on 67 of 333 days");
    expect(partlyCoveredNote(c)).toMatch(/^No better or worse: the compared period has data on 67 of 333 days; on the other 266 there is no data/);
    expect(saysCoverage("$1.00 (data on 67 of 333 days)")).toBe(true);
    expect(saysCoverage("+918.58% (partly covered)")).toBe(true);
    expect(saysCoverage("+918.58% (better)")).toBe(false);
    expect(coverageLegend("data on 67 of 333 days")).toMatch(/^The compared period has data on 67 of 333 days/);
  });
});

describe("a partly covered comparison on a report", () => {
  const revenue = measureFor("revenue", "orders")!;
  const compared = [day("2026-11-04", 20), day("2026-11-05", 30)];
  const view = buildReportView({
    op: "orders",
    groupBy: ["date"],
    metrics: ["revenue", "attempts"],
    grain: "day",
    range,
    records: current,
    comparison: { compare: { kind: "previous" }, range: cmpRange, records: compared },
  });

  it("is said in the report's periods line (the CSV's, the share page's, a tile's)", () => {
    expect(comparisonCoverage(view)).toEqual({ days: 5, covered: 2 });
    expect(describePeriods(view)).toBe("Compared with the previous 5 days, 2026-11-01 to 2026-11-05 (compared period: data on 2 of 5 days)");
  });

  it("marks the compared totals with their days and calls no change better or worse", () => {
    const table = buildViewTable({ op: "orders", groupBy: ["date"], measures: ["revenue"] }, view);
    const at = (id: string) => table.totals.cells[table.columns.findIndex((c) => c.id === id)]!;
    expect(at(comparedId("revenue", "cmp")).text).toBe("$50.00 (data on 2 of 5 days)");
    expect(at(comparedId("revenue", "chg"))).toMatchObject({ text: "+$450.00 (partly covered)", coverage: { days: 5, covered: 2 } });
    expect(at(comparedId("revenue", "chg")).tone).toBeUndefined();
    expect(at(comparedId("revenue", "chg")).note).toMatch(/^No better or worse/);
    expect(at(comparedId("revenue", "pct")).text).toBe("+900.00% (partly covered)");
    // A day row whose compared day has data keeps its verdict; one whose compared day has none has none.
    const row = (date: string) => table.rows.find((r) => r.cells[0]?.value === date)!;
    const chg = table.columns.findIndex((c) => c.id === comparedId("revenue", "chg"));
    expect(row("2026-11-10").cells[chg]).toMatchObject({ text: "+$70.00 (better)", tone: "good" });
    expect(row("2026-11-06").cells[chg]?.text).toBe("+$100.00 (no compared data)");
    expect(row("2026-11-06").cells[chg]?.tone).toBeUndefined();
  });

  it("names the coverage per row in its own CSV column, the numbers staying numbers", () => {
    const table = buildViewTable({ op: "orders", groupBy: ["date"], measures: ["revenue"] }, view);
    const lines = tableToCsv(table, table.rows, { lines: [] }).split("\r\n");
    expect(lines[1]!.split(",").at(-1)).toBe(COVERAGE_COLUMN);
    expect(lines.find((l) => l.startsWith("2026-11-06"))!.split(",").at(-1)).toBe("data on 0 of 1 day");
    expect(lines.find((l) => l.startsWith("2026-11-10"))!.split(",").at(-1)).toBe("");
    expect(lines.find((l) => l.startsWith("Totals"))).toBe("Totals,,500,50,450,900,data on 2 of 5 days");
  });

  it("judges a comparison its data covers as before", () => {
    const whole = buildReportView({
      op: "orders",
      groupBy: ["date"],
      metrics: ["revenue", "attempts"],
      grain: "day",
      range,
      records: current,
      comparison: { compare: { kind: "previous" }, range: cmpRange, records: ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04", "2026-11-05"].map((d) => day(d, 10)) },
    });
    const table = buildViewTable({ op: "orders", groupBy: ["date"], measures: ["revenue"] }, whole);
    const csv = tableToCsv(table, table.rows, { lines: [] });
    expect(csv).not.toContain(COVERAGE_COLUMN);
    expect(table.totals.cells.map((c) => c.text)).toContain("+$450.00 (better)");
    expect(changeCells(revenue, 10, 5, undefined, { days: 5, covered: 5 })[0]).toMatchObject({ tone: "good" });
  });
});

describe("the previous period of whole calendar months, on a dashboard", () => {
  it("is the previous calendar months: October beside September, not 31 August to 30 September", () => {
    const october = { start: "2026-10-01", end: "2026-10-31" };
    expect(comparisonRange(october, { kind: "previous" })).toEqual({ start: "2026-08-31", end: "2026-09-30" });
    const asCalendar = previousAsCalendar(october, { kind: "previous" });
    expect(asCalendar).toEqual({ kind: "calendar" });
    expect(comparisonRange(october, asCalendar)).toEqual({ start: "2026-09-01", end: "2026-09-30" });
    // The last 30 days are not whole months: the same number of days before them, as before.
    expect(previousAsCalendar({ start: "2026-10-31", end: "2026-11-29" }, { kind: "previous" })).toEqual({ kind: "previous" });
    expect(previousAsCalendar(october, { kind: "year" })).toEqual({ kind: "year" });
  });
});

describe("the coverage request beside a comparison that cannot tell its own", () => {
  const range = { start_date: "2025-01-01", end_date: "2025-03-31" };
  it("is the compared days' attempts by date under the same filters, for a breakdown not by date or a measure without sales", () => {
    const filters = { card_brand: ["VISA"] };
    expect(coverageRequest("orders", { ...range, group_by: ["bin"], metrics: ["revenue"], filters })).toEqual({ ...range, group_by: ["date"], metrics: ["attempts"], filters });
    expect(coverageRequest("orders", { ...range, group_by: ["date"], metrics: ["cb_count"] })).toEqual({ ...range, group_by: ["date"], metrics: ["attempts"] });
    expect(coverageRequest("orders", { ...range, group_by: ["date", "bin"], metrics: ["approvals"] })).toBeNull();
    expect(coverageRequest("cohort", { ...range, group_by: ["billing_cycle"], metrics: ["revenue_by_initial_date"] })).toBeNull();
  });

  it("gives the view the compared days with attempts, so a breakdown's compared values say how many hold data", () => {
    const coverage = coverageDays([{ date: "2025-03-30", attempts: 4 }, { date: "2025-03-31", attempts: 2 }, { date: "2024-12-31", attempts: 9 }], { start: "2025-03-01", end: "2025-03-31" });
    expect(coverage).toEqual(["2025-03-30", "2025-03-31"]);
    const view = buildReportView({
      op: "orders",
      groupBy: ["bin"],
      metrics: ["revenue"],
      grain: "day",
      range: { start: "2025-04-01", end: "2025-04-30" },
      records: [{ bin: "411111", revenue: 100 }],
      comparison: { compare: { kind: "previous" }, range: { start: "2025-03-02", end: "2025-03-31" }, records: [{ bin: "411111", revenue: 10 }], dataDays: coverage },
    });
    expect(comparisonCoverage(view)).toEqual({ days: 30, covered: 2 });
    expect(describePeriods(view)).toMatch(/compared period: data on 2 of 30 days/);
  });
});
