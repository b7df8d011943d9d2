/**
 * Which chart the data calls for, and the chart's data, as pure functions. The chart reads the same
 * ReportView as the table (lib/report/periods/view.ts), so it cannot disagree with it about a period, a
 * partial mark or a compared value:
 *
 * - nothing grouped → no chart (the table's one row says it all);
 * - `date` grouped → a time series over the view's periods (every period of the range present);
 * - otherwise → bars over the first grouped dimension;
 * - a second grouped dimension → one series per value: the 10 largest, the rest summed as "Other"
 *   (not split while a second measure is drawn: that one gets totals per x on its own axis);
 * - a comparison → the plotted measure's compared values as a dashed series beside the current one
 *   (with a split, for the total only: one dashed series per value would double the lines).
 *
 * Dimensions beyond those two are summed over. Every point, including "Other" and the compared ones,
 * is the measure evaluated on sums, so a rate is a ratio of sums there too.
 */
import { getDimension } from "@/lib/contract/dimensions";
import { compareValues } from "@/lib/contract/order";
import type { Direction } from "@/lib/contract/catalog";
import type { ReportRecord } from "@/lib/contract/schemas";
import { type ValueFormat, formatDimensionValue } from "@/lib/report/metrics/format";
import { evaluate, measureMetrics, type Measure } from "@/lib/report/metrics/kpis";
import { addInto, mergeSums, type Sums } from "@/lib/report/metrics/sums";
import { isMaturing, maturingNote, measureMaturity } from "@/lib/report/metrics/maturity";
import { comparedSpan } from "@/lib/report/periods/align";
import { comparisonName as periodsComparisonName, type CompareSelection } from "@/lib/report/periods/compare";
import { dayCount, type DayRange, type TimeGrain } from "@/lib/report/periods/grain";
import { periodsIn, type Period } from "@/lib/report/periods/periods";
import { partlyCovered, type Coverage } from "@/lib/report/periods/coverage";
import { comparisonCoverage, type ReportView } from "@/lib/report/periods/view";

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
export const TOTAL = "Total";
/** Key of the second measure's values in each data point. */
export const MEASURE2_KEY = "m2";

export interface ChartSeries {
  /** Key of the series' values in each data point ("s0", "s1", …, "T", "c0", "cT", "m2"). */
  key: string;
  name: string;
  isOther: boolean;
  /** current: a value of the series dimension (or the measure); total: all of them together; comparison: a compared series; measure2: the second measure. */
  role: "current" | "total" | "comparison" | "measure2";
  /** Position among the current series (their colour). */
  index: number;
  /** The key of the series a comparison stands beside ("s0" or "T"), else null. */
  comparesTo: string | null;
  shape: "line" | "bar";
  /** Which value axis: the first measure's (left) or the second's (right). */
  axis: "left" | "right";
  dashed: boolean;
  format: ValueFormat;
}

/**
 * One x value: its values under the series' keys, plus what the tooltip says about it. `x` is the
 * label (a period label such as "2026-11", or a category); `span` the current days it covers and
 * `compared` the compared days beside them (time series only; null otherwise).
 */
export type ChartDatum = Record<string, string | number | boolean | null> & {
  x: string;
  partial: boolean;
  span: string | null;
  compared: string | null;
  /** The plotted measure is a rate still maturing over this point's days (its hover note), else null. */
  maturing: string | null;
  /** The same over the compared days beside them. */
  comparedMaturing: boolean;
  /** The compared days beside this point hold data on only some of them (absent: all of them, or not known). */
  comparedCoverage?: Coverage;
};

export interface ChartMeasureInfo {
  id: string;
  label: string;
  format: ValueFormat;
  /** Which way a change is good news (the tooltip's better/worse beside a compared value). */
  better: Direction;
  /** The plotted measure's terms: whether a change is judged depends on whether it matures. */
  numerator?: Measure["numerator"];
  denominator?: Measure["denominator"];
}

export interface ChartData {
  type: "line" | "bar";
  x: string;
  xLabel: string;
  /** The time grain of the x axis when it is the date, else null. */
  grain: TimeGrain | null;
  /** The report's days. */
  range: DayRange;
  /** The dimension drawn as one series per value (null: none, or not split because of a second measure). */
  seriesDimension: string | null;
  /** A series dimension left unsplit because a second measure is drawn (totals per x instead). */
  unsplitDimension: string | null;
  series: ChartSeries[];
  data: ChartDatum[];
  /** Bars stack when the measure adds up (a sum) and the series split it; rates are drawn side by side. */
  stacked: boolean;
  measure: ChartMeasureInfo;
  /** The second measure, on its own right-hand axis; null: none. */
  measure2: ChartMeasureInfo | null;
  /** The comparison drawn as dashed series; scope "total" when the split series are compared only as their total. */
  comparison: { kind: CompareSelection["kind"]; name: string; range: DayRange; scope: "single" | "total"; coverage?: Coverage } | null;
  /** Periods the range cuts (first or last), with the days of them it covers. */
  partial: { label: string; from: string; to: string }[];
  /** Points of the plotted measure that are still maturing (their x labels), and its window. */
  maturing: { labels: string[]; window: number } | null;
  /** Compared days that stand beside no day of the report (last year's 29 February): not drawn. */
  unaligned: string[];
  /** Categories folded into "Other" on the x axis (bars only). */
  foldedCategories: number;
  /** Series values folded into "Other". */
  foldedSeries: number;
}

export interface ChartOptions {
  topSeries?: number;
  maxCategories?: number;
  /** A second measure, drawn on its own axis (the series dimension is then not split). */
  measure2?: Measure | null;
  /** Today in the reporting time zone: with it, points of a rate still maturing are marked (lib/report/metrics/maturity.ts). */
  today?: string;
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

/** Past this many days the x axis shows the periods that have rows only (the dashboard caps ranges well below). */
const MAX_FILLED_DAYS = 3700;

/** "2026-11-01 to 2026-11-23", or one date when the span is one day. */
export function spanText(from: string, to: string): string {
  return from === to ? from : `${from} to ${to}`;
}

/** How the comparison is named in a series name and the caption: "previous period", "same period last year", a range. */
export function comparisonName(compare: CompareSelection, range: DayRange): string {
  switch (compare.kind) {
    case "previous":
      return "previous period";
    case "year":
      return "same period last year";
    case "calendar":
      // "previous month", "previous 3 months": the caption adds the dates once.
      return periodsComparisonName(compare, range);
    default:
      return spanText(range.start, range.end);
  }
}

interface XCell {
  label: string;
  raw: Raw;
  period: Period | null;
  compared: DayRange | null;
  /** Sums per series name, current and compared. */
  cur: Map<string, Sums>;
  cmp: Map<string, Sums>;
}

const emptyCell = (label: string, raw: Raw, period: Period | null, compared: DayRange | null): XCell => ({ label, raw, period, compared, cur: new Map(), cmp: new Map() });

function addSums(into: Map<string, Sums>, name: string, record: ReportRecord, metrics: readonly string[]): Sums {
  let s = into.get(name);
  if (!s) into.set(name, (s = new Map()));
  return addInto(s, record, metrics);
}

function total(groups: Iterable<Sums>): Sums {
  const out: Sums = new Map();
  for (const s of groups) mergeSums(out, s);
  return out;
}

/** The chart of a report view (Explore's, or a shared report's), every point evaluated on sums. */
export function buildChartData(
  view: ReportView,
  plan: Extract<ChartPlan, { type: "line" | "bar" }>,
  measure: Measure,
  options: ChartOptions = {},
): ChartData {
  const topSeries = options.topSeries ?? 10;
  const maxCategories = options.maxCategories ?? 30;
  const measure2 = options.measure2 && options.measure2.id !== measure.id ? options.measure2 : null;
  const metrics = [...new Set([...measureMetrics(measure), ...(measure2 ? measureMetrics(measure2) : [])])];
  const { x } = plan;
  const byDate = x === "date" && view.groupBy.includes("date");
  // A second measure draws totals per x: splitting both by a dimension would be unreadable.
  const seriesDim = measure2 ? null : plan.series;
  const unsplitDimension = measure2 ? plan.series : null;
  const cmpSel = view.comparison;

  // Sums per (x, series value), current and compared.
  const cells = new Map<string, XCell>();
  const bySeries = new Map<string, Sums>();
  // Without a split the measure is the one series, whatever the rows.
  if (!seriesDim) bySeries.set(measure.label, new Map());
  const unaligned: string[] = [];
  for (const row of view.rows) {
    if (row.unaligned !== undefined) {
      unaligned.push(row.unaligned);
      continue;
    }
    let label: string;
    let raw: Raw;
    if (byDate && row.period) {
      label = row.period.label;
      raw = row.period.start;
    } else {
      raw = (row.record[x] ?? null) as Raw;
      label = formatDimensionValue(x, raw);
    }
    let cell = cells.get(label);
    if (!cell) cells.set(label, (cell = emptyCell(label, raw, byDate ? row.period : null, byDate ? (row.compared ?? null) : null)));
    const name = seriesDim ? formatDimensionValue(seriesDim, (row.record[seriesDim] ?? null) as Raw) : measure.label;
    // A row found only in the comparison draws no current series (with a split, only totals are compared).
    if (row.presence !== "comparison") {
      addSums(cell.cur, name, row.record, metrics);
      addSums(bySeries, name, row.record, metrics);
    }
    if (cmpSel && row.comparison) addSums(cell.cmp, name, row.comparison, metrics);
  }

  // Series: the largest `topSeries`, the rest as "Other" (only when there is more than one to fold).
  const seriesNames = rank([...bySeries.keys()], (k) => bySeries.get(k)!, measure, (k) => k);
  const keepSeries = seriesNames.length > topSeries ? seriesNames.slice(0, topSeries) : seriesNames;
  const foldedSeries = seriesNames.length - keepSeries.length;
  const additive = measure.denominator === null;
  const stacked = plan.type === "bar" && seriesDim !== null && additive;
  const base = { isOther: false, comparesTo: null, axis: "left", dashed: false, format: measure.format } as const;
  const series: ChartSeries[] = keepSeries.map((name, i) => ({ ...base, key: `s${i}`, name, role: "current", index: i, shape: plan.type }));
  if (foldedSeries > 0) series.push({ ...base, key: `s${keepSeries.length}`, name: OTHER, isOther: true, role: "current", index: keepSeries.length, shape: plan.type });
  const seriesKeyOf = new Map(keepSeries.map((n, i) => [n, `s${i}`] as const));
  const otherSeriesKey = foldedSeries > 0 ? `s${keepSeries.length}` : null;

  // The comparison: beside the one series, or beside the total of the split ones.
  const split = seriesDim !== null;
  let comparison: ChartData["comparison"] = null;
  if (cmpSel) {
    const name = comparisonName(cmpSel.compare, cmpSel.range);
    const coverage = comparisonCoverage(view);
    comparison = { kind: cmpSel.compare.kind, name, range: cmpSel.range, scope: split ? "total" : "single", ...(partlyCovered(coverage) ? { coverage } : {}) };
    // The total beside its comparison; stacked bars show it already as the stack's height.
    if (split && !stacked) series.push({ ...base, key: "T", name: TOTAL, role: "total", index: 0, shape: plan.type });
    series.push({
      ...base,
      key: split ? "cT" : "c0",
      name: `${split ? TOTAL : measure.label} (${name})`,
      role: "comparison",
      index: 0,
      comparesTo: split ? "T" : "s0",
      dashed: true,
      shape: plan.type,
    });
  }
  if (measure2) {
    series.push({ ...base, key: MEASURE2_KEY, name: measure2.label, role: "measure2", index: 0, axis: "right", shape: "line", format: measure2.format });
  }

  // Categories: dates fill the range with its periods; other dimensions keep their natural order, capped for bars.
  let xs = [...cells.values()].sort((a, b) => compareValues(a.raw, b.raw));
  let foldedCategories = 0;
  let otherX: XCell[] = [];
  if (byDate && dayCount(view.range) <= MAX_FILLED_DAYS) {
    const all = periodsIn(view.range, view.grain).map(
      (p) =>
        cells.get(p.label) ??
        emptyCell(p.label, p.start, p, cmpSel ? comparedSpan(p.from, p.to, view.range, cmpSel.compare, cmpSel.range, view.grain === "day") : null),
    );
    const inRange = new Set(all.map((c) => c.label));
    xs = [...all, ...xs.filter((c) => !inRange.has(c.label))]; // e.g. "(none)"; kept at the end
  } else if (plan.type === "bar" && xs.length > maxCategories) {
    const keep = new Set(rank(xs, (c) => total(c.cur.values()), measure, (c) => c.label).slice(0, maxCategories));
    otherX = xs.filter((c) => !keep.has(c));
    xs = xs.filter((c) => keep.has(c));
    foldedCategories = otherX.length;
  }

  const valueOf = (m: Measure, sums: Sums | undefined): number | null => {
    if (!sums) return m.denominator === null ? 0 : null;
    return evaluate(m, sums).value;
  };

  const maturity = measureMaturity(measure);
  const point = (label: string, group: XCell[]): ChartDatum => {
    const only = group.length === 1 ? group[0]! : null;
    const period = only?.period ?? null;
    const compared = only?.compared ?? null;
    // A point's days end on its period's last day, or the range's (a category, Other).
    const lastDay = period?.to ?? view.range.end;
    const maturingNow = options.today && maturity && isMaturing(maturity, lastDay, options.today) ? maturingNote(maturity, lastDay, options.today) : null;
    const datum: ChartDatum = {
      x: label,
      partial: period?.partial ?? false,
      span: period ? spanText(period.from, period.to) : null,
      compared: compared ? spanText(compared.start, compared.end) : null,
      maturing: maturingNow,
      comparedMaturing: cmpSel !== null && isMaturing(maturity, compared?.end ?? cmpSel.range.end, options.today),
    };
    // A point's compared days: its own when it is a period, else the whole comparison's.
    const coverage = cmpSel ? comparisonCoverage(view, compared ?? (period ? null : cmpSel.range)) : null;
    if (partlyCovered(coverage) && (compared || !period)) datum.comparedCoverage = coverage;
    const perKey = new Map<string, Sums>();
    for (const cell of group) {
      for (const [name, sums] of cell.cur) {
        const key = seriesKeyOf.get(name) ?? otherSeriesKey;
        if (key === null) continue;
        let acc = perKey.get(key);
        if (!acc) perKey.set(key, (acc = new Map()));
        mergeSums(acc, sums);
      }
    }
    for (const s of series) if (s.role === "current") datum[s.key] = valueOf(measure, perKey.get(s.key));
    const has = (m: Map<string, Sums>[]) => m.some((x) => x.size > 0);
    const curTotal = has(group.map((c) => c.cur)) ? total(group.flatMap((c) => [...c.cur.values()])) : undefined;
    if (comparison) {
      const cmpTotal = has(group.map((c) => c.cmp)) ? total(group.flatMap((c) => [...c.cmp.values()])) : undefined;
      if (split && !stacked) datum.T = valueOf(measure, curTotal);
      datum[split ? "cT" : "c0"] = valueOf(measure, cmpTotal);
    }
    if (measure2) datum[MEASURE2_KEY] = valueOf(measure2, curTotal);
    return datum;
  };

  const data = xs.map((c) => point(c.label, [c]));
  if (otherX.length > 0) data.push(point(OTHER, otherX));

  const partial = byDate
    ? xs.flatMap((c) => (c.period?.partial ? [{ label: c.label, from: c.period.from, to: c.period.to }] : []))
    : [];

  return {
    type: plan.type,
    x,
    xLabel: getDimension(x)?.label ?? x,
    grain: byDate ? view.grain : null,
    range: view.range,
    seriesDimension: seriesDim,
    unsplitDimension,
    series,
    data,
    stacked,
    measure: { id: measure.id, label: measure.label, format: measure.format, better: measure.better, numerator: measure.numerator, denominator: measure.denominator },
    measure2: measure2 ? { id: measure2.id, label: measure2.label, format: measure2.format, better: measure2.better } : null,
    comparison,
    partial,
    maturing: maturity && data.some((d) => d.maturing) ? { labels: data.flatMap((d) => (d.maturing ? [d.x] : [])), window: maturity.window } : null,
    unaligned: [...new Set(unaligned)].sort(),
    foldedCategories,
    foldedSeries,
  };
}

/** The text of an x tick: the label, with "*" after a partial period (the caption says what * means). */
export function tickText(chart: Pick<ChartData, "partial">, x: string): string {
  return chart.partial.some((p) => p.label === x) ? `${x}*` : x;
}
