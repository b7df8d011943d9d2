import { describe, expect, it } from "vitest";
import type { ReportRecord } from "@/lib/contract";
import { formatCompact } from "@/lib/report/metrics/format";
import { measureFor } from "@/lib/report/metrics/kpis";
import type { CompareSelection } from "@/lib/report/periods/compare";
import type { DayRange, TimeGrain } from "@/lib/report/periods/grain";
import { buildReportView, type ReportView } from "@/lib/report/periods/view";
import { describeChart } from "./caption";
import { labelLayout, ordinal, shorten } from "./labels";
import { buildChartData, chooseChart, MEASURE2_KEY, OTHER, tickText, type ChartPlan } from "./shape";

type Drawn = Extract<ChartPlan, { type: "line" | "bar" }>;
const planOf = (groupBy: string[], kind: "auto" | "line" | "bar" = "auto") => chooseChart(groupBy, kind) as Drawn;

const METRICS = ["attempts", "approvals", "revenue"];

function view(
  groupBy: string[],
  records: ReportRecord[],
  opts: { range?: DayRange; grain?: TimeGrain; comparison?: { compare: CompareSelection; range: DayRange; records: ReportRecord[] } } = {},
): ReportView {
  return buildReportView({
    op: "orders",
    groupBy,
    metrics: METRICS,
    grain: opts.grain ?? "day",
    range: opts.range ?? { start: "2025-07-01", end: "2025-07-01" },
    records,
    comparison: opts.comparison ?? null,
  });
}

const revenue = measureFor("revenue", "orders")!;
const rate = measureFor("approval_rate", "orders")!;

describe("chart choice", () => {
  it("draws a time series when date is grouped, wherever it is", () => {
    expect(chooseChart(["date"])).toEqual({ type: "line", x: "date", series: null });
    expect(chooseChart(["card_brand", "date"])).toEqual({ type: "line", x: "date", series: "card_brand" });
  });
  it("draws bars for a categorical dimension, one series per value of a second", () => {
    expect(chooseChart(["card_brand"])).toEqual({ type: "bar", x: "card_brand", series: null });
    expect(chooseChart(["card_brand", "card_type", "bank"])).toEqual({ type: "bar", x: "card_brand", series: "card_type" });
  });
  it("draws nothing without a grouping, or when turned off; follows an override", () => {
    expect(chooseChart([]).type).toBe("none");
    expect(chooseChart(["date"], "none").type).toBe("none");
    expect(chooseChart(["date"], "bar")).toEqual({ type: "bar", x: "date", series: null });
    expect(chooseChart(["card_brand"], "line")).toEqual({ type: "line", x: "card_brand", series: null });
  });
});

describe("chart data", () => {
  it("fills every day of the range (0 for a sum, no value for a rate)", () => {
    const records: ReportRecord[] = [
      { date: "2025-07-01", revenue: 10, approvals: 1, attempts: 2 },
      { date: "2025-07-03", revenue: 5, approvals: 1, attempts: 1 },
    ];
    const range = { start: "2025-07-01", end: "2025-07-03" };
    const v = view(["date"], records, { range });
    const sums = buildChartData(v, planOf(["date"]), revenue);
    expect(sums.data.map((d) => [d.x, d.s0])).toEqual([
      ["2025-07-01", 10],
      ["2025-07-02", 0],
      ["2025-07-03", 5],
    ]);
    expect(sums.series).toHaveLength(1);
    expect(sums.series[0]).toMatchObject({ key: "s0", name: "Revenue", isOther: false, role: "current", axis: "left", dashed: false });
    expect(sums.partial).toEqual([]);
    const rates = buildChartData(v, planOf(["date"]), rate);
    expect(rates.data.map((d) => d.s0)).toEqual([0.5, null, 1]);
  });

  it("keeps the 10 largest series and folds the rest into Other, as ratios of sums", () => {
    const records: ReportRecord[] = [];
    for (let i = 0; i < 13; i++) {
      // bank i has (i + 1) × 10 attempts, half approved, except the smallest ones
      records.push({ date: "2025-07-01", bank: `Bank ${String(i).padStart(2, "0")}`, attempts: (i + 1) * 10, approvals: i < 3 ? i : (i + 1) * 5 });
    }
    const out = buildChartData(view(["date", "bank"], records), planOf(["date", "bank"]), rate);
    expect(out.series).toHaveLength(11);
    expect(out.series[0]!.name).toBe("Bank 12"); // ranked by volume (attempts), not by rate
    expect(out.series[10]).toMatchObject({ key: "s10", name: OTHER, isOther: true });
    expect(out.foldedSeries).toBe(3);
    // Other = banks 00..02: approvals 0+1+2 = 3 over attempts 10+20+30 = 60
    expect(out.data[0]!.s10).toBeCloseTo(3 / 60, 12);
  });

  it("sums over dimensions beyond the two it draws", () => {
    const records: ReportRecord[] = [
      { card_brand: "VISA", card_type: "DEBIT", bank: "A", revenue: 1 },
      { card_brand: "VISA", card_type: "DEBIT", bank: "B", revenue: 2 },
      { card_brand: "AMEX", card_type: "CREDIT", bank: "A", revenue: 4 },
    ];
    const groupBy = ["card_brand", "card_type", "bank"];
    const out = buildChartData(view(groupBy, records), planOf(groupBy), revenue);
    expect(out.stacked).toBe(true);
    const byName = Object.fromEntries(out.series.map((s) => [s.name, s.key]));
    const visa = out.data.find((d) => d.x === "VISA")!;
    expect(visa[byName.DEBIT!]).toBe(3);
    expect(visa[byName.CREDIT!]).toBe(0);
    expect(out.data.map((d) => d.x)).toEqual(["AMEX", "VISA"]);
    expect(out.grain).toBeNull();
  });

  it("caps bar categories, folding the smallest into an Other bar", () => {
    const records: ReportRecord[] = Array.from({ length: 40 }, (_, i) => ({ bin: String(400000 + i), revenue: i + 1 }));
    const out = buildChartData(view(["bin"], records), planOf(["bin"]), revenue, { maxCategories: 30 });
    expect(out.data).toHaveLength(31);
    expect(out.foldedCategories).toBe(10);
    expect(out.data[30]).toMatchObject({ x: OTHER, s0: 55 }); // 1 + … + 10
    expect(out.data[0]!.x).toBe("400010"); // kept bars stay in their natural order
    expect(describeChart(out).notes.join(" ")).toContain("10 smallest");
  });

  it("does not stack rates", () => {
    const groupBy = ["card_brand", "card_type"];
    const v = view(groupBy, [{ card_brand: "VISA", card_type: "DEBIT", approvals: 1, attempts: 2 }]);
    expect(buildChartData(v, planOf(groupBy), rate).stacked).toBe(false);
  });
});

describe("periods on the x axis", () => {
  // 15 September to 23 November 2026 by month: September and November are cut by the range.
  const range = { start: "2026-09-15", end: "2026-11-23" };
  const records: ReportRecord[] = [
    { date: "2026-09-20", revenue: 100, approvals: 3, attempts: 4 },
    { date: "2026-09-30", revenue: 50.5, approvals: 1, attempts: 4 },
    { date: "2026-11-02", revenue: 7, approvals: 1, attempts: 1 },
  ];
  const v = view(["date"], records, { range, grain: "month" });

  it("has one point per period of the range, labelled as the table labels it, empty ones included", () => {
    const out = buildChartData(v, planOf(["date"]), revenue);
    expect(out.grain).toBe("month");
    expect(out.data.map((d) => [d.x, d.s0])).toEqual([
      ["2026-09", 150.5],
      ["2026-10", 0],
      ["2026-11", 7],
    ]);
    const rates = buildChartData(v, planOf(["date"]), rate);
    expect(rates.data.map((d) => d.s0)).toEqual([4 / 8, null, 1]); // a ratio of sums, not a mean of days
  });

  it("marks partial periods on the tick, in the tooltip's data and in the caption", () => {
    const out = buildChartData(v, planOf(["date"]), revenue);
    expect(out.partial).toEqual([
      { label: "2026-09", from: "2026-09-15", to: "2026-09-30" },
      { label: "2026-11", from: "2026-11-01", to: "2026-11-23" },
    ]);
    expect(out.data.map((d) => [d.partial, d.span])).toEqual([
      [true, "2026-09-15 to 2026-09-30"],
      [false, "2026-10-01 to 2026-10-31"],
      [true, "2026-11-01 to 2026-11-23"],
    ]);
    expect(out.data.map((d) => tickText(out, d.x))).toEqual(["2026-09*", "2026-10", "2026-11*"]);
    const caption = describeChart(out);
    expect(caption.title).toBe(`Revenue (USD) by month`);
    expect(caption.notes.join(" ")).toContain("* Partial month: 2026-09 covers only 2026-09-15 to 2026-09-30; 2026-11 covers only 2026-11-01 to 2026-11-23.");
  });
});

describe("comparison overlay", () => {
  // October and 1–23 November 2026, beside the same days of 2025.
  const range = { start: "2026-10-01", end: "2026-11-23" };
  const cmpRange = { start: "2025-10-01", end: "2025-11-23" };
  const current: ReportRecord[] = [
    { date: "2026-10-05", card_brand: "VISA", revenue: 10, approvals: 1, attempts: 1 },
    { date: "2026-11-03", card_brand: "AMEX", revenue: 20, approvals: 2, attempts: 4 },
  ];
  const compared: ReportRecord[] = [
    { date: "2025-10-02", card_brand: "VISA", revenue: 1.1, approvals: 1, attempts: 2 },
    { date: "2025-10-20", card_brand: "VISA", revenue: 2.2, approvals: 9, attempts: 10 },
    { date: "2025-10-21", card_brand: "AMEX", revenue: 3.3, approvals: 0, attempts: 3 },
    { date: "2025-11-23", card_brand: "VISA", revenue: 4, approvals: 1, attempts: 1 },
  ];
  const comparison = { compare: { kind: "year" } as const, range: cmpRange, records: compared };
  const sumOf = (rs: ReportRecord[], m: string) => rs.reduce((n, r) => n + Math.round(Number(r[m] ?? 0) * 100), 0) / 100;
  const inMonth = (month: string) => compared.filter((r) => String(r.date).startsWith(month));

  it("draws the compared values as a dashed series named after the comparison, equal to the compared records' sums", () => {
    const v = view(["date"], current, { range, grain: "month", comparison });
    const out = buildChartData(v, planOf(["date"]), revenue);
    const cmp = out.series.find((s) => s.role === "comparison")!;
    expect(cmp).toMatchObject({ key: "c0", name: "Revenue (same period last year)", dashed: true, comparesTo: "s0", axis: "left", shape: "line" });
    expect(out.data.map((d) => [d.x, d.s0, d.c0])).toEqual([
      ["2026-10", 10, sumOf(inMonth("2025-10"), "revenue")],
      ["2026-11", 20, sumOf(inMonth("2025-11"), "revenue")],
    ]);
    // Both spans for the tooltip: the current period's days and the compared ones beside them.
    expect(out.data.map((d) => [d.span, d.compared])).toEqual([
      ["2026-10-01 to 2026-10-31", "2025-10-01 to 2025-10-31"],
      ["2026-11-01 to 2026-11-23", "2025-11-01 to 2025-11-23"],
    ]);
    // Four of the compared period's 54 days hold records: said once for the chart and per point.
    expect(out.comparison).toEqual({ kind: "year", name: "same period last year", range: cmpRange, scope: "single", coverage: { days: 54, covered: 4 } });
    expect(out.data.map((d) => d.comparedCoverage)).toEqual([
      { days: 31, covered: 3 },
      { days: 23, covered: 1 },
    ]);
    expect(describeChart(out).notes.join(" ")).toContain("Dashed: Revenue in the same period last year (2025-10-01 to 2025-11-23)");
    expect(describeChart(out).notes.join(" ")).toContain("The compared period has data on 4 of 54 days");
  });

  it("compares a KPI as the ratio of the compared sums", () => {
    const v = view(["date"], current, { range, grain: "month", comparison });
    const out = buildChartData(v, planOf(["date"]), rate);
    // October 2025: (1 + 9 + 0) approvals over (2 + 10 + 3) attempts; not the mean of 0.5, 0.9 and 0.
    expect(out.data[0]!.c0).toBeCloseTo(10 / 15, 12);
    expect(out.data[1]!.c0).toBe(1);
  });

  it("with a series dimension, compares the total only: a solid total beside the dashed one (or the stack's height)", () => {
    const groupBy = ["date", "card_brand"];
    const v = view(groupBy, current, { range, grain: "month", comparison });
    const lines = buildChartData(v, planOf(groupBy), revenue);
    expect(lines.series.map((s) => [s.key, s.name, s.role])).toEqual([
      ["s0", "AMEX", "current"],
      ["s1", "VISA", "current"],
      ["T", "Total", "total"],
      ["cT", "Total (same period last year)", "comparison"],
    ]);
    expect(lines.data.map((d) => [d.T, d.cT])).toEqual([
      [10, sumOf(inMonth("2025-10"), "revenue")],
      [20, sumOf(inMonth("2025-11"), "revenue")],
    ]);
    expect(lines.comparison?.scope).toBe("total");
    expect(describeChart(lines).notes.join(" ")).toContain("compared as a total only");

    const bars = buildChartData(v, planOf(groupBy, "bar"), revenue);
    expect(bars.stacked).toBe(true);
    expect(bars.series.map((s) => s.key)).toEqual(["s0", "s1", "cT"]);
  });

  it("draws no current series for a value found only in the comparison", () => {
    const groupBy = ["date", "card_brand"];
    const onlyBefore = [...compared, { date: "2025-10-03", card_brand: "DISCOVER", revenue: 9, approvals: 1, attempts: 1 }];
    const v = view(groupBy, current, { range, grain: "month", comparison: { ...comparison, records: onlyBefore } });
    const out = buildChartData(v, planOf(groupBy), revenue);
    expect(out.series.filter((s) => s.role === "current").map((s) => s.name)).toEqual(["AMEX", "VISA"]);
    expect(out.data[0]!.cT).toBe(sumOf(inMonth("2025-10"), "revenue") + 9);
  });

  it("compares categories with the whole comparison range", () => {
    const v = view(["card_brand"], current, { range, comparison });
    const out = buildChartData(v, planOf(["card_brand"]), revenue);
    expect(out.data.map((d) => [d.x, d.s0, d.c0, d.span, d.compared])).toEqual([
      ["AMEX", 20, 3.3, null, null],
      ["VISA", 10, sumOf(compared, "revenue") - 3.3, null, null],
    ]);
    expect(out.series.find((s) => s.role === "comparison")).toMatchObject({ shape: "bar", dashed: true });
  });

  it("leaves out, and names, compared days that stand beside no day of the report", () => {
    const v: ReportView = {
      op: "orders",
      groupBy: ["date"],
      metrics: METRICS,
      grain: "day",
      range: { start: "2025-02-28", end: "2025-03-01" },
      comparison: { compare: { kind: "year" }, range: { start: "2024-02-28", end: "2024-03-01" } },
      rows: [
        { record: { date: "2025-02-28", revenue: 1 }, period: null, comparison: { date: "2025-02-28", revenue: 2 }, presence: "both", compared: null },
        { record: { date: "2024-02-29", revenue: 0 }, period: null, comparison: { date: "2024-02-29", revenue: 5 }, presence: "comparison", compared: null, unaligned: "2024-02-29" },
      ],
    };
    const out = buildChartData(v, planOf(["date"]), revenue);
    expect(out.unaligned).toEqual(["2024-02-29"]);
    expect(out.data.some((d) => d.c0 === 5)).toBe(false);
    expect(describeChart(out).notes.join(" ")).toContain("A compared day (2024-02-29) stands beside no day of this range and is not drawn.");
  });
});

describe("a second measure", () => {
  const records: ReportRecord[] = [
    { date: "2025-07-01", card_brand: "VISA", revenue: 10, approvals: 1, attempts: 4 },
    { date: "2025-07-01", card_brand: "AMEX", revenue: 5, approvals: 3, attempts: 4 },
    { date: "2025-07-02", card_brand: "VISA", revenue: 1, approvals: 0, attempts: 0 },
  ];
  const range = { start: "2025-07-01", end: "2025-07-02" };

  it("is drawn as a line on its own right-hand axis, totals per x (the series dimension is not split)", () => {
    const groupBy = ["date", "card_brand"];
    const out = buildChartData(view(groupBy, records, { range }), planOf(groupBy, "bar"), revenue, { measure2: rate });
    expect(out.seriesDimension).toBeNull();
    expect(out.unsplitDimension).toBe("card_brand");
    expect(out.series.map((s) => [s.key, s.name, s.shape, s.axis, s.format])).toEqual([
      ["s0", "Revenue", "bar", "left", "currency"],
      [MEASURE2_KEY, "Approval rate", "line", "right", "percent"],
    ]);
    // Ratios of the day's sums: (1 + 3) / (4 + 4); a day without attempts has no rate.
    expect(out.data.map((d) => [d.s0, d[MEASURE2_KEY]])).toEqual([
      [15, 0.5],
      [1, null],
    ]);
    expect(out.measure2).toEqual({ id: "approval_rate", label: "Approval rate", format: "percent", better: "higher" });
    const caption = describeChart(out);
    expect(caption.title).toBe("Revenue (USD, bars, left axis) and Approval rate (%, line, right axis) by day");
    expect(caption.notes.join(" ")).toContain("Not split by card brand while a second measure is drawn");
    // Each axis ticks in its measure's format.
    expect(formatCompact(1500, out.measure.format)).toBe("$1.5K");
    expect(formatCompact(0.5, out.measure2!.format)).toBe("50%");
  });

  it("is ignored when it is the plotted measure itself", () => {
    const out = buildChartData(view(["date"], records, { range }), planOf(["date"]), revenue, { measure2: revenue });
    expect(out.measure2).toBeNull();
    expect(out.series.map((s) => s.key)).toEqual(["s0"]);
  });

  it("is not compared: the comparison stays with the plotted measure", () => {
    const v = view(["date"], records, {
      range,
      comparison: { compare: { kind: "previous" }, range: { start: "2025-06-29", end: "2025-06-30" }, records: [{ date: "2025-06-30", revenue: 3, approvals: 1, attempts: 1 }] },
    });
    const out = buildChartData(v, planOf(["date"]), revenue, { measure2: rate });
    expect(out.series.map((s) => s.key)).toEqual(["s0", "c0", MEASURE2_KEY]);
    expect(out.data.map((d) => d.c0)).toEqual([0, 3]);
    expect(out.data.map((d) => d.compared)).toEqual(["2025-06-29", "2025-06-30"]);
    expect(describeChart(out).notes.join(" ")).toContain("Approval rate is not compared");
  });
});

describe("category labels", () => {
  it("sets short labels level when they fit", () => {
    const l = labelLayout({ count: 4, maxLength: 6, width: 800, categorical: true, canGoHorizontal: true, rightAxis: false });
    expect(l).toMatchObject({ mode: "straight", angle: 0, step: 1, maxChars: null, note: null, compact: false });
  });

  it("slants a month of dates and shows every one of them on a desktop", () => {
    const l = labelLayout({ count: 30, maxLength: 10, width: 800, categorical: false, canGoHorizontal: false, rightAxis: false });
    expect(l).toMatchObject({ mode: "rotated", angle: -45, step: 1, maxChars: null, note: null });
  });

  it("labels every n-th date when even slanted ones would overlap, and says so", () => {
    const l = labelLayout({ count: 90, maxLength: 10, width: 800, categorical: false, canGoHorizontal: false, rightAxis: false });
    expect(l.mode).toBe("rotated");
    expect(l.step).toBeGreaterThan(1);
    expect(l.note).toContain(`Every ${ordinal(l.step)} date is labelled (90 in all)`);
  });

  it("on a phone: fewer value ticks, thinned slanted dates with a note", () => {
    const l = labelLayout({ count: 30, maxLength: 10, width: 360, categorical: false, canGoHorizontal: false, rightAxis: true });
    expect(l.compact).toBe(true);
    expect(l.valueTicks).toBeLessThan(labelLayout({ count: 30, maxLength: 10, width: 800, categorical: false, canGoHorizontal: false, rightAxis: true }).valueTicks);
    expect(l.step).toBeGreaterThan(1);
    expect(l.note).not.toBeNull();
  });

  it("lays bars on their side for long or many category names, one row each, cutting only past the room", () => {
    const long = labelLayout({ count: 8, maxLength: 28, width: 800, categorical: true, canGoHorizontal: true, rightAxis: false });
    expect(long).toMatchObject({ mode: "horizontal", step: 1, maxChars: null, note: null });
    const many = labelLayout({ count: 30, maxLength: 60, width: 800, categorical: true, canGoHorizontal: true, rightAxis: false });
    expect(many.mode).toBe("horizontal");
    expect(many.height).toBeGreaterThanOrEqual(30 * 22);
    expect(many.maxChars).not.toBeNull();
    expect(many.note).toContain("shortened");
    // A phone: even a few short names go on their side.
    expect(labelLayout({ count: 5, maxLength: 10, width: 360, categorical: true, canGoHorizontal: true, rightAxis: false }).mode).toBe("horizontal");
  });

  it("slants and cuts long names when bars cannot go on their side (lines over categories), and says so", () => {
    const l = labelLayout({ count: 12, maxLength: 40, width: 800, categorical: true, canGoHorizontal: false, rightAxis: false });
    expect(l.mode).toBe("rotated");
    expect(l.maxChars).toBe(18);
    expect(l.note).toContain("shortened");
  });

  it("cuts with an ellipsis and counts ordinals", () => {
    // In the middle: names of one kind often differ at the end.
    expect(shorten("Issuing Bank Number 12", 12)).toBe("Issuing…r 12");
    expect(shorten("Issuing Bank Number 12", 12).length).toBeLessThanOrEqual(12);
    expect(shorten("VISA", 10)).toBe("VISA");
    expect(shorten("VISA", null)).toBe("VISA");
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 103].map(ordinal)).toEqual(["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "103rd"]);
  });
});
