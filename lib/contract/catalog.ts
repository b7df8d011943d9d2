/**
 * The one catalog of dimensions and metrics (SPEC.md §2.2, §2.3, §3).
 *
 * Everything else derives from these two arrays: request validation, the OpenAPI document, the
 * service's SQL column map, the dashboard's pickers and labels, and the tests that loop over them.
 * Adding a dimension or metric here is the whole change for the wire format.
 */

import { BOTH, DIMENSIONS } from "./dimensions";
import type { Operation } from "./operations";

export { OPERATIONS, type Operation } from "./operations";
// The dimensions and the limits have modules of their own (re-exported here, their home for every
// other file), so a page whose browser code checks filters and ranges but asks for a fixed set of
// metrics (Cohorts) does not load every metric with them.
export * from "./dimensions";
export { dimensionDescription } from "./dimension-descriptions";
export { LIMITS } from "./limits";

/**
 * Which fact a metric counts and which date it is dated by (SPEC.md §2.4).
 * `attempt` = the attempt's date; `chargeback`/`refund`/`alert` = the event's own date;
 * `initial` = the customer's initial date (cohort).
 */
export type DateBasis = "attempt" | "chargeback" | "refund" | "alert" | "initial";
/** The fact tables (SPEC.md §5): attempts, and the events that refer to one. */
export const FACT_TABLES = ["attempts", "chargebacks", "refunds", "alerts"] as const;
/** The fact table a metric is computed from. */
export type MetricSource = (typeof FACT_TABLES)[number];

/** The facts that arrive after the sale they refer to. */
export type LateSource = Exclude<MetricSource, "attempts">;

/**
 * Days after a sale by which (nearly) all of its events have arrived: chargebacks by the networks'
 * dispute windows, refunds and alerts by how merchants and alert providers work in practice.
 * docs/metrics.md gives the reasons; change a window here and everything follows (the maturing
 * marks in lib/report/metrics/maturity.ts, the settle windows of the kept days).
 */
export const MATURITY_WINDOW_DAYS: Readonly<Record<LateSource, number>> = { chargebacks: 120, refunds: 60, alerts: 60 };

export interface MetricDef {
  readonly name: string;
  readonly type: "int" | "amount";
  readonly unit: "count" | "currency";
  readonly label: string;
  readonly group: "Core" | "Chargebacks" | "Refunds" | "Alerts" | "By sales type" | "Other";
  readonly source: MetricSource;
  readonly dateBasis: DateBasis;
  readonly operations: readonly Operation[];
  /** A cohort metric's order-summary twin: the same measure, attributed to the initial date. */
  readonly twin?: string;
}

/** Which way a change in a measure is good news: up, down, or neither (volumes such as attempts). */
export type Direction = "higher" | "lower" | "neutral";

const NEUTRAL_METRICS: ReadonlySet<string> = new Set(["attempts", "attempts_by_initial_date", "initial_attempt", "rebills_attempted"]);

/**
 * Chargebacks, refunds and alerts (risk events, money given back) and CPA (a cost) are better lower;
 * approvals and revenue higher; counts of attempts say how much was tried, neither good nor bad.
 */
export function betterWhen(metric: MetricDef): Direction {
  if (NEUTRAL_METRICS.has(metric.name)) return "neutral";
  if (metric.source !== "attempts" || metric.name === "cpa") return "lower";
  return "higher";
}

export const METRICS = [
  // Order summary (event date)
  { name: "attempts", type: "int", unit: "count", label: "Attempts", group: "Core", source: "attempts", dateBasis: "attempt", operations: ["orders"] },
  { name: "approvals", type: "int", unit: "count", label: "Approvals", group: "Core", source: "attempts", dateBasis: "attempt", operations: ["orders"] },
  { name: "revenue", type: "amount", unit: "currency", label: "Revenue", group: "Core", source: "attempts", dateBasis: "attempt", operations: ["orders"] },
  { name: "cpa", type: "amount", unit: "currency", label: "CPA", group: "Core", source: "attempts", dateBasis: "attempt", operations: BOTH },
  { name: "cb_count", type: "int", unit: "count", label: "Chargebacks", group: "Chargebacks", source: "chargebacks", dateBasis: "attempt", operations: ["orders"] },
  { name: "cb_amount", type: "amount", unit: "currency", label: "Chargeback amount", group: "Chargebacks", source: "chargebacks", dateBasis: "attempt", operations: ["orders"] },
  { name: "cb_count_by_cb_date", type: "int", unit: "count", label: "Chargebacks (by CB date)", group: "Chargebacks", source: "chargebacks", dateBasis: "chargeback", operations: ["orders"] },
  { name: "cb_amount_by_cb_date", type: "amount", unit: "currency", label: "Chargeback amount (by CB date)", group: "Chargebacks", source: "chargebacks", dateBasis: "chargeback", operations: ["orders"] },
  { name: "refund_count", type: "int", unit: "count", label: "Refunds", group: "Refunds", source: "refunds", dateBasis: "attempt", operations: ["orders"] },
  { name: "refund_amount", type: "amount", unit: "currency", label: "Refund amount", group: "Refunds", source: "refunds", dateBasis: "attempt", operations: ["orders"] },
  { name: "refund_count_by_refund_date", type: "int", unit: "count", label: "Refunds (by refund date)", group: "Refunds", source: "refunds", dateBasis: "refund", operations: ["orders"] },
  { name: "refund_amount_by_refund_date", type: "amount", unit: "currency", label: "Refund amount (by refund date)", group: "Refunds", source: "refunds", dateBasis: "refund", operations: ["orders"] },
  { name: "alert_count", type: "int", unit: "count", label: "Alerts", group: "Alerts", source: "alerts", dateBasis: "attempt", operations: ["orders"] },
  { name: "alert", type: "amount", unit: "currency", label: "Alert amount", group: "Alerts", source: "alerts", dateBasis: "attempt", operations: ["orders"] },
  { name: "alert_count_by_alert_date", type: "int", unit: "count", label: "Alerts (by alert date)", group: "Alerts", source: "alerts", dateBasis: "alert", operations: ["orders"] },
  { name: "alert_by_alert_date", type: "amount", unit: "currency", label: "Alert amount (by alert date)", group: "Alerts", source: "alerts", dateBasis: "alert", operations: ["orders"] },
  { name: "initial_attempt", type: "int", unit: "count", label: "Initial attempts", group: "By sales type", source: "attempts", dateBasis: "attempt", operations: BOTH },
  { name: "initial_approved", type: "int", unit: "count", label: "Initial approvals", group: "By sales type", source: "attempts", dateBasis: "attempt", operations: BOTH },
  { name: "rebills_attempted", type: "int", unit: "count", label: "Rebill attempts", group: "By sales type", source: "attempts", dateBasis: "attempt", operations: BOTH },
  { name: "rebills_approved", type: "int", unit: "count", label: "Rebill approvals", group: "By sales type", source: "attempts", dateBasis: "attempt", operations: BOTH },
  { name: "net_approvals", type: "int", unit: "count", label: "Net approvals", group: "Other", source: "attempts", dateBasis: "attempt", operations: ["orders"] },
  { name: "approvals_organic", type: "int", unit: "count", label: "Organic approvals", group: "Other", source: "attempts", dateBasis: "attempt", operations: ["orders"] },
  // Cohort summary (initial date)
  { name: "approvals_by_initial_date", type: "int", unit: "count", label: "Approvals", group: "Core", source: "attempts", dateBasis: "initial", operations: ["cohort"], twin: "approvals" },
  { name: "attempts_by_initial_date", type: "int", unit: "count", label: "Attempts", group: "Core", source: "attempts", dateBasis: "initial", operations: ["cohort"], twin: "attempts" },
  { name: "revenue_by_initial_date", type: "amount", unit: "currency", label: "Revenue", group: "Core", source: "attempts", dateBasis: "initial", operations: ["cohort"], twin: "revenue" },
  { name: "cb_count_by_initial_date", type: "int", unit: "count", label: "Chargebacks", group: "Chargebacks", source: "chargebacks", dateBasis: "initial", operations: ["cohort"], twin: "cb_count" },
  { name: "cb_amount_by_initial_date", type: "amount", unit: "currency", label: "Chargeback amount", group: "Chargebacks", source: "chargebacks", dateBasis: "initial", operations: ["cohort"], twin: "cb_amount" },
  { name: "refund_count_by_initial_date", type: "int", unit: "count", label: "Refunds", group: "Refunds", source: "refunds", dateBasis: "initial", operations: ["cohort"], twin: "refund_count" },
  { name: "refund_amount_by_initial_date", type: "amount", unit: "currency", label: "Refund amount", group: "Refunds", source: "refunds", dateBasis: "initial", operations: ["cohort"], twin: "refund_amount" },
  { name: "alert_count_by_initial_date", type: "int", unit: "count", label: "Alerts", group: "Alerts", source: "alerts", dateBasis: "initial", operations: ["cohort"], twin: "alert_count" },
  { name: "alert_by_initial_date", type: "amount", unit: "currency", label: "Alert amount", group: "Alerts", source: "alerts", dateBasis: "initial", operations: ["cohort"], twin: "alert" },
] as const satisfies readonly MetricDef[];

export type MetricName = (typeof METRICS)[number]["name"];

/** Names of the entries of `T` whose `operations` include `Op` (distributes over the union). */
type NamesFor<T, Op extends Operation> = T extends { name: infer N; operations: readonly (infer O)[] }
  ? Op extends O
    ? N
    : never
  : never;

export type OrdersDimension = NamesFor<(typeof DIMENSIONS)[number], "orders">;
export type CohortDimension = NamesFor<(typeof DIMENSIONS)[number], "cohort">;
export type OrdersMetric = NamesFor<(typeof METRICS)[number], "orders">;
export type CohortMetric = NamesFor<(typeof METRICS)[number], "cohort">;
const metricByName = new Map<string, MetricDef>(METRICS.map((m) => [m.name, m]));

export function getMetric(name: string): MetricDef | undefined {
  return metricByName.get(name);
}

/** Metric names offered by an operation, in catalog order. */
/**
 * The metric an operation offers for an order-summary metric: the metric itself when the operation
 * offers it, else its twin (`approvals` → `approvals_by_initial_date` in cohorts).
 */
export function metricFor(orderMetric: string, op: Operation): MetricDef | undefined {
  const own = getMetric(orderMetric);
  if (own && (own.operations as readonly string[]).includes(op)) return own;
  return metricsFor(op).find((m) => m.twin === orderMetric);
}

export function metricsFor(op: Operation): readonly MetricDef[] {
  return METRICS.filter((m) => (m.operations as readonly Operation[]).includes(op));
}

/** What each metric means, for the Metrics page, the OpenAPI document and Explore's metric picker; typed
 * by the metrics' names, so a metric added without its description does not compile. */
export const METRIC_DESCRIPTIONS: Readonly<Record<MetricName, string>> = {
  attempts: "Payment attempts, excluding cascades.",
  approvals: "Approved attempts, excluding cascades.",
  revenue: "Sum of approved amounts, cascades included.",
  cpa: "Acquisition cost: the campaign's CPA payout for each approved initial order.",
  cb_count: "Chargebacks, dated by the charged-back attempt's date.",
  cb_amount: "Chargeback amount, dated by the charged-back attempt's date.",
  cb_count_by_cb_date: "Chargebacks, dated by the chargeback date.",
  cb_amount_by_cb_date: "Chargeback amount, dated by the chargeback date.",
  refund_count: "Refunds, dated by the refunded attempt's date.",
  refund_amount: "Refund amount, dated by the refunded attempt's date.",
  refund_count_by_refund_date: "Refunds, dated by the refund date.",
  refund_amount_by_refund_date: "Refund amount, dated by the refund date.",
  alert_count: "Alerts, dated by the alerted attempt's date.",
  alert: "Disputed amount of alerts, dated by the alerted attempt's date.",
  alert_count_by_alert_date: "Alerts, dated by the alert date.",
  alert_by_alert_date: "Disputed amount of alerts, dated by the alert date.",
  initial_attempt: "Attempts with billing cycle 0, excluding cascades.",
  initial_approved: "Approvals with billing cycle 0, excluding cascades.",
  rebills_attempted: "Attempts with billing cycle ≥ 1, excluding cascades.",
  rebills_approved: "Approvals with billing cycle ≥ 1, excluding cascades.",
  net_approvals: "Orders approved on any attempt, retries and cascades included.",
  approvals_organic: "Orders approved on their first attempt.",
  approvals_by_initial_date: "Approved attempts excluding cascades, attributed to the customer's initial date.",
  attempts_by_initial_date: "Attempts excluding cascades, attributed to the customer's initial date.",
  revenue_by_initial_date: "Approved amounts (cascades included), attributed to the customer's initial date.",
  cb_count_by_initial_date: "Chargebacks, attributed to the customer's initial date.",
  cb_amount_by_initial_date: "Chargeback amount, attributed to the customer's initial date.",
  refund_count_by_initial_date: "Refunds, attributed to the customer's initial date.",
  refund_amount_by_initial_date: "Refund amount, attributed to the customer's initial date.",
  alert_count_by_initial_date: "Alerts, attributed to the customer's initial date.",
  alert_by_initial_date: "Disputed amount of alerts, attributed to the customer's initial date.",
};

/** A metric's description by its name (undefined for a name the catalog does not have). */
export function metricDescription(name: string): string | undefined {
  return Object.hasOwn(METRIC_DESCRIPTIONS, name) ? METRIC_DESCRIPTIONS[name as MetricName] : undefined;
}
