/**
 * The one registry of derived KPIs (docs/metrics.md). Each KPI is a numerator over a denominator,
 * both sums of catalog metrics, so a KPI on any set of rows (a table row, the totals, a chart point,
 * an "Other" series, a cohort bucket) is the ratio of the sums, never an average of ratios.
 *
 * KPIs are written against order-summary metrics; in cohorts each stands for its catalog twin
 * (orders: `approvals`; cohort: `approvals_by_initial_date`), so one definition serves both.
 */
import { BOTH, betterWhen, getMetric, metricFor, metricsFor, type Direction, type Operation } from "@/lib/contract/catalog";
import { fromCents, isAmountMetric } from "@/lib/contract/money";
import type { ReportRecord } from "@/lib/contract/schemas";
import type { ValueFormat } from "./format";
import { sumRecords, type Sums } from "./sums";

/**
 * The order-summary metrics KPIs are written against; in cohorts each stands for its catalog twin
 * (`approvals` → `approvals_by_initial_date`), or itself where both operations offer it.
 */
export type BaseMeasure =
  | "attempts"
  | "approvals"
  | "revenue"
  | "cpa"
  | "cb_count"
  | "cb_amount"
  | "refund_count"
  | "refund_amount"
  | "alert_count"
  | "initial_approved"
  // Dated by the event itself (order summary only): what the card networks count in a month.
  | "cb_count_by_cb_date"
  | "cb_amount_by_cb_date"
  | "refund_count_by_refund_date"
  | "alert_count_by_alert_date";

export interface Term {
  readonly measure: BaseMeasure;
  readonly sign: 1 | -1;
}

export interface KpiDef {
  readonly id: string;
  readonly label: string;
  readonly format: ValueFormat;
  readonly numerator: readonly Term[];
  /** null: the KPI is a plain (signed) sum, such as net revenue. */
  readonly denominator: readonly Term[] | null;
  readonly operations: readonly Operation[];
  /** Which way a change is good news (the comparison's colours and words). */
  readonly better: Direction;
}

const plus = (measure: BaseMeasure): Term => ({ measure, sign: 1 });
const minus = (measure: BaseMeasure): Term => ({ measure, sign: -1 });

export const KPIS = [
  {
    id: "approval_rate",
    label: "Approval rate",
    format: "percent",
    numerator: [plus("approvals")],
    denominator: [plus("attempts")],
    operations: BOTH,
    better: "higher",
  },
  {
    id: "cb_rate_count",
    label: "Chargeback rate (count)",
    format: "percent",
    numerator: [plus("cb_count")],
    denominator: [plus("approvals")],
    operations: BOTH,
    better: "lower",
  },
  {
    id: "cb_rate_amount",
    label: "Chargeback rate (amount)",
    format: "percent",
    numerator: [plus("cb_amount")],
    denominator: [plus("revenue")],
    operations: BOTH,
    better: "lower",
  },
  {
    id: "refund_rate",
    label: "Refund rate",
    format: "percent",
    numerator: [plus("refund_count")],
    denominator: [plus("approvals")],
    operations: BOTH,
    better: "lower",
  },
  {
    id: "alert_rate",
    label: "Alert rate",
    format: "percent",
    numerator: [plus("alert_count")],
    denominator: [plus("approvals")],
    operations: BOTH,
    better: "lower",
  },
  // The same rates with the events dated by when they arrived, over the same sales: complete for any
  // past period (nothing more arrives for it), so periods of any age compare fairly; see
  // docs/metrics.md "Maturing rates".
  {
    id: "cb_rate_count_by_cb_date",
    label: "Chargeback rate (count, by CB date)",
    format: "percent",
    numerator: [plus("cb_count_by_cb_date")],
    denominator: [plus("approvals")],
    operations: ["orders"],
    better: "lower",
  },
  {
    id: "cb_rate_amount_by_cb_date",
    label: "Chargeback rate (amount, by CB date)",
    format: "percent",
    numerator: [plus("cb_amount_by_cb_date")],
    denominator: [plus("revenue")],
    operations: ["orders"],
    better: "lower",
  },
  {
    id: "refund_rate_by_refund_date",
    label: "Refund rate (by refund date)",
    format: "percent",
    numerator: [plus("refund_count_by_refund_date")],
    denominator: [plus("approvals")],
    operations: ["orders"],
    better: "lower",
  },
  {
    id: "alert_rate_by_alert_date",
    label: "Alert rate (by alert date)",
    format: "percent",
    numerator: [plus("alert_count_by_alert_date")],
    denominator: [plus("approvals")],
    operations: ["orders"],
    better: "lower",
  },
  {
    id: "net_revenue",
    label: "Net revenue",
    format: "currency",
    numerator: [plus("revenue"), minus("refund_amount"), minus("cb_amount")],
    denominator: null,
    operations: BOTH,
    better: "higher",
  },
  {
    id: "aov",
    label: "Average order value",
    format: "currency",
    numerator: [plus("revenue")],
    denominator: [plus("approvals")],
    operations: BOTH,
    better: "higher",
  },
  {
    id: "net_revenue_per_customer",
    label: "Net revenue per customer",
    format: "currency",
    numerator: [plus("revenue"), minus("refund_amount"), minus("cb_amount"), minus("cpa")],
    denominator: [plus("initial_approved")],
    operations: ["cohort"],
    better: "higher",
  },
] as const satisfies readonly KpiDef[];

export type KpiId = (typeof KPIS)[number]["id"];

const kpiById = new Map<string, KpiDef>(KPIS.map((k) => [k.id, k]));

export function getKpi(id: string): KpiDef | undefined {
  return kpiById.get(id);
}

export function kpisFor(op: Operation): readonly KpiDef[] {
  return KPIS.filter((k) => (k.operations as readonly Operation[]).includes(op));
}

export function metricOf(measure: BaseMeasure, op: Operation): string {
  const m = metricFor(measure, op);
  // Every base measure has a metric in both operations (a test walks them all).
  if (!m) throw new Error(`no ${op} metric for ${measure}`);
  return m.name;
}

/** Catalog metrics a KPI needs fetched, numerator first. */
export function requiredMetrics(kpi: KpiDef, op: Operation): string[] {
  const out: string[] = [];
  for (const t of [...kpi.numerator, ...(kpi.denominator ?? [])]) {
    const m = metricOf(t.measure, op);
    if (!out.includes(m)) out.push(m);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Measures: a catalog metric or a KPI, as numerator terms over optional denominator terms

export interface MetricTerm {
  readonly metric: string;
  readonly sign: 1 | -1;
}

/** Anything a table column or a chart series can show, evaluated as a ratio of sums. */
export interface Measure {
  readonly id: string;
  readonly label: string;
  readonly format: ValueFormat;
  readonly kind: "metric" | "kpi";
  readonly numerator: readonly MetricTerm[];
  readonly denominator: readonly MetricTerm[] | null;
  readonly better: Direction;
}

const termsFor = (terms: readonly Term[], op: Operation): MetricTerm[] =>
  terms.map((t) => ({ metric: metricOf(t.measure, op), sign: t.sign }));

/** The measure for a metric name or KPI id offered by `op`, or undefined. */
export function measureFor(id: string, op: Operation): Measure | undefined {
  const kpi = getKpi(id);
  if (kpi) {
    if (!(kpi.operations as readonly Operation[]).includes(op)) return undefined;
    return {
      id: kpi.id,
      label: kpi.label,
      format: kpi.format,
      kind: "kpi",
      numerator: termsFor(kpi.numerator, op),
      denominator: kpi.denominator ? termsFor(kpi.denominator, op) : null,
      better: kpi.better,
    };
  }
  const metric = metricsFor(op).find((m) => m.name === id);
  if (!metric) return undefined;
  return {
    id: metric.name,
    label: metric.label,
    format: metric.unit === "currency" ? "currency" : "count",
    kind: "metric",
    numerator: [{ metric: metric.name, sign: 1 }],
    denominator: null,
    better: betterWhen(metric),
  };
}

/** Catalog metrics a measure reads. */
export function measureMetrics(m: Measure): string[] {
  const out: string[] = [];
  for (const t of [...m.numerator, ...(m.denominator ?? [])]) if (!out.includes(t.metric)) out.push(t.metric);
  return out;
}

function combine(terms: readonly MetricTerm[], sums: Sums): number {
  // Terms of one side share a unit (all counts or all amounts): add integer units, convert once.
  let total = 0;
  for (const t of terms) total += t.sign * (sums.get(t.metric) ?? 0);
  return terms.some((t) => isAmountMetric(t.metric)) ? fromCents(total) : total;
}

export interface Evaluation {
  /** null when the denominator is 0 (a rate of nothing). */
  value: number | null;
  numerator: number;
  denominator: number | null;
}

/** A measure over sums: numerator ÷ denominator (or the plain numerator). */
export function evaluate(m: Measure, sums: Sums): Evaluation {
  const numerator = combine(m.numerator, sums);
  if (!m.denominator) return { value: numerator, numerator, denominator: null };
  const denominator = combine(m.denominator, sums);
  return { value: denominator === 0 ? null : numerator / denominator, numerator, denominator };
}

/** A measure on one record (a record is a sum of one). */
export function evaluateRecord(m: Measure, record: ReportRecord): Evaluation {
  return evaluate(m, sumRecords([record], measureMetrics(m)));
}

/** "Approvals ÷ Attempts", "Revenue − Refund amount − Chargeback amount". */
export function describeTerms(terms: readonly MetricTerm[]): string {
  return terms
    .map((t, i) => {
      const label = getMetric(t.metric)?.label ?? t.metric;
      return i === 0 ? (t.sign < 0 ? `−${label}` : label) : `${t.sign < 0 ? "−" : "+"} ${label}`;
    })
    .join(" ");
}
