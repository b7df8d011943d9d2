/**
 * Explore's report state and its URL form. The URL is the source of truth: the page parses it, the
 * form edits a draft of it, and "Run report" writes it back. See docs/report-urls.md.
 *
 *   ?op=orders&range=last30&by=date,product_id&m=approvals,revenue&kpi=approval_rate
 *    &f.card_brand=MASTERCARD,VISA&f.product_id=903&sort=-revenue&chart=bar&cm=revenue
 *
 * Parameters are always written in that order; view settings at their default are left out.
 */
import { LIMITS, OPERATIONS, dimensionsFor, metricsFor, type Operation } from "@/lib/contract/catalog";
import { kpisFor, measureFor } from "@/lib/metrics/kpis";
import type { SortSpec } from "@/lib/metrics/table";
import { FILTER_PREFIX, buildQuery, decodeList, encodeList, toParams, type ParamsLike } from "./encoding";
import { normalizeFilters, type Filters } from "./filters";
import { RANGE_PRESETS, normalizeRange, type RangeSelection } from "./range";
import { checkFilters, checkRange, quote, unknownItems, unknownParams, type UrlProblem } from "./url-check";

export const CHART_KINDS = ["auto", "line", "bar", "none"] as const;
export type ChartKind = (typeof CHART_KINDS)[number];

export interface ExploreState {
  op: Operation;
  range: RangeSelection;
  /** Ordered: the table's first columns, the API's sort order, the chart's axes. */
  groupBy: string[];
  /** Catalog metrics shown as columns, in catalog order. */
  metrics: string[];
  /** Derived KPIs shown as columns, in registry order. */
  kpis: string[];
  filters: Filters;
  sort: SortSpec | null;
  chart: ChartKind;
  /** The metric or KPI the chart plots; null: the first column shown. */
  chartMeasure: string | null;
}

const DEFAULTS: Record<Operation, Pick<ExploreState, "groupBy" | "metrics" | "kpis">> = {
  orders: {
    groupBy: ["date"],
    metrics: ["attempts", "approvals", "revenue", "cb_count", "cb_amount", "refund_count", "refund_amount"],
    kpis: ["approval_rate", "cb_rate_count", "refund_rate", "net_revenue"],
  },
  cohort: {
    groupBy: ["date"],
    metrics: ["attempts_by_initial_date", "approvals_by_initial_date", "revenue_by_initial_date", "cpa"],
    kpis: ["approval_rate", "net_revenue_per_customer"],
  },
};

export function defaultExploreState(op: Operation = "orders"): ExploreState {
  return {
    op,
    range: { preset: "last30" },
    groupBy: [...DEFAULTS[op].groupBy],
    metrics: [...DEFAULTS[op].metrics],
    kpis: [...DEFAULTS[op].kpis],
    filters: {},
    sort: null,
    chart: "auto",
    chartMeasure: null,
  };
}

/** The defaults a picker's "reset" restores. */
export function defaultColumns(op: Operation): { metrics: string[]; kpis: string[] } {
  return { metrics: [...DEFAULTS[op].metrics], kpis: [...DEFAULTS[op].kpis] };
}

export function visibleMeasures(s: Pick<ExploreState, "metrics" | "kpis">): string[] {
  return [...s.metrics, ...s.kpis];
}

/**
 * The canonical form of a state: everything checked against the catalog for its operation, lists
 * de-duplicated and ordered, sort and chart measure pointing at shown columns. Idempotent.
 */
export function normalizeExplore(s: ExploreState): ExploreState {
  const op: Operation = (OPERATIONS as readonly string[]).includes(s.op) ? s.op : "orders";
  const dims = new Set(dimensionsFor(op).map((d) => d.name));
  const groupBy = [...new Set(s.groupBy)].filter((d) => dims.has(d)).slice(0, LIMITS.maxGroupBy);
  const orderedColumns = (wantedMetrics: readonly string[], wantedKpis: readonly string[]) => {
    const ms = new Set(wantedMetrics);
    const ks = new Set(wantedKpis);
    return {
      metrics: metricsFor(op)
        .map((m) => m.name)
        .filter((m) => ms.has(m)),
      kpis: kpisFor(op)
        .map((k) => k.id)
        .filter((k) => ks.has(k)),
    };
  };
  const chosen = orderedColumns(s.metrics, s.kpis);
  const columns = chosen.metrics.length + chosen.kpis.length > 0 ? chosen : orderedColumns(DEFAULTS[op].metrics, DEFAULTS[op].kpis);
  const range = normalizeRange(s.range, "last30");
  const shown = new Set<string>([...groupBy, ...columns.metrics, ...columns.kpis]);
  const sort = s.sort && shown.has(s.sort.key) && (s.sort.dir === "asc" || s.sort.dir === "desc") ? { key: s.sort.key, dir: s.sort.dir } : null;
  const chart: ChartKind = (CHART_KINDS as readonly string[]).includes(s.chart) ? s.chart : "auto";
  const chartMeasure =
    s.chartMeasure !== null && (columns.metrics.includes(s.chartMeasure) || columns.kpis.includes(s.chartMeasure)) ? s.chartMeasure : null;
  return {
    op,
    range,
    groupBy,
    metrics: columns.metrics,
    kpis: columns.kpis,
    filters: normalizeFilters(op, s.filters),
    sort,
    chart,
    chartMeasure,
  };
}

// ---------------------------------------------------------------------------------------------
// URL form

export function encodeRange(r: RangeSelection): string {
  return "preset" in r ? r.preset : `${r.start}..${r.end}`;
}

export function encodeFilters(filters: Filters): [string, string][] {
  return Object.entries(filters).map(([k, v]) => [`${FILTER_PREFIX}${k}`, encodeList(v)]);
}

export function decodeFilters(p: ParamsLike): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const key of new Set(p.keys())) {
    if (key.startsWith(FILTER_PREFIX)) out[key.slice(FILTER_PREFIX.length)] = decodeList(p.get(key));
  }
  return out;
}

function encodeSort(s: SortSpec): string {
  return s.dir === "desc" ? `-${s.key}` : s.key;
}

function decodeSort(s: string | null): SortSpec | null {
  if (!s) return null;
  return s.startsWith("-") ? { key: s.slice(1), dir: "desc" } : { key: s, dir: "asc" };
}

/** The query string (without `?`) of a state; equal states give equal strings. */
export function serializeExplore(state: ExploreState): string {
  const s = normalizeExplore(state);
  const pairs: [string, string][] = [
    ["op", s.op],
    ["range", encodeRange(s.range)],
  ];
  if (s.groupBy.length > 0) pairs.push(["by", encodeList(s.groupBy)]);
  if (s.metrics.length > 0) pairs.push(["m", encodeList(s.metrics)]);
  if (s.kpis.length > 0) pairs.push(["kpi", encodeList(s.kpis)]);
  pairs.push(...encodeFilters(s.filters));
  if (s.sort) pairs.push(["sort", encodeSort(s.sort)]);
  if (s.chart !== "auto") pairs.push(["chart", s.chart]);
  if (s.chartMeasure) pairs.push(["cm", s.chartMeasure]);
  return buildQuery(pairs);
}

/** Only the parameters that change the request: the form's identity and the data's cache key. */
export function exploreQueryString(state: ExploreState): string {
  return serializeExplore({ ...state, sort: null, chart: "auto", chartMeasure: null });
}

export interface Parsed<S> {
  /** The report the URL asks for or, when it has problems, the nearest valid one. */
  state: S;
  /** False when the URL names no report (first visit): show the form, run nothing. */
  hasReport: boolean;
  /** What the URL asks for that the page cannot apply; when any, the page runs nothing. */
  problems: UrlProblem[];
}

const EXPLORE_PARAMS = ["op", "range", "by", "m", "kpi", "sort", "chart", "cm"] as const;

/**
 * The report a URL describes, checked against the catalog: anything unknown, malformed, outside its
 * enumeration or over a limit is a problem (and is left out of `state`, which is then the nearest
 * valid report). `today` (in the reporting time zone) also refuses ranges that end in the future.
 * Never throws.
 */
export function parseExplore(input: ParamsLike | string, today?: string): Parsed<ExploreState> {
  const p = toParams(input);
  const opRaw = p.get("op");
  const op: Operation = opRaw === "cohort" ? "cohort" : "orders";
  const rawRange = p.get("range");
  const base = defaultExploreState(op);
  if (rawRange === null) return { state: base, hasReport: false, problems: [] };

  const problems: UrlProblem[] = unknownParams(p.keys(), EXPLORE_PARAMS);
  const add = (x: UrlProblem | null) => {
    if (x) problems.push(x);
  };
  if (opRaw !== null && !(OPERATIONS as readonly string[]).includes(opRaw)) {
    add({ param: "op", message: `${quote(opRaw)} is not a report; use ${OPERATIONS.join(" or ")}.` });
  }
  const checked = checkRange(rawRange, "last30", RANGE_PRESETS.map((r) => r.id), today);
  add(checked.problem);

  const groupBy = decodeList(p.get("by"));
  add(unknownItems("by", groupBy, new Set(dimensionsFor(op).map((d) => d.name)), `a dimension of the ${op === "orders" ? "order" : "cohort"} summary`));
  if (new Set(groupBy).size > LIMITS.maxGroupBy) add({ param: "by", message: `At most ${LIMITS.maxGroupBy} group-by dimensions.` });
  const metrics = decodeList(p.get("m"));
  add(unknownItems("m", metrics, new Set(metricsFor(op).map((m) => m.name)), `a metric of the ${op === "orders" ? "order" : "cohort"} summary`));
  const kpis = decodeList(p.get("kpi"));
  add(unknownItems("kpi", kpis, new Set(kpisFor(op).map((k) => k.id)), "a KPI of this report"));
  const filters = checkFilters(op, decodeFilters(p));
  problems.push(...filters.problems);
  const chart = p.get("chart") ?? "auto";
  if (!(CHART_KINDS as readonly string[]).includes(chart)) add({ param: "chart", message: `${quote(chart)} is not a chart type (${CHART_KINDS.join(", ")}).` });

  const state = normalizeExplore({
    op,
    range: checked.range,
    groupBy,
    metrics,
    kpis,
    filters: filters.filters,
    sort: decodeSort(p.get("sort")),
    chart: chart as ChartKind,
    chartMeasure: p.get("cm"),
  });
  // Sort and chart measure must name a column the report shows.
  const sortRaw = p.get("sort");
  if (sortRaw !== null && state.sort === null) add({ param: "sort", message: `${quote(sortRaw)} is not a column of this report.` });
  const cm = p.get("cm");
  if (cm !== null && state.chartMeasure === null) add({ param: "cm", message: `${quote(cm)} is not a column of this report, so it cannot be charted.` });
  return { state, hasReport: true, problems };
}

/** The measure the chart plots (falls back to the first metric or KPI shown). */
export function chartMeasureId(s: ExploreState): string | null {
  const id = s.chartMeasure ?? s.metrics[0] ?? s.kpis[0] ?? null;
  return id !== null && measureFor(id, s.op) ? id : null;
}
