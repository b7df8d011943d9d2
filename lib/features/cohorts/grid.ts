/**
 * The retention grid as pure math (docs/metrics.md, "Cohorts").
 *
 * Input: cohort records grouped by `date` (the initial date) and `billing_cycle`. Rows are signup
 * days, ISO weeks (Monday to Sunday) or calendar months, the periods of lib/report/periods; a coarser row is
 * the sum of its days. Columns are billing cycles 0..N. A week or month that the range (ended at
 * today) cuts is partial and says so, as Explore's rows do: its customers are fewer than a whole
 * period's, and reading it beside whole ones would mislead.
 *
 * Masking: cycle k falls due `cycleOffsetDays(k)` days after the initial date (0 for k = 0; trial +
 * period × (k − 1) after). A row has reached cycle k when its youngest day, the latest initial date
 * it covers (clipped to the range and to today), plus that offset is on or before today. A cell not
 * reached is masked, never shown as 0: its customers have not had the chance to be billed yet.
 */
import { addDays, daysBetween } from "@/lib/contract/dates";
import type { ReportRecord } from "@/lib/contract/schemas";
import type { ValueFormat } from "@/lib/report/metrics/format";
import { evaluate, measureFor, metricOf } from "@/lib/report/metrics/kpis";
import { addInto, sumValue, type Sums } from "@/lib/report/metrics/sums";
import { partialNote, periodLabel, periodOf, periodsIn, type Period } from "@/lib/report/periods/periods";
import type { CohortCell, CohortRows } from "@/lib/report/state/cohort";
import { cycleOffsetDays, type CohortSchedule } from "./labels";

export { cohortCaption, cycleOffsetDays, type CohortSchedule } from "./labels";
export { CELL_DEFINITIONS } from "./cell-definitions";

/** Whether customers whose initial date is `day` have reached billing cycle k by `today`. */
export function hasReached(day: string, k: number, today: string, s: CohortSchedule): boolean {
  return addDays(day, cycleOffsetDays(k, s)) <= today;
}

/** A row's name: a week by its Monday, as the Cohorts page has always named it; a day or month as Explore does. */
export function cohortLabel(start: string, rows: CohortRows): string {
  return rows === "week" ? `Week of ${start}` : periodLabel(start, rows);
}

/** The words Explore uses for a period the range cuts, and why, when it was today that cut it. */
function cohortPartialNote(p: Period, rangeEnd: string): string {
  const note = partialNote(p);
  return p.to < p.end && p.to < rangeEnd ? `${note} The days after ${p.to} are still to come.` : note;
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
  /** As shown and exported: "2026-10", or "2026-10 (partial)" when the range cuts the month. */
  label: string;
  /** The initial dates the row covers, clipped to the range and today. */
  start: string;
  end: string;
  /** The range (ended at today) cuts the row's week or month: it holds only some of its days. */
  partial: boolean;
  /** What "(partial)" abbreviates: the days included, of the whole period's. */
  note?: string;
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
  /** The row's week, month or day, its days clipped to the range and today. */
  period: Period;
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

  // Every period that overlaps the days covered, so a day without signups still has its row.
  const covered = { start: range.start, end: lastDay };
  const accs = new Map<string, Acc>();
  if (range.start <= lastDay && daysBetween(range.start, lastDay) <= 3700) {
    for (const period of periodsIn(covered, rowsBy)) accs.set(period.start, { period, perCycle: [] });
  }

  for (const r of input.records) {
    const day = r.date;
    const k = r.billing_cycle;
    if (typeof day !== "string" || typeof k !== "number" || k < 0 || k > cycles) continue;
    if (day < covered.start || day > covered.end) continue; // outside the range (or after today)
    const acc = accs.get(periodOf(day, rowsBy, covered).start);
    if (!acc) continue;
    addInto((acc.perCycle[k] ??= new Map()), r, COHORT_METRICS);
  }

  const gridRows: GridRow[] = [];
  let summaryCustomers = 0;
  let min = Infinity;
  let max = -Infinity;

  for (const { period: p, perCycle } of accs.values()) {
    const reached = (k: number) => hasReached(p.to, k, today, schedule);
    const cells = cellsOf(perCycle, reached, cell, cycles);
    const first = perCycle[0];
    const customers = first ? sumValue(first, APPROVALS) : 0;
    summaryCustomers += customers;
    const label = cohortLabel(p.start, rowsBy);
    const marks = p.partial ? { label: `${label} (partial)`, partial: true, note: cohortPartialNote(p, range.end) } : { label, partial: false };
    gridRows.push({ key: p.start, ...marks, start: p.from, end: p.to, customers, cells });
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
    partial: false,
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
    const members = list.filter((a) => hasReached(a.period.to, k, today, schedule));
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
