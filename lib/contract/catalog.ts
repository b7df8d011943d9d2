/**
 * The one catalog of dimensions and metrics (SPEC.md §2.2, §2.3, §3).
 *
 * Everything else derives from these two arrays: request validation, the OpenAPI document, the
 * service's SQL column map, the dashboard's pickers and labels, and the tests that loop over them.
 * Adding a dimension or metric here is the whole change for the wire format.
 */

import type { Operation } from "./operation-ids";

export { OPERATIONS, type Operation } from "./operation-ids";

export type DimensionType = "date" | "integer" | "string" | "decimal";

export interface DimensionDef {
  readonly name: string;
  readonly type: DimensionType;
  readonly label: string;
  readonly description: string;
  /** Canonical spellings of an enumerated string dimension; filters match them case-insensitively. */
  readonly values?: readonly string[];
  /** Operations that offer this dimension. */
  readonly operations: readonly Operation[];
  /** Display group in pickers. */
  readonly group: "Identity and time" | "Sale classification" | "Names and types" | "Card and processing";
}

/** Both operations: what most dimensions, metrics and KPIs are offered by. */
export const BOTH = ["orders", "cohort"] as const satisfies readonly Operation[];

export const SALES_TYPES = ["Initials", "Rebills", "Straight Sales"] as const;
export const REFUND_TYPES = ["Refund Alert", "Refund CS"] as const;
export const ALERT_TYPES = ["ETHOCA", "CDRN", "RDR"] as const;
export const CARD_BRANDS = ["VISA", "MASTERCARD", "AMEX", "DISCOVER"] as const;
export const CARD_TYPES = ["CREDIT", "DEBIT", "PREPAID"] as const;

export const DIMENSIONS = [
  { name: "date", type: "date", label: "Date", group: "Identity and time", operations: BOTH,
    description: "Event date (order summary) or the customer's initial date (cohort)." },
  { name: "campaign_id", type: "integer", label: "Campaign ID", group: "Identity and time", operations: BOTH,
    description: "CRM campaign (in cohorts: of the initial order)." },
  { name: "product_id", type: "integer", label: "Product ID", group: "Identity and time", operations: BOTH,
    description: "Product (in cohorts: of the initial order)." },
  { name: "gateway_id", type: "integer", label: "Gateway ID", group: "Identity and time", operations: BOTH,
    description: "Gateway (merchant account, MID) that processed the attempt." },
  { name: "bin", type: "string", label: "BIN", group: "Identity and time", operations: BOTH,
    description: "First 6 digits of the card number." },
  { name: "affid", type: "string", label: "Affiliate", group: "Identity and time", operations: BOTH,
    description: "Affiliate id (in cohorts: of the initial order)." },
  { name: "sub_affid", type: "string", label: "Sub-affiliate", group: "Identity and time", operations: BOTH,
    description: "Sub-affiliate id (in cohorts: of the initial order)." },
  { name: "sales_type", type: "string", label: "Sales type", group: "Sale classification", operations: BOTH,
    values: SALES_TYPES, description: "Initials, Rebills or Straight Sales." },
  { name: "refund_type", type: "string", label: "Refund type", group: "Sale classification", operations: BOTH,
    values: REFUND_TYPES, description: "Refund Alert or Refund CS; only on refund metrics, null elsewhere." },
  { name: "billing_cycle", type: "integer", label: "Billing cycle", group: "Sale classification", operations: BOTH,
    description: "0 for the initial or straight sale, 1, 2, … for rebills." },
  { name: "attempt_col", type: "integer", label: "Attempt number", group: "Sale classification", operations: ["cohort"],
    description: "Attempt number within an order: 1 for the first try, 2 and up for retries." },
  { name: "price_point", type: "decimal", label: "Price point", group: "Sale classification", operations: BOTH,
    description: "List price of the order (in cohorts: of the initial order)." },
  { name: "alert_type", type: "string", label: "Alert type", group: "Sale classification", operations: BOTH,
    values: ALERT_TYPES, description: "ETHOCA, CDRN or RDR; only on alert metrics, null elsewhere." },
  { name: "product_name", type: "string", label: "Product", group: "Names and types", operations: BOTH,
    description: "Product name." },
  { name: "product_group", type: "string", label: "Product group", group: "Names and types", operations: BOTH,
    description: "Product group." },
  { name: "campaign_name", type: "string", label: "Campaign", group: "Names and types", operations: BOTH,
    description: "Campaign name." },
  { name: "campaign_type", type: "string", label: "Campaign type", group: "Names and types", operations: BOTH,
    description: "Campaign type, e.g. Trial, Straight Sale, Continuity." },
  { name: "mcc", type: "string", label: "MCC", group: "Card and processing", operations: BOTH,
    description: "Merchant category code of the gateway, 4 digits." },
  { name: "acquirer", type: "string", label: "Acquirer", group: "Card and processing", operations: BOTH,
    description: "Acquiring bank of the gateway." },
  { name: "gateway_alias", type: "string", label: "Gateway", group: "Card and processing", operations: BOTH,
    description: "Human name of the gateway." },
  { name: "bank", type: "string", label: "Issuing bank", group: "Card and processing", operations: BOTH,
    description: "Issuing bank of the BIN." },
  { name: "card_brand", type: "string", label: "Card brand", group: "Card and processing", operations: BOTH,
    values: CARD_BRANDS, description: "VISA, MASTERCARD, AMEX or DISCOVER." },
  { name: "card_type", type: "string", label: "Card type", group: "Card and processing", operations: BOTH,
    values: CARD_TYPES, description: "CREDIT, DEBIT or PREPAID." },
] as const satisfies readonly DimensionDef[];

export type DimensionName = (typeof DIMENSIONS)[number]["name"];

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

export interface MetricDef {
  readonly name: string;
  readonly type: "int" | "amount";
  readonly unit: "count" | "currency";
  readonly label: string;
  readonly description: string;
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
  { name: "attempts", type: "int", unit: "count", label: "Attempts", group: "Core", source: "attempts", dateBasis: "attempt", operations: ["orders"],
    description: "Payment attempts, excluding cascades." },
  { name: "approvals", type: "int", unit: "count", label: "Approvals", group: "Core", source: "attempts", dateBasis: "attempt", operations: ["orders"],
    description: "Approved attempts, excluding cascades." },
  { name: "revenue", type: "amount", unit: "currency", label: "Revenue", group: "Core", source: "attempts", dateBasis: "attempt", operations: ["orders"],
    description: "Sum of approved amounts, cascades included." },
  { name: "cpa", type: "amount", unit: "currency", label: "CPA", group: "Core", source: "attempts", dateBasis: "attempt", operations: BOTH,
    description: "Acquisition cost: the campaign's CPA payout for each approved initial order." },
  { name: "cb_count", type: "int", unit: "count", label: "Chargebacks", group: "Chargebacks", source: "chargebacks", dateBasis: "attempt", operations: ["orders"],
    description: "Chargebacks, dated by the charged-back attempt's date." },
  { name: "cb_amount", type: "amount", unit: "currency", label: "Chargeback amount", group: "Chargebacks", source: "chargebacks", dateBasis: "attempt", operations: ["orders"],
    description: "Chargeback amount, dated by the charged-back attempt's date." },
  { name: "cb_count_by_cb_date", type: "int", unit: "count", label: "Chargebacks (by CB date)", group: "Chargebacks", source: "chargebacks", dateBasis: "chargeback", operations: ["orders"],
    description: "Chargebacks, dated by the chargeback date." },
  { name: "cb_amount_by_cb_date", type: "amount", unit: "currency", label: "Chargeback amount (by CB date)", group: "Chargebacks", source: "chargebacks", dateBasis: "chargeback", operations: ["orders"],
    description: "Chargeback amount, dated by the chargeback date." },
  { name: "refund_count", type: "int", unit: "count", label: "Refunds", group: "Refunds", source: "refunds", dateBasis: "attempt", operations: ["orders"],
    description: "Refunds, dated by the refunded attempt's date." },
  { name: "refund_amount", type: "amount", unit: "currency", label: "Refund amount", group: "Refunds", source: "refunds", dateBasis: "attempt", operations: ["orders"],
    description: "Refund amount, dated by the refunded attempt's date." },
  { name: "refund_count_by_refund_date", type: "int", unit: "count", label: "Refunds (by refund date)", group: "Refunds", source: "refunds", dateBasis: "refund", operations: ["orders"],
    description: "Refunds, dated by the refund date." },
  { name: "refund_amount_by_refund_date", type: "amount", unit: "currency", label: "Refund amount (by refund date)", group: "Refunds", source: "refunds", dateBasis: "refund", operations: ["orders"],
    description: "Refund amount, dated by the refund date." },
  { name: "alert_count", type: "int", unit: "count", label: "Alerts", group: "Alerts", source: "alerts", dateBasis: "attempt", operations: ["orders"],
    description: "Alerts, dated by the alerted attempt's date." },
  { name: "alert", type: "amount", unit: "currency", label: "Alert amount", group: "Alerts", source: "alerts", dateBasis: "attempt", operations: ["orders"],
    description: "Disputed amount of alerts, dated by the alerted attempt's date." },
  { name: "alert_count_by_alert_date", type: "int", unit: "count", label: "Alerts (by alert date)", group: "Alerts", source: "alerts", dateBasis: "alert", operations: ["orders"],
    description: "Alerts, dated by the alert date." },
  { name: "alert_by_alert_date", type: "amount", unit: "currency", label: "Alert amount (by alert date)", group: "Alerts", source: "alerts", dateBasis: "alert", operations: ["orders"],
    description: "Disputed amount of alerts, dated by the alert date." },
  { name: "initial_attempt", type: "int", unit: "count", label: "Initial attempts", group: "By sales type", source: "attempts", dateBasis: "attempt", operations: BOTH,
    description: "Attempts with billing cycle 0, excluding cascades." },
  { name: "initial_approved", type: "int", unit: "count", label: "Initial approvals", group: "By sales type", source: "attempts", dateBasis: "attempt", operations: BOTH,
    description: "Approvals with billing cycle 0, excluding cascades." },
  { name: "rebills_attempted", type: "int", unit: "count", label: "Rebill attempts", group: "By sales type", source: "attempts", dateBasis: "attempt", operations: BOTH,
    description: "Attempts with billing cycle ≥ 1, excluding cascades." },
  { name: "rebills_approved", type: "int", unit: "count", label: "Rebill approvals", group: "By sales type", source: "attempts", dateBasis: "attempt", operations: BOTH,
    description: "Approvals with billing cycle ≥ 1, excluding cascades." },
  { name: "net_approvals", type: "int", unit: "count", label: "Net approvals", group: "Other", source: "attempts", dateBasis: "attempt", operations: ["orders"],
    description: "Orders approved on any attempt, retries and cascades included." },
  { name: "approvals_organic", type: "int", unit: "count", label: "Organic approvals", group: "Other", source: "attempts", dateBasis: "attempt", operations: ["orders"],
    description: "Orders approved on their first attempt." },
  // Cohort summary (initial date)
  { name: "approvals_by_initial_date", type: "int", unit: "count", label: "Approvals", group: "Core", source: "attempts", dateBasis: "initial", operations: ["cohort"], twin: "approvals",
    description: "Approved attempts excluding cascades, attributed to the customer's initial date." },
  { name: "attempts_by_initial_date", type: "int", unit: "count", label: "Attempts", group: "Core", source: "attempts", dateBasis: "initial", operations: ["cohort"], twin: "attempts",
    description: "Attempts excluding cascades, attributed to the customer's initial date." },
  { name: "revenue_by_initial_date", type: "amount", unit: "currency", label: "Revenue", group: "Core", source: "attempts", dateBasis: "initial", operations: ["cohort"], twin: "revenue",
    description: "Approved amounts (cascades included), attributed to the customer's initial date." },
  { name: "cb_count_by_initial_date", type: "int", unit: "count", label: "Chargebacks", group: "Chargebacks", source: "chargebacks", dateBasis: "initial", operations: ["cohort"], twin: "cb_count",
    description: "Chargebacks, attributed to the customer's initial date." },
  { name: "cb_amount_by_initial_date", type: "amount", unit: "currency", label: "Chargeback amount", group: "Chargebacks", source: "chargebacks", dateBasis: "initial", operations: ["cohort"], twin: "cb_amount",
    description: "Chargeback amount, attributed to the customer's initial date." },
  { name: "refund_count_by_initial_date", type: "int", unit: "count", label: "Refunds", group: "Refunds", source: "refunds", dateBasis: "initial", operations: ["cohort"], twin: "refund_count",
    description: "Refunds, attributed to the customer's initial date." },
  { name: "refund_amount_by_initial_date", type: "amount", unit: "currency", label: "Refund amount", group: "Refunds", source: "refunds", dateBasis: "initial", operations: ["cohort"], twin: "refund_amount",
    description: "Refund amount, attributed to the customer's initial date." },
  { name: "alert_count_by_initial_date", type: "int", unit: "count", label: "Alerts", group: "Alerts", source: "alerts", dateBasis: "initial", operations: ["cohort"], twin: "alert_count",
    description: "Alerts, attributed to the customer's initial date." },
  { name: "alert_by_initial_date", type: "amount", unit: "currency", label: "Alert amount", group: "Alerts", source: "alerts", dateBasis: "initial", operations: ["cohort"], twin: "alert",
    description: "Disputed amount of alerts, attributed to the customer's initial date." },
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
const dimensionByName = new Map<string, DimensionDef>(DIMENSIONS.map((d) => [d.name, d]));
const metricByName = new Map<string, MetricDef>(METRICS.map((m) => [m.name, m]));

export function getDimension(name: string): DimensionDef | undefined {
  return dimensionByName.get(name);
}
export function getMetric(name: string): MetricDef | undefined {
  return metricByName.get(name);
}

/** Dimension names offered by an operation, in catalog order (which is also the default sort order). */
export function dimensionsFor(op: Operation): readonly DimensionDef[] {
  return DIMENSIONS.filter((d) => (d.operations as readonly Operation[]).includes(op));
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

export const LIMITS = {
  maxRangeDays: 100,
  /** The longest range the dashboard accepts; it splits it into calls of at most maxRangeDays. */
  maxDashboardRangeDays: 3660,
  maxGroupBy: 6,
  maxFilterValues: 100,
  maxPageSize: 1000,
  maxStringFilterLength: 256,
  maxBodyBytes: 64 * 1024,
} as const;
