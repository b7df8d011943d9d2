/**
 * The dashboards' SVG chart draws exactly the ChartData it is given: one line per line series (broken
 * where a value is missing), one bar per bar value, the comparison dashed, and every value in a tooltip.
 */
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { LiteChart, niceTicks } from "@/components/charts/lite-chart";
import { buildChartData, chooseChart } from "./shape";
import { buildReportView } from "@/lib/periods/view";
import { measureFor } from "@/lib/metrics/kpis";

const records = [
  { date: "2026-11-01", revenue: 100.5, approvals: 3 },
  { date: "2026-11-02", revenue: 50.25, approvals: 2 },
  { date: "2026-11-04", revenue: 75, approvals: 1 },
];
const previous = [
  { date: "2026-10-29", revenue: 80, approvals: 2 },
  { date: "2026-10-30", revenue: 60, approvals: 2 },
];

function chartOf(kind: "line" | "bar", compared: boolean) {
  const view = buildReportView({
    op: "orders",
    groupBy: ["date"],
    metrics: ["revenue", "approvals"],
    grain: "day",
    range: { start: "2026-11-01", end: "2026-11-04" },
    records,
    comparison: compared ? { compare: { kind: "previous" }, range: { start: "2026-10-28", end: "2026-10-31" }, records: previous } : null,
  });
  const plan = chooseChart(["date"], kind);
  if (plan.type === "none") throw new Error("no chart");
  return buildChartData(view, plan, measureFor("revenue", "orders")!);
}

describe("LiteChart", () => {
  it("draws a line per series with every value in a tooltip, and the comparison dashed", () => {
    const chart = chartOf("line", true);
    const svg = renderToStaticMarkup(createElement(LiteChart, { chart }));
    expect(svg).toContain('data-chart="lite"');
    for (const s of chart.series) expect(svg).toContain(`data-series="${s.name}"`);
    expect(svg).toContain("2026-11-01 · Revenue: $100.50");
    expect(svg).toContain("2026-11-04 · Revenue: $75.00");
    expect(svg).toMatch(/stroke-dasharray="6 4"/);
    // One circle per value drawn, no more: the days with no records are not drawn as values.
    const values = chart.series.reduce((n, s) => n + chart.data.filter((d) => typeof d[s.key] === "number").length, 0);
    expect(svg.match(/<circle /g)?.length).toBe(values);
  });

  it("draws one bar per value", () => {
    const chart = chartOf("bar", false);
    const svg = renderToStaticMarkup(createElement(LiteChart, { chart }));
    const values = chart.series.reduce((n, s) => n + chart.data.filter((d) => typeof d[s.key] === "number").length, 0);
    expect(svg.match(/<rect /g)?.length).toBe(values);
  });

  it("puts its ticks on round values that cover the data and zero", () => {
    expect(niceTicks(0, 97)).toEqual([0, 25, 50, 75, 100]);
    expect(niceTicks(-12, 30)).toEqual([-20, 0, 20, 40]);
    expect(niceTicks(0, 0)).toEqual([0, 1]);
  });
});
