import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { axisExtent, chartScale, formatTick, niceScale, niceStep } from "./ticks";
import type { ChartData, ChartSeries } from "./shape";

const isNice = (step: number) => {
  const m = step / 10 ** Math.floor(Math.log10(step));
  return [1, 2, 2.5, 5].some((n) => Math.abs(m - n) < 1e-9);
};

describe("niceStep", () => {
  it("rounds up to 1, 2, 2.5 or 5 × 10^n", () => {
    expect([0.7, 1, 1.1, 2.2, 2.6, 4.9, 5.1, 950_000, 0.0007, 0.0021].map(niceStep)).toEqual([1, 1, 2, 2.5, 5, 5, 10, 1_000_000, 0.001, 0.0025]);
  });
});

describe("niceScale", () => {
  it("draws an amount axis in whole millions where the old one read $950K / $1.9M / $2.9M", () => {
    const s = niceScale(0, 3_812_345.67, 5);
    expect(s.ticks).toEqual([0, 1_000_000, 2_000_000, 3_000_000, 4_000_000]);
    expect(s.ticks.map((t) => formatTick(t, "currency"))).toEqual(["$0", "$1M", "$2M", "$3M", "$4M"]);
  });

  it("draws a rate axis in round tenths of a percent where the old one read 0.3% / 0.5% / 0.8%", () => {
    const s = niceScale(0, 0.0074, 5);
    expect(s.ticks).toEqual([0, 0.002, 0.004, 0.006, 0.008]);
    expect(s.ticks.map((t) => formatTick(t, "percent"))).toEqual(["0%", "0.2%", "0.4%", "0.6%", "0.8%"]);
  });

  it("labels a 2.5 step exactly, never rounded to a neighbour", () => {
    const s = niceScale(0, 0.0098, 5);
    expect(s.step).toBe(0.0025);
    expect(s.ticks.map((t) => formatTick(t, "percent"))).toEqual(["0%", "0.25%", "0.5%", "0.75%", "1%"]);
    const m = niceScale(0, 9_800_000, 5);
    expect(m.ticks.map((t) => formatTick(t, "currency"))).toEqual(["$0", "$2.5M", "$5M", "$7.5M", "$10M"]);
    expect(niceScale(0, 0.98, 5).ticks.map((t) => formatTick(t, "currency"))).toEqual(["$0", "$0.25", "$0.5", "$0.75", "$1"]);
  });

  it("reaches below zero for negative values and keeps 0 a tick", () => {
    const s = niceScale(-1234, 5678, 5);
    expect(s.ticks).toContain(0);
    expect(s.domain[0]).toBeLessThanOrEqual(-1234);
    expect(s.domain[1]).toBeGreaterThanOrEqual(5678);
    expect(s.ticks.map((t) => formatTick(t, "count"))).toEqual(["-2K", "0", "2K", "4K", "6K"]);
  });

  it("gives a flat or empty axis a unit to stand on, and counts whole steps", () => {
    expect(niceScale(0, 0, 5).ticks).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(niceScale(0, 0, 5, { wholeSteps: true }).ticks).toEqual([0, 1, 2, 3, 4]);
    expect(niceScale(0, 3, 5, { wholeSteps: true }).ticks).toEqual([0, 1, 2, 3]);
    expect(niceScale(Number.NaN, Number.POSITIVE_INFINITY, 5).ticks).toEqual([0, 0.25, 0.5, 0.75, 1]);
  });

  it("for any domain: at most the ticks asked for, a nice step, the data inside, every label distinct", () => {
    fc.assert(
      fc.property(fc.double({ min: -1e9, max: 1e9, noNaN: true }), fc.double({ min: -1e9, max: 1e9, noNaN: true }), fc.integer({ min: 2, max: 8 }), (a, b, n) => {
        const low = Math.min(a, b);
        const high = Math.max(a, b);
        const s = niceScale(low, high, n);
        // Values either side of 0 need three ticks (below, 0, above) however few were asked for.
        const most = low < 0 && high > 0 ? Math.max(n, 3) : n;
        if (s.ticks.length > most || s.ticks.length < 2) return false;
        if (!isNice(s.step)) return false;
        // Within a billionth of a step (float noise) or a millionth of a unit (read as 0): never a visible cut.
        const slack = Math.max(1e-6, 1e-9 * s.step);
        if (s.domain[0] > Math.min(0, low) + slack || s.domain[1] < Math.max(0, high) - slack) return false;
        const labels = s.ticks.map((t) => formatTick(t, "currency"));
        return new Set(labels).size === labels.length && s.ticks.includes(0);
      }),
      { numRuns: 5000 },
    );
  });

  it("labels awkward small and large domains exactly", () => {
    expect(niceScale(0, 0.000123, 5).ticks.map((t) => formatTick(t, "percent"))).toEqual(["0%", "0.005%", "0.01%", "0.015%"]);
    expect(niceScale(0, 12_345_678_901, 5).ticks.map((t) => formatTick(t, "currency"))).toEqual(["$0", "$5B", "$10B", "$15B"]);
    expect(niceScale(0, 987, 6).ticks.map((t) => formatTick(t, "count"))).toEqual(["0", "200", "400", "600", "800", "1K"]);
    expect(niceScale(-0.021, 0.013, 5).ticks.map((t) => formatTick(t, "points"))).toEqual(["\u22124 pp", "\u22122 pp", "0 pp", "+2 pp"]);
    expect(niceScale(-5, 7, 2).ticks).toEqual([-10, 0, 10]);
    // Just above a millionth: steps no finer than a millionth, each label distinct.
    expect(niceScale(0, 0.0000010000000000000031, 7).ticks.map((t) => formatTick(t, "currency"))).toEqual(["$0", "$0.000001"]);
  });
});

const series = (key: string, over: Partial<ChartSeries> = {}): ChartSeries => ({
  key,
  name: key,
  isOther: false,
  role: "current",
  index: 0,
  comparesTo: null,
  shape: "bar",
  axis: "left",
  dashed: false,
  format: "currency",
  ...over,
});
const datum = (x: string, values: Record<string, number | null>) => ({ x, partial: false, span: null, compared: null, maturing: null, comparedMaturing: false, ...values });

describe("axisExtent", () => {
  it("counts stacked bars at their stack's height, and lines and the right axis apart", () => {
    const chart: Pick<ChartData, "series" | "data" | "stacked"> = {
      stacked: true,
      series: [series("s0"), series("s1"), series("c0", { role: "comparison", dashed: true }), series("m2", { axis: "right", shape: "line", role: "measure2", format: "percent" })],
      data: [datum("a", { s0: 600_000, s1: 500_000, c0: 900_000, m2: 0.004 }), datum("b", { s0: 100, s1: null, c0: 1_200_000, m2: 0.0074 })],
    };
    expect(axisExtent(chart, "left")).toEqual([0, 1_200_000]);
    expect(axisExtent({ ...chart, data: [datum("a", { s0: 600_000, s1: 700_000, c0: 1 })] }, "left")).toEqual([0, 1_300_000]);
    expect(axisExtent(chart, "right")).toEqual([0, 0.0074]);
    expect(chartScale(chart, "right", "percent", 5).ticks.map((t) => formatTick(t, "percent"))).toEqual(["0%", "0.2%", "0.4%", "0.6%", "0.8%"]);
    expect(chartScale(chart, "left", "currency", 5).ticks).toEqual([0, 500_000, 1_000_000, 1_500_000]);
  });
});
