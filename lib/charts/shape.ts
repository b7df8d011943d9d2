/**
 * Which chart the data calls for, and the chart's data, as pure functions:
 *
 * - nothing grouped → no chart (the table's one row says it all);
 * - `date` grouped → a time series (x = date, every day of the range present);
 * - otherwise → bars over the first grouped dimension;
 * - a second grouped dimension → one series per value: the 10 largest, the rest summed as "Other".
 *
 * Dimensions beyond those two are summed over. Every point, including "Other", is the measure
 * evaluated on sums, so a rate is a ratio of sums there too.
 */
import { getDimension } from "@/lib/contract/catalog";
import { addDays, daysBetween } from "@/lib/contract/dates";
import { compareValues } from "@/lib/contract/order";
import type { ReportRecord } from "@/lib/contract/schemas";
import { formatDimensionValue, type ValueFormat } from "@/lib/metrics/format";
import { addInto, evaluate, mergeSums, measureMetrics, type Measure, type Sums } from "@/lib/metrics/kpis";

export type ChartOverride = "auto" | "line" | "bar" | "none";

export type ChartPlan =
  | { type: "none"; reason: string }
  | { type: "line" | "bar"; x: string; series: string | null };

export function chooseChart(groupBy: readonly string[], override: ChartOverride = "auto"): ChartPlan {
  if (override === "none") return { type: "none", reason: "The chart is turned off." };
  if (groupBy.length === 0) return { type: "none", reason: "Nothing is grouped, so there is one total to show: see the table." };
  const x = groupBy.includes("date") ? "date" : groupBy[0]!;
  const series = groupBy.find((d) => d !== x) ?? null;
  const auto = x === "date" ? "line" : "bar";
  return { type: override === "auto" ? auto : override, x, series };
}

export const OTHER = "Other";

export interface ChartSeries {
  /** Key of the series' values in each data point ("s0", "s1", …). */
  key: string;
  name: string;
  isOther: boolean;
}

export type ChartDatum = Record<string, string | number | null> & { x: string };

export interface ChartData {
  type: "line" | "bar";
  x: string;
  xLabel: string;
  seriesDimension: string | null;
  series: ChartSeries[];
  data: ChartDatum[];
  /** Bars stack when the measure adds up (a sum); rates are drawn side by side. */
  stacked: boolean;
  measure: { id: string; label: string; format: ValueFormat };
  /** Categories folded into "Other" on the x axis (bars only). */
  foldedCategories: number;
  /** Series values folded into "Other". */
  foldedSeries: number;
}

export interface ChartOptions {
  topSeries?: number;
  maxCategories?: number;
  /** With x = date: every day of this range gets a point, zero (or no value for a rate) when absent. */
  dateRange?: { start: string; end: string };
}

type Raw = string | number | null;


/** How much a group weighs when picking the top ones: a rate's volume (its denominator), else |value|. */
function weight(m: Measure, sums: Sums): number {
  const e = evaluate(m, sums);
  return Math.abs(e.denominator ?? e.numerator);
}

function rank<K>(keys: K[], sumsOf: (k: K) => Sums, m: Measure, nameOf: (k: K) => string): K[] {
  return [...keys].sort((a, b) => weight(m, sumsOf(b)) - weight(m, sumsOf(a)) || (nameOf(a) < nameOf(b) ? -1 : 1));
}

const MAX_FILLED_DAYS = 3700;

export function buildChartData(
  records: readonly ReportRecord[],
  plan: Extract<ChartPlan, { type: "line" | "bar" }>,
  measure: Measure,
  options: ChartOptions = {},
): ChartData {
  const topSeries = options.topSeries ?? 10;
  const maxCategories = options.maxCategories ?? 30;
  const metrics = measureMetrics(measure);
  const { x, series: seriesDim } = plan;

  // Sums per (x value, series value), and per x and per series for ranking.
  const cells = new Map<string, Map<string, Sums>>();
  const xRaw = new Map<string, Raw>();
  const bySeries = new Map<string, Sums>();
  const byX = new Map<string, Sums>();
  for (const r of records) {
    const xv = (r[x] ?? null) as Raw;
    const xt = formatDimensionValue(x, xv);
    const st = seriesDim ? formatDimensionValue(seriesDim, (r[seriesDim] ?? null) as Raw) : measure.label;
    if (!xRaw.has(xt)) xRaw.set(xt, xv);
    let row = cells.get(xt);
    if (!row) cells.set(xt, (row = new Map()));
    let s = row.get(st);
    if (!s) row.set(st, (s = new Map()));
    addInto(s, r, metrics);
    let ss = bySeries.get(st);
    if (!ss) bySeries.set(st, (ss = new Map()));
    addInto(ss, r, metrics);
    let xs = byX.get(xt);
    if (!xs) byX.set(xt, (xs = new Map()));
    addInto(xs, r, metrics);
  }

  // Series: the largest `topSeries`, the rest as "Other" (only when there is more than one to fold).
  const seriesNames = rank([...bySeries.keys()], (k) => bySeries.get(k)!, measure, (k) => k);
  const keepSeries = seriesNames.length > topSeries ? seriesNames.slice(0, topSeries) : seriesNames;
  const foldedSeries = seriesNames.length - keepSeries.length;
  const series: ChartSeries[] = keepSeries.map((name, i) => ({ key: `s${i}`, name, isOther: false }));
  if (foldedSeries > 0) series.push({ key: `s${keepSeries.length}`, name: OTHER, isOther: true });
  const seriesKeyOf = new Map(keepSeries.map((n, i) => [n, `s${i}`] as const));
  const otherSeriesKey = foldedSeries > 0 ? `s${keepSeries.length}` : null;

  // Categories: dates fill the range; other dimensions keep their natural order, capped for bars.
  let xs = [...xRaw.keys()].sort((a, b) => compareValues(xRaw.get(a) ?? null, xRaw.get(b) ?? null));
  let foldedCategories = 0;
  let otherX: string[] = [];
  if (x === "date" && options.dateRange && daysBetween(options.dateRange.start, options.dateRange.end) < MAX_FILLED_DAYS) {
    const all: string[] = [];
    for (let d = options.dateRange.start; d <= options.dateRange.end; d = addDays(d, 1)) all.push(d);
    const inRange = new Set(all);
    const extra = xs.filter((v) => !inRange.has(v)); // e.g. "(none)"; kept at the end
    xs = [...all, ...extra];
  } else if (plan.type === "bar" && xs.length > maxCategories) {
    const keep = new Set(rank(xs, (k) => byX.get(k)!, measure, (k) => k).slice(0, maxCategories));
    otherX = xs.filter((v) => !keep.has(v));
    xs = xs.filter((v) => keep.has(v));
    foldedCategories = otherX.length;
  }

  const additive = measure.denominator === null;
  const valueOf = (sums: Sums | undefined): number | null => {
    if (!sums) return additive ? 0 : null;
    return evaluate(measure, sums).value;
  };

  const point = (label: string, rows: Map<string, Sums>[]): ChartDatum => {
    const datum: ChartDatum = { x: label };
    const perKey = new Map<string, Sums>();
    for (const row of rows) {
      for (const [name, sums] of row) {
        const key = seriesKeyOf.get(name) ?? otherSeriesKey;
        if (key === null) continue;
        let acc = perKey.get(key);
        if (!acc) perKey.set(key, (acc = new Map()));
        mergeSums(acc, sums);
      }
    }
    for (const s of series) datum[s.key] = valueOf(perKey.get(s.key));
    return datum;
  };

  const data = xs.map((xv) => point(xv, [cells.get(xv) ?? new Map()]));
  if (otherX.length > 0) data.push(point(OTHER, otherX.map((v) => cells.get(v)!)));

  return {
    type: plan.type,
    x,
    xLabel: getDimension(x)?.label ?? x,
    seriesDimension: seriesDim,
    series,
    data,
    stacked: plan.type === "bar" && seriesDim !== null && additive,
    measure: { id: measure.id, label: measure.label, format: measure.format },
    foldedCategories,
    foldedSeries,
  };
}
