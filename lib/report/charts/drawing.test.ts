/**
 * What the chart draws from a ChartData, in the parts that need no browser: every value in the
 * tooltip of its x (exactly, formatted as the table formats it), the comparison dashed, only the
 * current series stacked, maturing values marked where the caption says they are, and nothing drawn
 * where there is no value. The drawing itself (one line per series, a dot per value, a bar per
 * value) is checked in Chromium by e2e/tile-chart.spec.ts.
 */
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ChartTooltip } from "@/components/report/charts/results-chart";
import { barLook, drawnMaturing, hasValues, lineDash, stackOf, valueMaturing } from "./drawing";
import { buildChartData, chooseChart, type ChartSeries } from "./shape";
import { buildReportView } from "@/lib/report/periods/view";
import { measureFor } from "@/lib/report/metrics/kpis";
import type { ReportRecord } from "@/lib/contract";

const records = [
  { date: "2026-11-01", revenue: 100.5, approvals: 3 },
  { date: "2026-11-02", revenue: 50.25, approvals: 2 },
  { date: "2026-11-04", revenue: 75, approvals: 1 },
];
const previous = [
  { date: "2026-10-29", revenue: 80, approvals: 2 },
  { date: "2026-10-30", revenue: 60, approvals: 2 },
];

function chartOf(kind: "line" | "bar", opts: { compared?: boolean; records?: ReportRecord[]; groupBy?: string[] } = {}) {
  const groupBy = opts.groupBy ?? ["date"];
  const view = buildReportView({
    op: "orders",
    groupBy,
    metrics: ["revenue", "approvals"],
    grain: "day",
    range: { start: "2026-11-01", end: "2026-11-04" },
    records: opts.records ?? records,
    comparison: opts.compared ? { compare: { kind: "previous" }, range: { start: "2026-10-28", end: "2026-10-31" }, records: previous } : null,
  });
  const plan = chooseChart(groupBy, kind);
  if (plan.type === "none") throw new Error("no chart");
  return buildChartData(view, plan, measureFor("revenue", "orders")!);
}

function tooltipAt(chart: ReturnType<typeof chartOf>, x: string): string {
  const byX = new Map(chart.data.map((d) => [d.x, d]));
  return renderToStaticMarkup(createElement(ChartTooltip, { active: true, label: x, chart, byX }));
}

const seriesOf = (chart: ReturnType<typeof chartOf>, role: ChartSeries["role"]) => chart.series.filter((s) => s.role === role);

describe("the chart's tooltip", () => {
  it("gives every series' exact value at its x, the compared one beside the current", () => {
    const chart = chartOf("line", { compared: true });
    const first = tooltipAt(chart, "2026-11-01");
    for (const s of chart.series) expect(first).toContain(`${s.name}:`);
    expect(first).toContain("compared with 2026-10-28");
    expect(first).toContain("$100.50");
    // The compared day (2026-10-28) had no records: no data to compare with, so the rise (worded
    // with "+") is not called better, and the tooltip says how much of the compared days hold data.
    expect(first).toContain("(+$100.50 (no compared data), —)");
    expect(first).toContain("compared period: data on 0 of 1 day");
    const second = tooltipAt(chart, "2026-11-02");
    expect(second).toContain("$50.25");
    expect(second).toContain("$80.00");
    // A fall carries the minus sign, never a hyphen.
    expect(second).toContain("(\u2212$29.75 (worse), \u221237.19% (worse))");
    expect(tooltipAt(chart, "2026-11-04")).toContain("$75.00");
  });

  it("counts a day without records as nothing sold, as the table does", () => {
    const chart = chartOf("line");
    const third = chart.data.find((d) => d.x === "2026-11-03");
    expect(third?.[chart.series[0]!.key]).toBe(0);
    expect(tooltipAt(chart, "2026-11-03")).toContain("Revenue:</span><span class=\"ml-auto pl-2 font-medium tabular-nums\">$0.00</span>");
  });

  it("is empty away from the data", () => {
    const chart = chartOf("line");
    expect(tooltipAt(chart, "2026-12-25")).toBe("");
  });
});

describe("how series are drawn", () => {
  it("draws the compared line dashed and the current one solid", () => {
    const chart = chartOf("line", { compared: true });
    const [current] = seriesOf(chart, "current");
    const [compared] = seriesOf(chart, "comparison");
    expect(lineDash(current!)).toBeUndefined();
    expect(lineDash(compared!)).toBe("6 4");
  });

  it("draws compared bars pale with a dashed edge, current ones solid, and stacks only the current series", () => {
    const chart = chartOf("bar", { compared: true });
    const [current] = seriesOf(chart, "current");
    const [compared] = seriesOf(chart, "comparison");
    expect(barLook(current!)).toEqual({ fillOpacity: 1, dash: undefined });
    expect(barLook(compared!)).toEqual({ fillOpacity: 0.12, dash: "4 3" });
    const stacked = { stacked: true };
    expect(stackOf(stacked, current!)).toBe("stack");
    expect(stackOf(stacked, compared!)).toBeUndefined();
    expect(stackOf({ stacked: false }, current!)).toBeUndefined();
  });

  it("marks a maturing value on the current series of the plotted measure only", () => {
    const maturing = { maturing: "Chargebacks on sales this recent are still arriving.", comparedMaturing: true };
    const settled = { maturing: null, comparedMaturing: false };
    const current = { axis: "left", role: "current", dashed: false } as const;
    const compared = { axis: "left", role: "comparison", dashed: true } as const;
    const second = { axis: "right", role: "measure2", dashed: false } as const;
    expect(drawnMaturing(current, maturing)).toBe(true);
    expect(drawnMaturing(current, settled)).toBe(false);
    expect(drawnMaturing(compared, maturing)).toBe(false);
    expect(drawnMaturing(second, maturing)).toBe(false);
    expect(barLook(current, maturing)).toEqual({ fillOpacity: 0.4, dash: "3 2" });
    expect(barLook(current, settled)).toEqual({ fillOpacity: 1, dash: undefined });
    // The tooltip words a compared value by its own days.
    expect(valueMaturing(compared, maturing)).toBe(true);
    expect(valueMaturing(compared, { maturing: "still arriving", comparedMaturing: false })).toBe(false);
    expect(valueMaturing(second, maturing)).toBe(false);
  });

  it("has nothing to draw when the range has no category to draw, and a zero line for days without sales", () => {
    expect(hasValues(chartOf("line"))).toBe(true);
    expect(hasValues(chartOf("line", { records: [] }))).toBe(true);
    expect(hasValues(chartOf("bar", { records: [], groupBy: ["gateway_alias"] }))).toBe(false);
  });
});
