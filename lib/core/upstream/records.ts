/**
 * Pure operations on report records, shared by range merging and cache derivation: canonical
 * requests, exact re-aggregation (amounts summed as integer cents), and the service's sort order.
 */
import { fromUnits, toUnits } from "@/lib/contract/money";
import {
  dimensionsFor,
  metricsFor,
  type FilterScalar,
  type Operation,
  compareValues,
  type ReportQuery,
  type ReportRecord,
} from "@/lib/contract";

export type { ReportQuery };
export { compareValues };

/** Effective dimensions of a query (no group_by means every dimension, at the finest grain). */
export function effectiveGroupBy(op: Operation, q: ReportQuery): string[] {
  return q.group_by ?? dimensionsFor(op).map((d) => d.name);
}
export function effectiveMetrics(op: Operation, q: ReportQuery): string[] {
  return q.metrics ?? metricsFor(op).map((m) => m.name);
}

function sortScalar(a: FilterScalar, b: FilterScalar): number {
  return compareValues(a, b);
}

/** One spelling per meaning: metrics and filter values sorted, filter keys sorted, no limit/offset. */
export function canonicalQuery(op: Operation, q: ReportQuery): ReportQuery {
  const out: ReportQuery = { start_date: q.start_date, end_date: q.end_date };
  if (q.group_by) out.group_by = [...q.group_by];
  const metrics = effectiveMetrics(op, q);
  const all = metricsFor(op).map((m) => m.name);
  if (q.metrics && metrics.length !== all.length) out.metrics = [...metrics].sort();
  if (q.filters) {
    const keys = Object.keys(q.filters).sort();
    if (keys.length > 0) {
      const filters: Record<string, FilterScalar | FilterScalar[]> = {};
      for (const k of keys) {
        const v = (q.filters as Record<string, FilterScalar | FilterScalar[]>)[k]!;
        const list = Array.isArray(v) ? [...new Set(v)].sort(sortScalar) : [v];
        filters[k] = list.length === 1 ? list[0]! : list;
      }
      out.filters = filters as ReportQuery["filters"];
    }
  }
  return out;
}

export function queryKey(op: Operation, q: ReportQuery): string {
  return `${op}:${JSON.stringify(canonicalQuery(op, q))}`;
}

/** The canonical query a `queryKey` of `op` was made from (the key is its JSON after the operation). */
export function queryOfKey(op: Operation, key: string): ReportQuery {
  if (!key.startsWith(`${op}:`)) throw new Error(`not a key of ${op}: ${key.slice(0, 40)}`);
  return JSON.parse(key.slice(op.length + 1)) as ReportQuery;
}

export function sortRecords(records: ReportRecord[], dims: readonly string[]): ReportRecord[] {
  return records.sort((x, y) => {
    for (const d of dims) {
      const c = compareValues(x[d], y[d]);
      if (c !== 0) return c;
    }
    return 0;
  });
}

/**
 * Sums records that share the values of `dims`, keeping `metrics`. Amounts are added as integer cents
 * and divided once, so re-aggregation never drifts from what the service would have answered.
 */
export function aggregate(records: readonly ReportRecord[], dims: readonly string[], metrics: readonly string[]): ReportRecord[] {
  const groups = new Map<string, { rec: ReportRecord; sums: number[] }>();
  for (const r of records) {
    const key = JSON.stringify(dims.map((d) => r[d] ?? null));
    let g = groups.get(key);
    if (!g) {
      const rec: ReportRecord = {};
      for (const d of dims) rec[d] = r[d] ?? null;
      groups.set(key, (g = { rec, sums: metrics.map(() => 0) }));
    }
    metrics.forEach((m, i) => {
      const v = Number(r[m] ?? 0);
      g.sums[i]! += toUnits(m, v);
    });
  }
  const out: ReportRecord[] = [];
  for (const { rec, sums } of groups.values()) {
    if (!sums.some((s) => s !== 0)) continue; // the service returns only rows with a non-zero metric
    metrics.forEach((m, i) => (rec[m] = fromUnits(m, sums[i]!)));
    out.push(rec);
  }
  return sortRecords(out, dims);
}

export function matchesFilter(value: string | number | null | undefined, filter: FilterScalar | FilterScalar[]): boolean {
  const list = Array.isArray(filter) ? filter : [filter];
  return list.some((f) => (f === null ? value === null || value === undefined : f === value));
}
