/**
 * How the chart draws a ChartData, apart from its colours (the chart component's series colours): which
 * series are dashed, which bars stack, which points are marked as maturing, and whether there is any
 * value to draw at all. Pure, so every page that draws a chart draws it by the same rules.
 */
import type { ChartData, ChartDatum, ChartSeries } from "./shape";

/** A compared line's dashes: long enough to tell from a solid line at a glance. */
const COMPARED_LINE_DASH = "6 4";
/** A compared bar is a pale box with a dashed edge, so the current bar beside it stays the one read first. */
const COMPARED_BAR = { fillOpacity: 0.12, dash: "4 3" } as const;
/** A bar whose value is still maturing: paler, with a finer dashed edge than a compared one. */
const MATURING_BAR = { fillOpacity: 0.4, dash: "3 2" } as const;

/** The dashes of a line series; undefined: solid. */
export function lineDash(s: Pick<ChartSeries, "dashed">): string | undefined {
  return s.dashed ? COMPARED_LINE_DASH : undefined;
}

/** The stack a bar series joins: the current series of a stacked chart add up; every other bar stands beside them. */
export function stackOf(chart: Pick<ChartData, "stacked">, s: Pick<ChartSeries, "role">): string | undefined {
  return chart.stacked && s.role === "current" ? "stack" : undefined;
}

/**
 * The point is drawn as still maturing: a value of the plotted measure (left axis) in the current
 * days, where the data says that measure is still maturing. A compared series is not marked (the
 * caption names the current points it marks); its tooltip still says so (valueMaturing).
 */
export function drawnMaturing(s: Pick<ChartSeries, "axis" | "role">, d: Pick<ChartDatum, "maturing">): boolean {
  return s.axis === "left" && s.role !== "comparison" && d.maturing !== null;
}

/** The series' value at this point is still maturing, as its tooltip words it: the compared ones by the compared days. */
export function valueMaturing(s: Pick<ChartSeries, "axis" | "role">, d: Pick<ChartDatum, "maturing" | "comparedMaturing">): boolean {
  if (s.axis !== "left") return false;
  return s.role === "comparison" ? d.comparedMaturing : d.maturing !== null;
}

/**
 * How a bar series is painted, or one of its bars when `d` is given: its fill's opacity and its
 * edge's dashes (undefined: no edge).
 */
export function barLook(s: Pick<ChartSeries, "axis" | "role" | "dashed">, d?: Pick<ChartDatum, "maturing">): { fillOpacity: number; dash: string | undefined } {
  if (s.dashed) return COMPARED_BAR;
  if (d && drawnMaturing(s, d)) return MATURING_BAR;
  return { fillOpacity: 1, dash: undefined };
}

/** Some series has a number at some x: else there is nothing to draw (every day of the range without records). */
export function hasValues(chart: Pick<ChartData, "series" | "data">): boolean {
  return chart.data.some((d) => chart.series.some((s) => typeof d[s.key] === "number"));
}
