/**
 * Daily answers rolled up to a coarser grain, and a report set beside its comparison, row by row.
 * Both work on the records the service returned by day: metrics are added in integer units (cents for
 * amounts) and turned back into values once, so a month is exactly the sum of its days and a KPI of
 * a month is the ratio of those sums (the table evaluates it), never an average of daily ratios.
 * No upstream call is needed for a coarser grain: it is the same daily request.
 */
import type { ReportRecord } from "@/lib/contract/schemas";
import { fromUnits } from "@/lib/contract/money";
import { units } from "@/lib/report/metrics/sums";
import { alignedDay, comparedSpan } from "./align";
import type { CompareSelection } from "./compare";
import type { DayRange, TimeGrain } from "./grain";
import { periodOf, type Period } from "./periods";

export interface RollUpSpec {
  groupBy: readonly string[];
  metrics: readonly string[];
  grain: TimeGrain;
  range: DayRange;
}

/** A row of a rolled-up (or compared) report: its record, and its period when grouped by date. */
export interface PeriodRow {
  record: ReportRecord;
  /** null when the report is not grouped by date. */
  period: Period | null;
}

interface Bucket {
  dims: ReportRecord;
  period: Period | null;
  sums: Map<string, number>;
}

function keyOf(dims: ReportRecord, groupBy: readonly string[]): string {
  return JSON.stringify(groupBy.map((d) => dims[d] ?? null));
}

function addTo(buckets: Map<string, Bucket>, dims: ReportRecord, period: Period | null, record: ReportRecord | null, spec: RollUpSpec): void {
  const key = keyOf(dims, spec.groupBy);
  let b = buckets.get(key);
  if (!b) {
    b = { dims, period, sums: new Map(spec.metrics.map((m) => [m, 0])) };
    buckets.set(key, b);
  }
  if (record) for (const m of spec.metrics) b.sums.set(m, (b.sums.get(m) ?? 0) + units(record, m));
}

function toRecord(b: Bucket): ReportRecord {
  const out: ReportRecord = { ...b.dims };
  for (const [m, u] of b.sums) out[m] = fromUnits(m, u);
  return out;
}

/** The dimensions of a record with its date moved to the first day of its period. */
function dimsAt(record: ReportRecord, groupBy: readonly string[], date: string | null): ReportRecord {
  const dims: ReportRecord = {};
  for (const d of groupBy) dims[d] = d === "date" ? date : (record[d] ?? null);
  return dims;
}

function bucketsOf(records: readonly ReportRecord[], spec: RollUpSpec, dayOf: (r: ReportRecord) => string | null): Map<string, Bucket> {
  const byDate = spec.groupBy.includes("date");
  const buckets = new Map<string, Bucket>();
  for (const r of records) {
    const day = byDate ? dayOf(r) : null;
    const period = day !== null ? periodOf(day, spec.grain, spec.range) : null;
    addTo(buckets, dimsAt(r, spec.groupBy, period ? period.start : null), period, r, spec);
  }
  return buckets;
}

/** Records by day → records by `grain`, each with its period (partial when the range cuts it). */
export function rollUp(records: readonly ReportRecord[], spec: RollUpSpec): PeriodRow[] {
  return [...bucketsOf(records, spec, (r) => String(r.date)).values()].map((b) => ({ record: toRecord(b), period: b.period }));
}

export interface ComparedRow extends PeriodRow {
  /** The same row in the comparison: the sums of the compared days that stand beside this row's. */
  comparison: ReportRecord;
  /** Which side had records; the other side's metrics are zero. */
  presence: "both" | "current" | "comparison";
  /** The compared days beside this row's days (null when not grouped by date). */
  compared: DayRange | null;
  /** A compared day that stands beside none of the report's (last year's 29 February, by day). */
  unaligned?: string;
}

export interface CompareSpec extends RollUpSpec {
  compare: CompareSelection;
  /** The comparison's days (comparisonRange of the report's range). */
  comparisonRange: DayRange;
}

/**
 * The report's rows beside its comparison's. Each compared day is placed beside the report's day it
 * aligns with, then rolled up into that day's period with the same dimensions; rows found on only one
 * side get zeros on the other, and say so in `presence`.
 */
export function compareRows(current: readonly ReportRecord[], comparison: readonly ReportRecord[], spec: CompareSpec): ComparedRow[] {
  const cur = bucketsOf(current, spec, (r) => String(r.date));
  const byDate = spec.groupBy.includes("date");
  const unaligned = new Map<string, string>();
  const cmp = new Map<string, Bucket>();
  for (const r of comparison) {
    const day = byDate ? String(r.date) : null;
    const aligned = day !== null ? alignedDay(day, spec.range, spec.compare, spec.comparisonRange, spec.grain === "day") : null;
    if (day !== null && aligned === null) {
      // Beside no day of the report: its own row, dated by the compared day.
      const dims = dimsAt(r, spec.groupBy, day);
      unaligned.set(keyOf(dims, spec.groupBy), day);
      addTo(cmp, dims, null, r, spec);
      continue;
    }
    const period = aligned !== null ? periodOf(aligned, spec.grain, spec.range) : null;
    addTo(cmp, dimsAt(r, spec.groupBy, period ? period.start : null), period, r, spec);
  }
  const zero = (b: Bucket): Bucket => ({ ...b, sums: new Map(spec.metrics.map((m) => [m, 0])) });
  const span = (p: Period | null) => (p ? comparedSpan(p.from, p.to, spec.range, spec.compare, spec.comparisonRange, spec.grain === "day") : null);
  const rows: ComparedRow[] = [];
  for (const [key, b] of cur) {
    const c = cmp.get(key);
    rows.push({ record: toRecord(b), period: b.period, comparison: toRecord(c ?? zero(b)), presence: c ? "both" : "current", compared: span(b.period) });
  }
  for (const [key, c] of cmp) {
    if (cur.has(key)) continue;
    const day = unaligned.get(key);
    rows.push({
      record: toRecord(zero(c)),
      period: c.period,
      comparison: toRecord(c),
      presence: "comparison",
      compared: day !== undefined ? { start: day, end: day } : span(c.period),
      ...(day !== undefined ? { unaligned: day } : {}),
    });
  }
  return rows;
}
