/**
 * Exact sums of metrics: amounts are added as integer cents, so re-adding never drifts (SPEC.md §2.3).
 * What every table, pivot, chart and KPI adds up before a measure is evaluated (./kpis.ts).
 */
import { fromUnits, toUnits } from "@/lib/contract/money";
import type { ReportRecord } from "@/lib/contract/schemas";

/** A sum of metrics kept in integer units (cents for amounts). */
export type Sums = Map<string, number>;

/** The metric's value in a record in integer units (cents for amounts); missing counts as 0. */
export function units(record: ReportRecord, metric: string): number {
  const v = record[metric];
  const n = typeof v === "number" ? v : typeof v === "string" ? Number(v) : 0;
  if (!Number.isFinite(n)) return 0;
  return toUnits(metric, n);
}

export function addInto(sums: Sums, record: ReportRecord, metrics: readonly string[]): Sums {
  for (const m of metrics) sums.set(m, (sums.get(m) ?? 0) + units(record, m));
  return sums;
}

export function sumRecords(records: readonly ReportRecord[], metrics: readonly string[]): Sums {
  const sums: Sums = new Map();
  for (const m of metrics) sums.set(m, 0);
  for (const r of records) addInto(sums, r, metrics);
  return sums;
}

export function mergeSums(into: Sums, from: Sums): Sums {
  for (const [m, v] of from) into.set(m, (into.get(m) ?? 0) + v);
  return into;
}

/** A metric's value from sums, back in its natural unit. */
export function sumValue(sums: Sums, metric: string): number {
  const u = sums.get(metric) ?? 0;
  return fromUnits(metric, u);
}
