/**
 * Planning a dashboard's reports: the fewest upstream queries whose answers give every tile exactly.
 *
 * A dashboard asks for many small reports over the same days (a KPI, its trend, a breakdown, the
 * same again for the comparison period). Each report costs upstream calls (one per page per
 * ≤ 101-day piece, see lib/core/upstream/range-pieces.ts) under a shared quota, while a slightly finer answer
 * usually costs the same one page and can be re-aggregated into all of them (lib/core/upstream/derive.ts).
 * This module decides, before anything is fetched, which queries to send and which tile is computed
 * from which answer. It is pure and browser-safe, so the page can plan and the gateway can check.
 */
import {
  DIMENSIONS,
  LIMITS,
  OPERATIONS,
  dimensionsFor,
  type DimensionDef,
  getDimension,
  metricsFor,
  type Operation,
} from "@/lib/contract/catalog";
import { addDays, daysBetween, isCalendarDate } from "@/lib/contract/dates";
import type { FilterScalar } from "@/lib/contract/requests";
import { canDerive } from "@/lib/core/upstream/derive";
import { rangePieces } from "@/lib/core/upstream/range-pieces";
import { canonicalQuery, effectiveGroupBy, queryKey, type ReportQuery } from "@/lib/core/upstream/records";

export interface PlanRequest {
  /** The caller's label for the tile, e.g. "t2:main", "t2:compare"; unique within one plan. */
  key: string;
  op: Operation;
  query: ReportQuery;
}

export interface PlannedQuery {
  op: Operation;
  /** Canonical (canonicalQuery) and, unless `problem` is set, valid for the contract. */
  query: ReportQuery;
  /** Rows of the whole range, per the cardinality model. */
  estimatedRows: number;
  /** Upstream calls: one per page of every piece, at least one per piece. */
  estimatedCalls: number;
  /** How many date-range pieces the fetcher splits the range into. */
  pieces: number;
  /** The most pages any one piece is estimated to take. */
  maxPiecePages: number;
  /** Request keys computed from this answer, in input order. */
  serves: string[];
  /**
   * Why the request this query stands for is not a valid report request. Such a request is sent on
   * its own, unmerged, so that its tile shows the gateway's own error rather than sharing it.
   */
  problem?: string;
}

export interface Plan {
  queries: PlannedQuery[];
  /** Request key → index in `queries` of the answer its tile is derived from. */
  sourceOf: Record<string, number>;
  /**
   * Request key → the request as the gateway reads it (enumerated filter values in their catalog
   * spelling, canonical order). Derive each tile from its source with this rather than the caller's
   * spelling: derive() compares filter values exactly, so "visa" would select nothing from "VISA".
   */
  canonical: Record<string, ReportQuery>;
  /** Calls if every request were sent as its own query (duplicates included). */
  naiveCalls: number;
}

export interface PlanOptions {
  /**
   * The gateway's page cap. The fetcher refuses a report once the calls it has spent plus the least
   * it still needs exceed this (lib/core/upstream/fetcher.ts), so it bounds a report's total calls, not
   * only one piece's pages; a merged query is kept within it on both counts.
   */
  pageCap: number;
  /** Records per call; the fetcher always asks for LIMITS.maxPageSize. */
  pageSize?: number;
  /** Longest range of one call, as FetchConfig.maxPieceDays: a piece covers up to this + 1 days. */
  maxPieceDays?: number;
  /** Distinct values the server has seen of a dimension; overrides the defaults below. */
  cardinality?: (dimension: string) => number | undefined;
  /**
   * The day the answers run up to. A cohort's initial date can only hold the billing cycles that have
   * come round since it (cohortCycles); without it, every initial date is counted with them all.
   */
  today?: string;
}

type Filters = Record<string, FilterScalar | FilterScalar[]>;

const asList = (v: FilterScalar | FilterScalar[]): FilterScalar[] => (Array.isArray(v) ? v : [v]);
const filtersOf = (q: ReportQuery): Filters => (q.filters ?? {}) as Filters;

// ---------------------------------------------------------------------------------------------
// Cardinality model

/**
 * Distinct values of each dimension over a typical quarter of a mid-size subscription merchant,
 * used until the server has seen the real ones. They err high: overestimating only costs a merge
 * that would have been free, underestimating can push a merged query past the page cap.
 */
const DEFAULT_CARDINALITY: Readonly<Record<string, number>> = {
  // The merchant's own set-up: tens of campaigns and SKUs (5 lines × 5 SKUs in the demo data),
  // a couple of dozen MIDs across a handful of acquirers.
  campaign_id: 50,
  campaign_name: 50,
  campaign_type: 4,
  product_id: 30,
  product_name: 30,
  product_group: 8,
  gateway_id: 20,
  gateway_alias: 20,
  acquirer: 10,
  mcc: 4,
  // Traffic: tens of affiliates, each sending from several sources.
  affid: 50,
  sub_affid: 500,
  // Cards: a quarter's BINs run to a couple of thousand (the demo's table has 2,000, and a 101-day
  // piece of its data sees nearly all of them), their issuers to hundreds. Brand and type count a
  // null for BINs the BIN table does not know. Once answers have shown the real count, the
  // dashboard plans with that instead (lib/features/dashboards/run.ts).
  bin: 2000,
  bank: 500,
  card_brand: 5,
  card_type: 4,
  // Sale classification. refund_type and alert_type are null outside their metrics, hence + 1.
  sales_type: 3,
  refund_type: 3,
  alert_type: 4,
  // A year of monthly rebills; retries rarely go past a few attempts.
  billing_cycle: 12,
  attempt_col: 5,
  price_point: 20,
};

/** For a dimension the table above does not know (one added to the catalog later). */
const UNKNOWN_DIMENSION_CARDINALITY = 100;

/**
 * No grouping can have more rows in a day than the day has facts (attempts and their chargebacks,
 * refunds and alerts). The demo data's finest grain has about 20,000 rows a day (docs/benchmarks.md,
 * case c); this keeps products like bin × sub_affid from predicting millions of rows a day.
 */
const MAX_ROWS_PER_DAY = 25_000;

/**
 * Dimensions the service joins from one table keyed by an id (service/data/schema.ts: gateways,
 * products, campaigns, bins), so that grouping by the id as well adds no rows. Names are one per id;
 * attributes are coarser (many gateways per acquirer).
 */
const FAMILIES: readonly { key: string; names: readonly string[]; attributes: readonly string[] }[] = [
  { key: "gateway_id", names: ["gateway_alias"], attributes: ["acquirer", "mcc"] },
  { key: "product_id", names: ["product_name"], attributes: ["product_group"] },
  { key: "campaign_id", names: ["campaign_name"], attributes: ["campaign_type"] },
  { key: "bin", names: [], attributes: ["bank", "card_brand", "card_type"] },
];

/**
 * Days from the initial order to the first rebill at the soonest (a trial's shortest, SPEC.md §5:
 * "trial then monthly rebills"), and between later rebills at the soonest (the shortest month).
 */
const FIRST_REBILL_MIN_DAYS = 14;
const REBILL_MIN_DAYS = 28;

/**
 * The most billing cycles a customer who started `age` days before today can have reached, the
 * initial order (cycle 0) included. A cohort answer by initial date and billing cycle holds one
 * record per cycle reached: a day three months old holds about four, not the year's twelve the
 * cardinality model counts, and a quarter's cohort then costs one page where twelve a day said two.
 * It errs high (the soonest each rebill can come), so it never plans fewer pages than are made.
 */
export function cohortCycles(age: number): number {
  if (age < FIRST_REBILL_MIN_DAYS) return 1;
  return 2 + Math.floor((age - FIRST_REBILL_MIN_DAYS) / REBILL_MIN_DAYS);
}

/** Records of `query`'s whole range, per the cardinality model. */
export function estimateRows(op: Operation, query: ReportQuery, cardinality?: PlanOptions["cardinality"], today?: string): number {
  if (!isCalendarDate(query.start_date) || !isCalendarDate(query.end_date)) return 0;
  const days = daysBetween(query.start_date, query.end_date) + 1;
  if (days <= 0) return 0;
  const filters = filtersOf(query);
  const base = (d: string): number => {
    if (d === "date") return days;
    const observed = cardinality?.(d);
    if (observed !== undefined && Number.isFinite(observed) && observed >= 0) return observed;
    return DEFAULT_CARDINALITY[d] ?? UNKNOWN_DIMENSION_CARDINALITY;
  };
  // A filter can only leave as many values as it names (a date filter also leaves fewer days).
  const card = (d: string): number => {
    const f = filters[d];
    return f === undefined ? base(d) : Math.min(base(d), asList(f).length);
  };

  const grouped = new Set(effectiveGroupBy(op, query));
  const counted = new Set<string>(["date"]);
  let combos = 1;
  for (const { key, names, attributes } of FAMILIES) {
    const groupedNames = names.filter((n) => grouped.has(n));
    const groupedAttributes = attributes.filter((a) => grouped.has(a));
    for (const d of [key, ...names, ...attributes]) counted.add(d);
    if (grouped.has(key)) {
      // One name per id: a filtered name caps the ids as its own filter would.
      combos *= Math.min(card(key), ...groupedNames.map(card));
    } else if (groupedNames.length > 0) {
      combos *= Math.min(...groupedNames.map(card));
    } else if (groupedAttributes.length > 0) {
      combos *= Math.min(
        groupedAttributes.reduce((n, a) => n * card(a), 1),
        base(key),
      );
    }
  }
  // A cohort's billing cycles are counted per initial date, by how many can have come round since.
  const maturing = op === "cohort" && grouped.has("billing_cycle") && today !== undefined && isCalendarDate(today);
  if (maturing) counted.add("billing_cycle");
  for (const d of grouped) if (!counted.has(d)) combos *= card(d);

  const activeDays = card("date");
  if (maturing) {
    const cycles = (day: string) => Math.min(card("billing_cycle"), cohortCycles(Math.max(0, daysBetween(day, today))));
    if (!grouped.has("date")) return Math.min(combos * cycles(query.start_date), MAX_ROWS_PER_DAY * activeDays);
    // Each initial date on its own, as many as a date filter leaves (the oldest first: they hold the most).
    let rows = 0;
    for (let i = 0; i < activeDays; i++) rows += Math.min(combos * cycles(addDays(query.start_date, i)), MAX_ROWS_PER_DAY);
    return rows;
  }
  return grouped.has("date")
    ? activeDays * Math.min(combos, MAX_ROWS_PER_DAY)
    : Math.min(combos, MAX_ROWS_PER_DAY * activeDays);
}

// ---------------------------------------------------------------------------------------------
// Calls

interface Cost {
  rows: number;
  calls: number;
  pieces: number;
  maxPiecePages: number;
}

function costOf(op: Operation, query: ReportQuery, opts: Required<Omit<PlanOptions, "cardinality" | "today">> & PlanOptions): Cost {
  const parts = rangePieces(query, opts.maxPieceDays);
  let calls = 0;
  let maxPiecePages = 0;
  // Each piece is paged on its own, so a short last piece is cheaper than an even share would say.
  for (const p of parts) {
    const pages = Math.max(1, Math.ceil(estimateRows(op, { ...query, ...p }, opts.cardinality, opts.today) / opts.pageSize));
    calls += pages;
    maxPiecePages = Math.max(maxPiecePages, pages);
  }
  return { rows: estimateRows(op, query, opts.cardinality, opts.today), calls, pieces: parts.length, maxPiecePages };
}

// ---------------------------------------------------------------------------------------------
// The contract, checked without zod

/** Lower-cased spelling → catalog spelling, per enumerated dimension. */
const enumerated = new Map<string, Map<string, string>>(
  (DIMENSIONS as readonly DimensionDef[]).flatMap((d) => (d.values ? [[d.name, new Map(d.values.map((v) => [v.toLowerCase(), v]))]] : [])),
);

/**
 * Why `q` would not pass the gateway's query schema (OPERATION_SCHEMAS[op].query), or null. Kept
 * free of zod so that planning in the browser does not load the schemas; the tests hold it to them.
 * Like the schema, it takes enumerated values in any case.
 */
export function contractProblem(op: Operation, q: ReportQuery): string | null {
  if (!(OPERATIONS as readonly string[]).includes(op)) return `unknown operation "${String(op)}"`;
  if (!isCalendarDate(q.start_date) || !isCalendarDate(q.end_date)) return "start_date and end_date must be dates YYYY-MM-DD";
  const span = daysBetween(q.start_date, q.end_date);
  if (span < 0) return "end_date must not be before start_date";
  if (span > LIMITS.maxDashboardRangeDays) return `the range must be at most ${LIMITS.maxDashboardRangeDays} days`;
  const dims = new Set(dimensionsFor(op).map((d) => d.name));
  if (q.group_by !== undefined) {
    if (q.group_by.length > LIMITS.maxGroupBy) return `group_by takes at most ${LIMITS.maxGroupBy} dimensions`;
    if (new Set(q.group_by).size !== q.group_by.length) return "group_by repeats a dimension";
    const unknown = q.group_by.find((d) => !dims.has(d));
    if (unknown !== undefined) return `unknown dimension "${unknown}"`;
  }
  if (q.metrics !== undefined) {
    const known = new Set(metricsFor(op).map((m) => m.name));
    if (q.metrics.length === 0) return "metrics must name at least one metric";
    if (new Set(q.metrics).size !== q.metrics.length) return "metrics repeats a metric";
    const unknown = q.metrics.find((m) => !known.has(m));
    if (unknown !== undefined) return `unknown metric "${unknown}"`;
  }
  for (const [d, v] of Object.entries(filtersOf(q))) {
    const def = getDimension(d);
    if (!def || !dims.has(d)) return `unknown filter dimension "${d}"`;
    const list = asList(v);
    if (list.length < 1 || list.length > LIMITS.maxFilterValues) return `${d} filter takes 1 to ${LIMITS.maxFilterValues} values`;
    for (const x of list) {
      if (x === null) continue;
      const ok =
        def.type === "date"
          ? typeof x === "string" && isCalendarDate(x)
          : def.type === "integer"
            ? Number.isInteger(x)
            : def.type === "decimal"
              ? typeof x === "number" && Number.isFinite(x)
              : typeof x === "string" &&
                (def.values ? enumerated.get(d)?.has(x.toLowerCase()) === true : x.length >= 1 && x.length <= LIMITS.maxStringFilterLength);
      if (!ok) return `invalid ${d} filter value ${JSON.stringify(x)}`;
    }
  }
  return null;
}

/**
 * The request as the gateway will read it: its schema spells enumerated values as the catalog does
 * ("visa" → "VISA"), and two tiles that differ only in that must share one answer.
 */
export function normalizeQuery(op: Operation, q: ReportQuery): ReportQuery {
  let filters: Filters | undefined;
  if (q.filters) {
    filters = {};
    for (const [d, v] of Object.entries(q.filters as Partial<Filters>)) {
      if (v === undefined) continue;
      const spell = enumerated.get(d);
      const fix = (x: FilterScalar) => (spell && typeof x === "string" ? (spell.get(x.toLowerCase()) ?? x) : x);
      filters[d] = Array.isArray(v) ? v.map(fix) : fix(v);
    }
  }
  return canonicalQuery(op, { start_date: q.start_date, end_date: q.end_date, group_by: q.group_by, metrics: q.metrics, filters: filters as ReportQuery["filters"] });
}

// ---------------------------------------------------------------------------------------------
// Merging

/**
 * One query both answers can be derived from, or null when none fits the contract. Grouping by a
 * dimension is what makes a filter on it (or its absence) recoverable afterwards, hence every
 * filter the two do not share becomes a grouped dimension.
 */
export function mergeQueries(op: Operation, a: ReportQuery, b: ReportQuery): ReportQuery | null {
  const extra: string[] = [];
  if (a.start_date !== b.start_date || a.end_date !== b.end_date) extra.push("date");
  const fa = filtersOf(a);
  const fb = filtersOf(b);
  const filters: Filters = {};
  for (const d of [...new Set([...Object.keys(fa), ...Object.keys(fb)])].sort()) {
    const va = fa[d];
    const vb = fb[d];
    if (va !== undefined && vb !== undefined && JSON.stringify(asList(va)) === JSON.stringify(asList(vb))) {
      filters[d] = va;
      continue;
    }
    extra.push(d);
    if (va !== undefined && vb !== undefined) {
      const union = [...new Set([...asList(va), ...asList(vb)])];
      // Past the contract's limit the filter is dropped; grouping by the dimension still recovers both.
      if (union.length <= LIMITS.maxFilterValues) filters[d] = union;
    }
  }
  let group_by: string[] | undefined;
  // Without group_by a query is already at the finest grain: nothing to add.
  if (a.group_by && b.group_by) {
    const wanted = new Set([...a.group_by, ...b.group_by, ...extra]);
    // Catalog order, so that the merged query does not depend on which tile came first.
    group_by = dimensionsFor(op)
      .map((d) => d.name)
      .filter((d) => wanted.has(d));
    if (group_by.length !== wanted.size || group_by.length > LIMITS.maxGroupBy) return null;
  }
  const metrics = a.metrics && b.metrics ? [...new Set([...a.metrics, ...b.metrics])] : undefined;
  const merged = canonicalQuery(op, {
    start_date: a.start_date < b.start_date ? a.start_date : b.start_date,
    end_date: a.end_date > b.end_date ? a.end_date : b.end_date,
    group_by,
    metrics,
    filters: filters as ReportQuery["filters"],
  });
  return contractProblem(op, merged) === null ? merged : null;
}

// ---------------------------------------------------------------------------------------------
// Planning

interface Cluster {
  op: Operation;
  query: ReportQuery;
  cost: Cost;
  /** Indices of the requests derived from this answer. */
  members: number[];
  problem: string | null;
}

/** The queries to send for `requests`, and which answer each request is derived from. */
export function planQueries(requests: readonly PlanRequest[], opts: PlanOptions): Plan {
  if (!(opts.pageCap >= 1)) throw new Error(`pageCap must be at least 1, got ${opts.pageCap}`);
  const o = {
    ...opts,
    pageSize: opts.pageSize ?? LIMITS.maxPageSize,
    maxPieceDays: opts.maxPieceDays ?? LIMITS.maxRangeDays,
  };
  if (!(o.pageSize >= 1) || !(o.maxPieceDays >= 0)) throw new Error("pageSize must be at least 1 and maxPieceDays at least 0");

  const seenKeys = new Set<string>();
  for (const r of requests) {
    if (seenKeys.has(r.key)) throw new Error(`duplicate request key "${r.key}"`);
    seenKeys.add(r.key);
  }

  const wanted = requests.map((r) => normalizeQuery(r.op, r.query));
  const problems = requests.map((r, i) => contractProblem(r.op, wanted[i]!));
  const costs = requests.map((r, i) => costOf(r.op, wanted[i]!, o));
  const naiveCalls = costs.reduce((n, c) => n + c.calls, 0);

  // Identical requests: one representative each, the first in input order.
  const byKey = new Map<string, number[]>();
  requests.forEach((r, i) => {
    const k = queryKey(r.op, wanted[i]!);
    const group = byKey.get(k);
    if (group) group.push(i);
    else byKey.set(k, [i]);
  });
  const distinct = [...byKey.values()];
  const rep = (g: number[]) => g[0]!;

  // Requests derivable from another request need no query of their own. Derivability is a
  // preorder: requests equal under it (group_by in another order) keep the first of them.
  const derives = (i: number, j: number) => {
    const a = rep(distinct[i]!);
    const b = rep(distinct[j]!);
    return (
      i !== j &&
      problems[a] === null &&
      problems[b] === null &&
      requests[a]!.op === requests[b]!.op &&
      canDerive(requests[a]!.op, wanted[a]!, wanted[b]!)
    );
  };
  const n = distinct.length;
  const isRoot = distinct.map((_, i) => !distinct.some((_, j) => derives(i, j) && (!derives(j, i) || j < i)));
  const clusters: Cluster[] = [];
  const clusterOfRoot = new Map<number, Cluster>();
  for (let i = 0; i < n; i++) {
    if (!isRoot[i]) continue;
    const r = rep(distinct[i]!);
    const c: Cluster = { op: requests[r]!.op, query: wanted[r]!, cost: costs[r]!, members: [...distinct[i]!], problem: problems[r]! };
    clusters.push(c);
    clusterOfRoot.set(i, c);
  }
  for (let i = 0; i < n; i++) {
    if (isRoot[i]) continue;
    const root = [...clusterOfRoot.keys()].find((j) => derives(i, j));
    if (root !== undefined) {
      clusterOfRoot.get(root)!.members.push(...distinct[i]!);
    } else {
      // Unreachable while canDerive is transitive; should it not be, the request is sent itself.
      const r = rep(distinct[i]!);
      clusters.push({ op: requests[r]!.op, query: wanted[r]!, cost: costs[r]!, members: [...distinct[i]!], problem: problems[r]! });
    }
  }

  const servesAll = (c: { op: Operation; members: readonly number[] }, q: ReportQuery) =>
    c.members.every((m) => requests[m]!.op === c.op && canDerive(c.op, wanted[m]!, q));

  // Greedy pairwise merging. Merges are kept from cost to cost, keyed by the two queries.
  const merges = new Map<string, { query: ReportQuery; cost: Cost } | null>();
  const mergeOf = (x: Cluster, y: Cluster) => {
    const k = `${queryKey(x.op, x.query)}\n${queryKey(y.op, y.query)}`;
    let m = merges.get(k);
    if (m === undefined) {
      const q = mergeQueries(x.op, x.query, y.query);
      m = q ? { query: q, cost: costOf(x.op, q, o) } : null;
      merges.set(k, m);
    }
    return m;
  };
  for (;;) {
    let best: { i: number; j: number; query: ReportQuery; cost: Cost; saving: number } | null = null;
    for (let i = 0; i < clusters.length; i++) {
      const x = clusters[i]!;
      if (x.problem !== null) continue;
      for (let j = i + 1; j < clusters.length; j++) {
        const y = clusters[j]!;
        if (y.problem !== null || y.op !== x.op) continue;
        const m = mergeOf(x, y);
        if (!m) continue;
        // The fetcher would refuse it; two answers it accepts are better than one it does not.
        if (m.cost.calls > o.pageCap || m.cost.maxPiecePages > o.pageCap) continue;
        const saving = x.cost.calls + y.cost.calls - m.cost.calls;
        // Zero saving still merges: one finer answer serves later tiles and drill-downs from cache.
        if (saving < 0) continue;
        const better =
          best === null || saving > best.saving || (saving === best.saving && m.cost.rows < best.cost.rows);
        if (!better) continue;
        if (!servesAll(x, m.query) || !servesAll(y, m.query)) continue;
        best = { i, j, query: m.query, cost: m.cost, saving };
      }
    }
    if (!best) break;
    const x = clusters[best.i]!;
    const y = clusters[best.j]!;
    const merged: Cluster = { op: x.op, query: best.query, cost: best.cost, members: [...x.members, ...y.members], problem: null };
    clusters.splice(best.j, 1);
    clusters[best.i] = merged;
    // Queries the merged answer now covers cost nothing more: fold them in.
    for (let k = clusters.length - 1; k >= 0; k--) {
      const c = clusters[k]!;
      if (c === merged || c.problem !== null || c.op !== merged.op || !servesAll(c, merged.query)) continue;
      merged.members.push(...c.members);
      clusters.splice(k, 1);
    }
  }

  // Output in the order the tiles asked, so that the same input always gives the same plan.
  for (const c of clusters) c.members.sort((a, b) => a - b);
  clusters.sort((a, b) => a.members[0]! - b.members[0]!);
  const queries: PlannedQuery[] = clusters.map((c) => ({
    op: c.op,
    query: c.query,
    estimatedRows: c.cost.rows,
    estimatedCalls: c.cost.calls,
    pieces: c.cost.pieces,
    maxPiecePages: c.cost.maxPiecePages,
    serves: c.members.map((m) => requests[m]!.key),
    ...(c.problem !== null ? { problem: c.problem } : {}),
  }));
  const sourceOf: Record<string, number> = {};
  const canonical: Record<string, ReportQuery> = {};
  clusters.forEach((c, qi) => c.members.forEach((m) => (sourceOf[requests[m]!.key] = qi)));
  requests.forEach((r, i) => (canonical[r.key] = wanted[i]!));

  // Every merge above was checked; this is the promise callers rely on, so it is checked once more.
  requests.forEach((r, i) => {
    const q = queries[sourceOf[r.key] ?? -1];
    if (!q || q.op !== r.op || !canDerive(r.op, wanted[i]!, q.query)) {
      throw new Error(`query plan error: request "${r.key}" cannot be derived from its planned source`);
    }
  });
  const total = queries.reduce((s, q) => s + q.estimatedCalls, 0);
  if (queries.length > n || total > naiveCalls) {
    throw new Error(`query plan error: ${queries.length} queries, ${total} calls for ${n} distinct requests, ${naiveCalls} naive calls`);
  }
  return { queries, sourceOf, canonical, naiveCalls };
}
