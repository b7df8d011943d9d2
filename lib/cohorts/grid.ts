/**
 * The retention grid as pure math (docs/metrics.md, "Cohorts").
 *
 * Input: cohort records grouped by `date` (the initial date) and `billing_cycle`. Rows are signup
 * days, weeks (Monday to Sunday) or calendar months; a coarser row is the sum of its days. Columns are
 * billing cycles 0..N.
 *
 * Masking: cycle k falls due `cycleOffsetDays(k)` days after the initial date (0 for k = 0; trial +
 * period × (k − 1) after). A row has reached cycle k when its youngest day, the latest initial date
 * it covers (clipped to the range and to today), plus that offset is on or before today. A cell not
 * reached is masked, never shown as 0: its customers have not had the chance to be billed yet.
 */
import { addDays, daysBetween, fromEpochDay, toEpochDay } from "@/lib/contract/dates";
import type { ReportRecord } from "@/lib/contract/schemas";
import type { ValueFormat } from "@/lib/metrics/format";
import { addInto, evaluate, measureFor, metricOf, sumValue, type Sums } from "@/lib/metrics/kpis";
import type { CohortCell, CohortRows } from "@/lib/report-state/cohort";
import { cycleOffsetDays, type CohortSchedule } from "./labels";

export { CELL_LABELS, ROW_LABELS, cohortCaption, cycleOffsetDays, type CohortSchedule } from "./labels";
export { CELL_DEFINITIONS } from "./cell-definitions";

/** Whether customers whose initial date is `day` have reached billing cycle k by `today`. */
export function hasReached(day: string, k: number, today: string, s: CohortSchedule): boolean {
  return addDays(day, cycleOffsetDays(k, s)) <= today;
}

export interface Bucket {
  key: string;
  /** First and last calendar day of the bucket (not clipped). */
  start: string;
  end: string;
  label: string;
}

export function bucketOf(day: string, rows: CohortRows): Bucket {
  if (rows === "day") return { key: day, start: day, end: day, label: day };
  if (rows === "week") {
    const e = toEpochDay(day);
    // 1970-01-01 was a Thursday: (e + 3) mod 7 is 0 on Mondays.
    const start = fromEpochDay(e - (((e + 3) % 7) + 7) % 7);
    return { key: start, start, end: addDays(start, 6), label: `Week of ${start}` };
  }
  const start = `${day.slice(0, 7)}-01`;
  const next = Number(day.slice(5, 7)) === 12 ? `${Number(day.slice(0, 4)) + 1}-01-01` : `${day.slice(0, 4)}-${String(Number(day.slice(5, 7)) + 1).padStart(2, "0")}-01`;
  // Dates read YYYY-MM-DD everywhere, so a month reads YYYY-MM.
  return { key: start, start, end: addDays(next, -1), label: day.slice(0, 7) };
}

export interface GridCell {
  cycle: number;
  masked: boolean;
  value: number | null;
  numerator?: number;
  denominator?: number;
}

export interface GridRow {
  key: string;
  label: string;
  /** The initial dates the row covers, clipped to the range and today. */
  start: string;
  end: string;
  /** Initial approvals (cycle 0): the cohort's customers. */
  customers: number;
  cells: GridCell[];
}

export interface CohortGrid {
  rows: GridRow[];
  /** Every cohort that reached a cycle, pooled: ratios of sums (revenue: the total). */
  summary: GridRow;
  format: ValueFormat;
  /** Colour-scale domain over the data rows' shown values. */
  min: number;
  max: number;
  cycles: number;
}

export interface CohortGridInput extends CohortSchedule {
  records: readonly ReportRecord[];
  range: { start: string; end: string };
  today: string;
  rows: CohortRows;
  cell: CohortCell;
  cycles: number;
}

const APPROVALS = metricOf("approvals", "cohort");
const REVENUE = metricOf("revenue", "cohort");
// The numerator of "net revenue per customer" (revenue − refunds − chargebacks − CPA), from the registry.
const NET = measureFor("net_revenue_per_customer", "cohort")!;
const NET_NUMERATOR = { ...NET, denominator: null };
export const COHORT_METRICS = [...new Set([APPROVALS, REVENUE, ...NET.numerator.map((t) => t.metric)])];

export const CELL_FORMATS: Record<CohortCell, ValueFormat> = {
  retention: "percent",
  previous: "percent",
  revenue: "currency",
  ltv: "currency",
};

interface Acc {
  bucket: Bucket;
  start: string;
  youngest: string;
  perCycle: (Sums | undefined)[];
}

function cellsOf(perCycle: readonly (Sums | undefined)[], reached: (k: number) => boolean, cell: CohortCell, cycles: number): GridCell[] {
  const at = (k: number, metric: string) => {
    const s = perCycle[k];
    return s ? sumValue(s, metric) : 0;
  };
  const approvals = (k: number) => at(k, APPROVALS);
  const a0 = approvals(0);
  const cumulative: Sums = new Map();
  const out: GridCell[] = [];
  for (let k = 0; k <= cycles; k++) {
    for (const [m, v] of perCycle[k] ?? []) cumulative.set(m, (cumulative.get(m) ?? 0) + v);
    if (!reached(k)) {
      out.push({ cycle: k, masked: true, value: null });
      continue;
    }
    switch (cell) {
      case "retention": {
        const n = approvals(k);
        out.push({ cycle: k, masked: false, value: a0 === 0 ? null : n / a0, numerator: n, denominator: a0 });
        break;
      }
      case "previous": {
        const n = approvals(k);
        const d = k === 0 ? a0 : approvals(k - 1);
        out.push({ cycle: k, masked: false, value: d === 0 ? null : n / d, numerator: n, denominator: d });
        break;
      }
      case "revenue":
        out.push({ cycle: k, masked: false, value: at(k, REVENUE) });
        break;
      case "ltv": {
        const n = evaluate(NET_NUMERATOR, cumulative).numerator;
        out.push({ cycle: k, masked: false, value: a0 === 0 ? null : n / a0, numerator: n, denominator: a0 });
        break;
      }
    }
  }
  return out;
}

export function buildCohortGrid(input: CohortGridInput): CohortGrid {
  const { range, today, rows: rowsBy, cell, cycles } = input;
  const schedule: CohortSchedule = { trialDays: input.trialDays, periodDays: input.periodDays };
  const lastDay = range.end < today ? range.end : today;

  // Every bucket that overlaps [range.start, lastDay], so a day without signups still has its row.
  const accs = new Map<string, Acc>();
  if (range.start <= lastDay && daysBetween(range.start, lastDay) <= 3700) {
    for (let d = range.start; d <= lastDay; d = addDays(d, 1)) {
      const b = bucketOf(d, rowsBy);
      const acc = accs.get(b.key);
      if (acc) acc.youngest = d;
      else accs.set(b.key, { bucket: b, start: d, youngest: d, perCycle: [] });
    }
  }

  for (const r of input.records) {
    const day = r.date;
    const k = r.billing_cycle;
    if (typeof day !== "string" || typeof k !== "number" || k < 0 || k > cycles) continue;
    const acc = accs.get(bucketOf(day, rowsBy).key);
    if (!acc) continue; // outside the range (or after today)
    addInto((acc.perCycle[k] ??= new Map()), r, COHORT_METRICS);
  }

  const gridRows: GridRow[] = [];
  let summaryCustomers = 0;
  let min = Infinity;
  let max = -Infinity;

  for (const acc of [...accs.values()].sort((a, b) => (a.bucket.key < b.bucket.key ? -1 : 1))) {
    const reached = (k: number) => hasReached(acc.youngest, k, today, schedule);
    const cells = cellsOf(acc.perCycle, reached, cell, cycles);
    const first = acc.perCycle[0];
    const customers = first ? sumValue(first, APPROVALS) : 0;
    summaryCustomers += customers;
    gridRows.push({ key: acc.bucket.key, label: acc.bucket.label, start: acc.start, end: acc.youngest, customers, cells });
    for (const c of cells) {
      if (c.masked || c.value === null) continue;
      if ((cell === "retention" || cell === "previous") && c.cycle === 0) continue; // always 100%
      min = Math.min(min, c.value);
      max = Math.max(max, c.value);
    }
  }

  const summary: GridRow = {
    key: "all",
    label: "All cohorts",
    start: range.start,
    end: lastDay,
    customers: summaryCustomers,
    cells: summaryCells(gridRows, accs, today, schedule, cell, cycles),
  };

  const format = CELL_FORMATS[cell];
  if (min === Infinity) {
    min = 0;
    max = format === "percent" ? 1 : 0;
  }
  if (format === "percent") {
    // Cycle 0 is 100% by definition; the scale spans the later cycles so their differences show.
    min = 0;
    max = max > 0 ? max : 1;
  } else {
    min = Math.min(0, min);
    max = Math.max(0, max);
  }
  return { rows: gridRows, summary, format, min, max, cycles };
}

/**
 * Column k of the pooled row: cycles 0..k summed over the cohorts that reached k (so a young cohort
 * never drags a late cycle's rate down), then evaluated like any row.
 */
function summaryCells(
  rows: readonly GridRow[],
  accs: Map<string, Acc>,
  today: string,
  schedule: CohortSchedule,
  cell: CohortCell,
  cycles: number,
): GridCell[] {
  const list = [...accs.values()];
  const out: GridCell[] = [];
  for (let k = 0; k <= cycles; k++) {
    const members = list.filter((a) => hasReached(a.youngest, k, today, schedule));
    if (members.length === 0 || rows.length === 0) {
      out.push({ cycle: k, masked: true, value: null });
      continue;
    }
    const pooled: (Sums | undefined)[] = [];
    for (const a of members) {
      for (let j = 0; j <= k; j++) {
        const s = a.perCycle[j];
        if (!s) continue;
        const p = (pooled[j] ??= new Map());
        for (const [m, v] of s) p.set(m, (p.get(m) ?? 0) + v);
      }
    }
    const c = cellsOf(pooled, () => true, cell, k)[k]!;
    out.push(c);
  }
  return out;
}
