import { describe, expect, it } from "vitest";
import type { ReportRecord } from "@/lib/contract";
import { measureFor } from "@/lib/metrics/kpis";
import { buildChartData, chooseChart, OTHER } from "./shape";

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
  const revenue = measureFor("revenue", "orders")!;
  const rate = measureFor("approval_rate", "orders")!;

  it("fills every day of the range (0 for a sum, no value for a rate)", () => {
    const records: ReportRecord[] = [
      { date: "2025-07-01", revenue: 10, approvals: 1, attempts: 2 },
      { date: "2025-07-03", revenue: 5, approvals: 1, attempts: 1 },
    ];
    const plan = chooseChart(["date"]) as Extract<ReturnType<typeof chooseChart>, { type: "line" }>;
    const range = { start: "2025-07-01", end: "2025-07-03" };
    const sums = buildChartData(records, plan, revenue, { dateRange: range });
    expect(sums.data).toEqual([
      { x: "2025-07-01", s0: 10 },
      { x: "2025-07-02", s0: 0 },
      { x: "2025-07-03", s0: 5 },
    ]);
    expect(sums.series).toEqual([{ key: "s0", name: "Revenue", isOther: false }]);
    const rates = buildChartData(records, plan, rate, { dateRange: range });
    expect(rates.data.map((d) => d.s0)).toEqual([0.5, null, 1]);
  });

  it("keeps the 10 largest series and folds the rest into Other, as ratios of sums", () => {
    const records: ReportRecord[] = [];
    for (let i = 0; i < 13; i++) {
      // bank i has (i + 1) × 10 attempts, half approved, except the smallest ones
      records.push({ date: "2025-07-01", bank: `Bank ${String(i).padStart(2, "0")}`, attempts: (i + 1) * 10, approvals: i < 3 ? i : (i + 1) * 5 });
    }
    const plan = chooseChart(["date", "bank"]) as Extract<ReturnType<typeof chooseChart>, { type: "line" }>;
    const out = buildChartData(records, plan, rate);
    expect(out.series).toHaveLength(11);
    expect(out.series[0]!.name).toBe("Bank 12"); // ranked by volume (attempts), not by rate
    expect(out.series[10]).toEqual({ key: "s10", name: OTHER, isOther: true });
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
    const plan = chooseChart(["card_brand", "card_type", "bank"]) as Extract<ReturnType<typeof chooseChart>, { type: "bar" }>;
    const out = buildChartData(records, plan, revenue);
    expect(out.stacked).toBe(true);
    const byName = Object.fromEntries(out.series.map((s) => [s.name, s.key]));
    const visa = out.data.find((d) => d.x === "VISA")!;
    expect(visa[byName.DEBIT!]).toBe(3);
    expect(visa[byName.CREDIT!]).toBe(0);
    expect(out.data.map((d) => d.x)).toEqual(["AMEX", "VISA"]);
  });

  it("caps bar categories, folding the smallest into an Other bar", () => {
    const records: ReportRecord[] = Array.from({ length: 40 }, (_, i) => ({ bin: String(400000 + i), revenue: i + 1 }));
    const plan = chooseChart(["bin"]) as Extract<ReturnType<typeof chooseChart>, { type: "bar" }>;
    const out = buildChartData(records, plan, revenue, { maxCategories: 30 });
    expect(out.data).toHaveLength(31);
    expect(out.foldedCategories).toBe(10);
    expect(out.data[30]).toEqual({ x: OTHER, s0: 55 }); // 1 + … + 10
    expect(out.data[0]!.x).toBe("400010"); // kept bars stay in their natural order
  });

  it("does not stack rates", () => {
    const plan = chooseChart(["card_brand", "card_type"]) as Extract<ReturnType<typeof chooseChart>, { type: "bar" }>;
    expect(buildChartData([{ card_brand: "VISA", card_type: "DEBIT", approvals: 1, attempts: 2 }], plan, rate).stacked).toBe(false);
  });
});
