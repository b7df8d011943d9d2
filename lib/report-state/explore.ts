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
import { buildQuery, decodeList, encodeList, toParams, type ParamsLike } from "./encoding";
import { normalizeFilters, type FilterValue, type Filters } from "./filters";
import { isRangePreset, isValidCustomRange, normalizeRange, type RangeSelection } from "./range";

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

export const FILTER_PREFIX = "f.";

export function encodeRange(r: RangeSelection): string {
  return "preset" in r ? r.preset : `${r.start}..${r.end}`;
}

export function decodeRange(s: string | null): RangeSelection | null {
  if (s === null) return null;
  if (isRangePreset(s)) return { preset: s };
  const m = /^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$/.exec(s);
  if (m && isValidCustomRange(m[1]!, m[2]!)) return { start: m[1]!, end: m[2]! };
  return null;
}

export function encodeFilters(filters: Filters): [string, string][] {
  return Object.entries(filters).map(([k, v]) => [`${FILTER_PREFIX}${k}`, encodeList(v)]);
}

export function decodeFilters(p: ParamsLike): Record<string, FilterValue[]> {
  const out: Record<string, FilterValue[]> = {};
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
  state: S;
  /** False when the URL names no report (first visit): show the form, run nothing. */
  hasReport: boolean;
}

/**
 * The state a URL describes. Never throws: whatever is unknown or malformed is dropped (and the
 * defaults fill in), so an edited or outdated link still opens a sensible report.
 */
export function parseExplore(input: ParamsLike | string): Parsed<ExploreState> {
  const p = toParams(input);
  const opRaw = p.get("op");
  const op: Operation = opRaw === "cohort" ? "cohort" : "orders";
  // A link names a report by its range; a malformed range still opens the rest of the report.
  const rawRange = p.get("range");
  const base = defaultExploreState(op);
  if (rawRange === null) return { state: base, hasReport: false };
  const state = normalizeExplore({
    op,
    range: decodeRange(rawRange) ?? base.range,
    groupBy: decodeList(p.get("by")),
    metrics: decodeList(p.get("m")),
    kpis: decodeList(p.get("kpi")),
    filters: decodeFilters(p),
    sort: decodeSort(p.get("sort")),
    chart: (p.get("chart") ?? "auto") as ChartKind,
    chartMeasure: p.get("cm"),
  });
  return { state, hasReport: true };
}

/** The measure the chart plots (falls back to the first metric or KPI shown). */
export function chartMeasureId(s: ExploreState): string | null {
  const id = s.chartMeasure ?? s.metrics[0] ?? s.kpis[0] ?? null;
  return id !== null && measureFor(id, s.op) ? id : null;
}
