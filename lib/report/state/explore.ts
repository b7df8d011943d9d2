/**
 * Explore's report state and its URL form. The URL is the source of truth: the page parses it, the
 * form edits a draft of it, and "Run report" writes it back. See docs/report-urls.md.
 *
 *   ?op=orders&range=last30&by=date,product_id&grain=month&cmp=prev&m=revenue,approvals&kpi=approval_rate
 *    &f.card_brand=MASTERCARD,VISA&f.product_id=903&sort=-revenue&table=pivot&pm=revenue&chart=bar&cm=revenue&cm2=approval_rate
 *
 * Parameters are always written in that order; view settings at their default are left out.
 */
import { LIMITS, OPERATIONS, dimensionsFor, metricsFor, type Operation } from "@/lib/contract/catalog";
import { comparedId, COMPARED_SUFFIXES } from "@/lib/report/metrics/compared";
import { buildQuery, decodeFilters, decodeList, encodeFilters, encodeList, encodeRange, toParams, type Parsed, type ParamsLike } from "./encoding";
import { normalizeFilters, type Filters } from "./filters";
import { RANGE_PRESETS, normalizeRange, resolveRange, type RangeSelection } from "./range";
import { checkFilters, checkRange, quote, unknownItems, unknownParams, type UrlProblem } from "./url-check";
import { isTimeGrain, TIME_GRAINS, type TimeGrain } from "@/lib/report/periods/grain";
import { getKpi, kpisFor, measureFor, requiredMetrics } from "@/lib/report/metrics/kpis";
import { comparisonProblem, comparisonRange, type CompareSelection } from "@/lib/report/periods/compare";
import { coverageRequest } from "@/lib/report/periods/coverage";
import { requestBase, type ReportRequestSpec } from "./request";

export const CHART_KINDS = ["auto", "line", "bar", "none"] as const;
export type ChartKind = (typeof CHART_KINDS)[number];
/** What the chart controls call each kind. */
export const CHART_LABELS: Record<ChartKind, string> = { auto: "Automatic", line: "Lines", bar: "Bars", none: "Off" };

/** How the results table lays the rows out: one row per record, or the last grouped dimension as columns. */
export const TABLE_LAYOUTS = ["rows", "pivot"] as const;
export type TableLayout = (typeof TABLE_LAYOUTS)[number];

/** A report's columns and grouping when the URL names none (a test checks them against the catalog). */
export const DEFAULTS: Record<Operation, { groupBy: readonly string[]; metrics: readonly string[]; kpis: readonly string[] }> = {
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

/** The defaults a picker's "reset" restores. */
export function defaultColumns(op: Operation): { metrics: string[]; kpis: string[] } {
  return { metrics: [...DEFAULTS[op].metrics], kpis: [...DEFAULTS[op].kpis] };
}

/** The results table's sort: a column key and a direction. */
export interface SortSpec {
  key: string;
  dir: "asc" | "desc";
}

/**
 * The sort a table is shown in: the user's, else by date when the rows are grouped by date (the
 * API orders by the group-by dimensions in the order given, which puts date second after a
 * product, say), else the API's order.
 */
export function effectiveSort(groupBy: readonly string[], sort: SortSpec | null): SortSpec | null {
  if (sort) return sort;
  return groupBy.includes("date") ? { key: "date", dir: "asc" } : null;
}

/**
 * The user's sort after the grouping changes from `before` to `after`: a measure's values mean
 * something else under another grouping, and a dimension no longer grouped by is gone, so only a
 * sort on a dimension still grouped by survives.
 */
export function sortAfterRegroup(sort: SortSpec | null, before: readonly string[], after: readonly string[]): SortSpec | null {
  if (!sort) return null;
  const same = before.length === after.length && before.every((d, i) => after[i] === d);
  if (same) return sort;
  return after.includes(sort.key) ? sort : null;
}

export interface ExploreState {
  op: Operation;
  range: RangeSelection;
  /** Ordered: the table's first columns, the API's sort order, the chart's axes. */
  groupBy: string[];
  /** The period `date` rows are rolled up to (only meaningful when grouped by date). */
  grain: TimeGrain;
  /** What every measure is set beside. */
  compare: CompareSelection;
  /** Catalog metrics shown as columns, in the order the user chose them. */
  metrics: string[];
  /** Derived KPIs shown as columns, in the order the user chose them. */
  kpis: string[];
  filters: Filters;
  sort: SortSpec | null;
  table: TableLayout;
  /** The metric or KPI a pivot shows; null: the first column shown. */
  pivotMeasure: string | null;
  chart: ChartKind;
  /** The metric or KPI the chart plots; null: the first column shown. */
  chartMeasure: string | null;
  /** A second measure, drawn on its own axis; null: none. */
  chartMeasure2: string | null;
}

export function defaultExploreState(op: Operation = "orders"): ExploreState {
  return {
    op,
    range: { preset: "last30" },
    groupBy: [...DEFAULTS[op].groupBy],
    grain: "day",
    compare: { kind: "none" },
    metrics: [...DEFAULTS[op].metrics],
    kpis: [...DEFAULTS[op].kpis],
    filters: {},
    sort: null,
    table: "rows",
    pivotMeasure: null,
    chart: "auto",
    chartMeasure: null,
    chartMeasure2: null,
  };
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
  const knownMetrics = new Set(metricsFor(op).map((m) => m.name));
  const knownKpis = new Set<string>(kpisFor(op).map((k) => k.id));
  // The order the user chose them in, duplicates and unknowns left out.
  const orderedColumns = (wantedMetrics: readonly string[], wantedKpis: readonly string[]) => ({
    metrics: [...new Set(wantedMetrics)].filter((m) => knownMetrics.has(m)),
    kpis: [...new Set(wantedKpis)].filter((k) => knownKpis.has(k)),
  });
  const chosen = orderedColumns(s.metrics, s.kpis);
  const columns = chosen.metrics.length + chosen.kpis.length > 0 ? chosen : orderedColumns(DEFAULTS[op].metrics, DEFAULTS[op].kpis);
  const range = normalizeRange(s.range, "last30");
  const shown = new Set<string>([...groupBy, ...columns.metrics, ...columns.kpis]);
  const compare = normalizeCompare(s.compare);
  // With a comparison, a measure's compared value, change and % change are columns too.
  if (compare.kind !== "none") for (const m of [...columns.metrics, ...columns.kpis]) for (const part of COMPARED_SUFFIXES) shown.add(comparedId(m, part));
  const sort = s.sort && shown.has(s.sort.key) && (s.sort.dir === "asc" || s.sort.dir === "desc") ? { key: s.sort.key, dir: s.sort.dir } : null;
  const chart: ChartKind = (CHART_KINDS as readonly string[]).includes(s.chart) ? s.chart : "auto";
  const isShown = (id: string | null): id is string => id !== null && (columns.metrics.includes(id) || columns.kpis.includes(id));
  const chartMeasure = isShown(s.chartMeasure) ? s.chartMeasure : null;
  const chartMeasure2 = isShown(s.chartMeasure2) && s.chartMeasure2 !== (chartMeasure ?? columns.metrics[0] ?? columns.kpis[0]) ? s.chartMeasure2 : null;
  const grain: TimeGrain = groupBy.includes("date") && isTimeGrain(s.grain) ? s.grain : "day";
  const table: TableLayout = (TABLE_LAYOUTS as readonly string[]).includes(s.table) && groupBy.length >= 2 ? s.table : "rows";
  return {
    op,
    range,
    groupBy,
    grain,
    compare,
    metrics: columns.metrics,
    kpis: columns.kpis,
    filters: normalizeFilters(op, s.filters),
    sort,
    table,
    pivotMeasure: table === "pivot" && isShown(s.pivotMeasure) ? s.pivotMeasure : null,
    chart,
    chartMeasure,
    chartMeasure2,
  };
}

function normalizeCompare(c: CompareSelection): CompareSelection {
  if (c.kind === "previous" || c.kind === "calendar" || c.kind === "year") return { kind: c.kind };
  if (c.kind === "custom") return { kind: "custom", start: c.start, end: c.end };
  return { kind: "none" };
}

// ---------------------------------------------------------------------------------------------
// URL form

/** `cmp=prev`, `cmp=prevcal`, `cmp=yoy` or `cmp=2025-10-01..2025-10-30`; absent: no comparison. */
export function encodeCompare(c: CompareSelection): string | null {
  switch (c.kind) {
    case "none":
      return null;
    case "previous":
      return "prev";
    case "calendar":
      return "prevcal";
    case "year":
      return "yoy";
    case "custom":
      return `${c.start}..${c.end}`;
  }
}

export function decodeCompare(raw: string): CompareSelection | null {
  if (raw === "prev") return { kind: "previous" };
  if (raw === "prevcal") return { kind: "calendar" };
  if (raw === "yoy") return { kind: "year" };
  const m = /^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$/.exec(raw);
  return m ? { kind: "custom", start: m[1]!, end: m[2]! } : null;
}

/** What a `cmp` value that is none of these is told to be. */
export const COMPARE_URL_VALUES = "prev, prevcal, yoy or YYYY-MM-DD..YYYY-MM-DD";

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
  if (s.grain !== "day") pairs.push(["grain", s.grain]);
  const cmp = encodeCompare(s.compare);
  if (cmp !== null) pairs.push(["cmp", cmp]);
  if (s.metrics.length > 0) pairs.push(["m", encodeList(s.metrics)]);
  if (s.kpis.length > 0) pairs.push(["kpi", encodeList(s.kpis)]);
  pairs.push(...encodeFilters(s.filters));
  if (s.sort) pairs.push(["sort", encodeSort(s.sort)]);
  if (s.table !== "rows") pairs.push(["table", s.table]);
  if (s.pivotMeasure) pairs.push(["pm", s.pivotMeasure]);
  if (s.chart !== "auto") pairs.push(["chart", s.chart]);
  if (s.chartMeasure) pairs.push(["cm", s.chartMeasure]);
  if (s.chartMeasure2) pairs.push(["cm2", s.chartMeasure2]);
  return buildQuery(pairs);
}

/** Only the parameters the form edits: its identity (view settings such as sort and chart left out). */
export function exploreQueryString(state: ExploreState): string {
  return serializeExplore({ ...state, sort: null, table: "rows", pivotMeasure: null, chart: "auto", chartMeasure: null, chartMeasure2: null });
}

const EXPLORE_PARAMS = ["op", "range", "by", "grain", "cmp", "m", "kpi", "sort", "table", "pm", "chart", "cm", "cm2"] as const;

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
  const grain = p.get("grain") ?? "day";
  if (!isTimeGrain(grain)) add({ param: "grain", message: `${quote(grain)} is not a time grain (${TIME_GRAINS.join(", ")}).` });
  else if (grain !== "day" && !groupBy.includes("date")) add({ param: "grain", message: `A ${grain} grain needs the report grouped by date.` });
  const cmpRaw = p.get("cmp");
  let compare: CompareSelection | null = cmpRaw === null ? { kind: "none" } : decodeCompare(cmpRaw);
  if (compare === null) add({ param: "cmp", message: `${quote(cmpRaw ?? "")} is not a comparison: use ${COMPARE_URL_VALUES}.` });
  else if (today !== undefined && checked.problem === null) {
    const problem = comparisonProblem(resolveRange(checked.range, today), compare);
    // The nearest valid report compares with nothing rather than with what was refused.
    if (problem) {
      add({ param: "cmp", message: problem });
      compare = null;
    }
  }
  const table = p.get("table") ?? "rows";
  if (!(TABLE_LAYOUTS as readonly string[]).includes(table)) add({ param: "table", message: `${quote(table)} is not a table layout (${TABLE_LAYOUTS.join(", ")}).` });
  else if (table === "pivot" && new Set(groupBy).size < 2) add({ param: "table", message: "A pivot needs two grouped dimensions: the last one becomes the columns." });

  const state = normalizeExplore({
    op,
    range: checked.range,
    groupBy,
    grain: isTimeGrain(grain) ? grain : "day",
    compare: compare ?? { kind: "none" },
    metrics,
    kpis,
    filters: filters.filters,
    sort: decodeSort(p.get("sort")),
    table: table as TableLayout,
    pivotMeasure: p.get("pm"),
    chart: chart as ChartKind,
    chartMeasure: p.get("cm"),
    chartMeasure2: p.get("cm2"),
  });
  // Sort and chart measure must name a column the report shows.
  const sortRaw = p.get("sort");
  if (sortRaw !== null && state.sort === null) add({ param: "sort", message: `${quote(sortRaw)} is not a column of this report.` });
  const cm = p.get("cm");
  if (cm !== null && state.chartMeasure === null) add({ param: "cm", message: `${quote(cm)} is not a column of this report, so it cannot be charted.` });
  const cm2 = p.get("cm2");
  if (cm2 !== null && state.chartMeasure2 === null) add({ param: "cm2", message: `${quote(cm2)} is not another column of this report, so it cannot be charted beside the first.` });
  const pm = p.get("pm");
  if (pm !== null && state.pivotMeasure === null) add({ param: "pm", message: `${quote(pm)} is not a column of this pivot.` });
  return { state, hasReport: true, problems };
}

/** The measure the chart plots (falls back to the first metric or KPI shown). */
export function chartMeasureId(s: ExploreState): string | null {
  const id = s.chartMeasure ?? s.metrics[0] ?? s.kpis[0] ?? null;
  return id !== null && measureFor(id, s.op) ? id : null;
}

// Cohorts' request asks for a fixed set of metrics and needs neither the KPI registry nor the
// metrics' catalog: it has a module of its own, which its page loads.

function inCatalogOrder(op: Operation, names: Iterable<string>): string[] {
  const wanted = new Set(names);
  return metricsFor(op)
    .map((m) => m.name)
    .filter((m) => wanted.has(m));
}

/** The metrics Explore fetches: those shown, plus whatever the shown KPIs are computed from. */
export function exploreMetrics(state: Pick<ExploreState, "op" | "metrics" | "kpis">): string[] {
  const needed = new Set(state.metrics);
  for (const id of state.kpis) {
    const kpi = getKpi(id);
    if (kpi) for (const m of requiredMetrics(kpi, state.op)) needed.add(m);
  }
  return inCatalogOrder(state.op, needed);
}

/**
 * The same request over the comparison's days, or null without a comparison. A coarser grain needs
 * no request of its own: both are daily answers, rolled up in the browser.
 */
export function comparisonRequest(state: ExploreState, today: string): ReportRequestSpec | null {
  const main = exploreRequest(state, today);
  const cmp = comparisonRange({ start: main.request.start_date, end: main.request.end_date }, state.compare);
  return cmp ? { op: main.op, request: { ...main.request, start_date: cmp.start, end_date: cmp.end } } : null;
}

export function exploreRequest(state: ExploreState, today: string): ReportRequestSpec {
  return {
    op: state.op,
    request: {
      ...requestBase(state.range, today, state.filters),
      group_by: [...state.groupBy],
      metrics: exploreMetrics(state),
    },
  };
}

/**
 * What Explore shows and runs for one URL: the page's server render computes it for the URL it opens
 * with, the browser for every URL after.
 */
export interface ExploreLook {
  state: ExploreState;
  hasReport: boolean;
  problems: UrlProblem[];
  /** The report to run and the one it is compared with; null while the URL names none, or asks for what the page cannot apply. */
  spec: ReportRequestSpec | null;
  comparison: ReportRequestSpec | null;
  /** The compared days' attempts by date, when the comparison's answer cannot say which hold data (lib/report/periods/coverage.ts). */
  coverage: ReportRequestSpec | null;
  /** The form's parameters of `state` (exploreQueryString): the form's draft follows them. */
  key: string;
}

export function exploreLook(search: ParamsLike | string, today: string): ExploreLook {
  const { state, hasReport, problems } = parseExplore(search, today);
  // A link with anything the page cannot apply runs nothing (the problems are shown instead).
  const runs = hasReport && problems.length === 0;
  const comparison = runs ? comparisonRequest(state, today) : null;
  const coverage = comparison ? coverageRequest(comparison.op, comparison.request) : null;
  return {
    state,
    hasReport,
    problems,
    spec: runs ? exploreRequest(state, today) : null,
    comparison,
    coverage: comparison && coverage ? { op: comparison.op, request: coverage } : null,
    key: exploreQueryString(state),
  };
}
