/**
 * Answers a query from a cached answer when that is exact: a subset of its metrics, a sub-range of a
 * date-grouped answer, a filter on one of its grouped dimensions, a coarser grouping, or any mix.
 */
import type { FilterScalar, Operation, ReportRecord } from "@/lib/contract";
import { aggregate, canonicalQuery, effectiveGroupBy, effectiveMetrics, matchesFilter, type ReportQuery } from "./records";

type Filters = Record<string, FilterScalar | FilterScalar[]>;

const asList = (v: FilterScalar | FilterScalar[]) => (Array.isArray(v) ? v : [v]);
const subset = (a: readonly FilterScalar[], b: readonly FilterScalar[]) => a.every((x) => b.includes(x));

/** True when `cached`'s records contain everything needed to compute `wanted` exactly. */
export function canDerive(op: Operation, wanted: ReportQuery, cached: ReportQuery): boolean {
  const cachedDims = effectiveGroupBy(op, cached);
  const cachedMetrics = effectiveMetrics(op, cached);
  if (!effectiveMetrics(op, wanted).every((m) => cachedMetrics.includes(m))) return false;
  if (!effectiveGroupBy(op, wanted).every((d) => cachedDims.includes(d))) return false;
  if (wanted.start_date < cached.start_date || wanted.end_date > cached.end_date) return false;
  const sameRange = wanted.start_date === cached.start_date && wanted.end_date === cached.end_date;
  if (!sameRange && !cachedDims.includes("date")) return false;
  const wf = (wanted.filters ?? {}) as Filters;
  const cf = (cached.filters ?? {}) as Filters;
  for (const [d, v] of Object.entries(cf)) {
    const w = wf[d];
    if (w === undefined) return false; // cached answer is narrower than wanted
    const wl = asList(w);
    const cl = asList(v);
    if (!subset(wl, cl)) return false;
    if (!subset(cl, wl) && !cachedDims.includes(d)) return false;
  }
  for (const d of Object.keys(wf)) {
    if (!(d in cf) && !cachedDims.includes(d)) return false;
  }
  return true;
}

/** Computes `wanted` from `cached`'s records; call only when `canDerive` said yes. */
export function derive(op: Operation, wanted: ReportQuery, records: readonly ReportRecord[]): ReportRecord[] {
  const w = canonicalQuery(op, wanted);
  const filters = Object.entries((w.filters ?? {}) as Filters);
  const kept = records.filter((r) => {
    if (r.date !== undefined && r.date !== null && (String(r.date) < w.start_date || String(r.date) > w.end_date)) return false;
    return filters.every(([d, f]) => !(d in r) || matchesFilter(r[d], f));
  });
  return aggregate(kept, effectiveGroupBy(op, w), effectiveMetrics(op, w));
}
