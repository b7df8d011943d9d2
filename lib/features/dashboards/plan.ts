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
import { LIMITS, type Operation } from "@/lib/contract/catalog";
import { canDerive } from "@/lib/core/upstream/derive";
import { rangePieces } from "@/lib/core/upstream/range-pieces";
import { queryKey, type ReportQuery } from "@/lib/core/upstream/records";
import { contractProblem, mergeQueries, normalizeQuery } from "./plan-queries";
import { estimateRows, type Cardinality } from "./plan-rows";

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
  /** Distinct values the server has seen of a dimension; overrides the defaults of ./plan-rows.ts. */
  cardinality?: Cardinality;
  /**
   * The day the answers run up to. A cohort's initial date can only hold the billing cycles that have
   * come round since it (cohortCycles); without it, every initial date is counted with them all.
   */
  today?: string;
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
