/**
 * How each catalog dimension and metric maps onto the tables. The `satisfies Record<…>` clauses make
 * the compiler refuse a catalog entry without a mapping, so the catalog stays the one list.
 *
 * SQL text built from here contains only these fixed fragments; every value is a bound parameter.
 */
import { EVENT_FACTS, FACT_TABLES, type FactTable } from "./facts";
import { METRICS, type DateBasis, type DimensionName, type MetricName, type Operation } from "@/lib/contract/catalog";

/** Fact a branch of the query reads: attempts alone, or an event table joined to its attempt. */
export const FACT_SOURCES = FACT_TABLES;
export type FactSource = FactTable;
export const isFactSource = (table: string): table is FactSource => (FACT_SOURCES as readonly string[]).includes(table);

/** Event facts carry a copy of their attempt's columns (service/data/derived.ts), so `a.` works on them too. */
export const EVENT_TABLES = {
  chargebacks: { table: EVENT_FACTS.chargebacks.facts, date: "a.event_date" },
  refunds: { table: EVENT_FACTS.refunds.facts, date: "a.event_date" },
  alerts: { table: EVENT_FACTS.alerts.facts, date: "a.event_date" },
} as const;

/** A reference table that names a key dimension (product_id → products, …). */
export interface Reference {
  table: string;
  alias: string;
  key: string;
}
const products: Reference = { table: "products", alias: "rp", key: "product_id" };
const campaigns: Reference = { table: "campaigns", alias: "rc", key: "campaign_id" };
const gateways: Reference = { table: "gateways", alias: "rg", key: "gateway_id" };
const bins: Reference = { table: "bins", alias: "rb", key: "bin" };

export type DimensionColumn =
  /** A column of the fact rows, in each operation's own terms. */
  | { kind: "key"; orders: string; cohort: string; sqlType: "DATE" | "INTEGER" | "VARCHAR" | "CENTS"; onlyOn?: FactSource }
  /** A column of a reference table, reached through a key dimension. */
  | { kind: "ref"; key: DimensionName; ref: Reference; column: string };

// In cohorts, the acquisition dimensions describe the customer's initial order (`cu`); the rest
// describe the event itself. `$date` stands for the date column of the branch (`rangeColumn`).
export const DIMENSION_COLUMNS = {
  date: { kind: "key", orders: "$date", cohort: "a.initial_date", sqlType: "DATE" },
  campaign_id: { kind: "key", orders: "a.campaign_id", cohort: "cu.campaign_id", sqlType: "INTEGER" },
  product_id: { kind: "key", orders: "a.product_id", cohort: "cu.product_id", sqlType: "INTEGER" },
  gateway_id: { kind: "key", orders: "a.gateway_id", cohort: "a.gateway_id", sqlType: "INTEGER" },
  bin: { kind: "key", orders: "a.bin", cohort: "a.bin", sqlType: "VARCHAR" },
  affid: { kind: "key", orders: "a.affid", cohort: "cu.affid", sqlType: "VARCHAR" },
  sub_affid: { kind: "key", orders: "a.sub_affid", cohort: "cu.sub_affid", sqlType: "VARCHAR" },
  sales_type: { kind: "key", orders: "a.sales_type", cohort: "a.sales_type", sqlType: "VARCHAR" },
  refund_type: { kind: "key", orders: "a.refund_type", cohort: "a.refund_type", sqlType: "VARCHAR", onlyOn: "refunds" },
  billing_cycle: { kind: "key", orders: "a.billing_cycle", cohort: "a.billing_cycle", sqlType: "INTEGER" },
  attempt_col: { kind: "key", orders: "a.attempt_no", cohort: "a.attempt_no", sqlType: "INTEGER" },
  price_point: { kind: "key", orders: "a.price_point_cents", cohort: "cu.price_point_cents", sqlType: "CENTS" },
  alert_type: { kind: "key", orders: "a.alert_type", cohort: "a.alert_type", sqlType: "VARCHAR", onlyOn: "alerts" },
  product_name: { kind: "ref", key: "product_id", ref: products, column: "product_name" },
  product_group: { kind: "ref", key: "product_id", ref: products, column: "product_group" },
  campaign_name: { kind: "ref", key: "campaign_id", ref: campaigns, column: "campaign_name" },
  campaign_type: { kind: "ref", key: "campaign_id", ref: campaigns, column: "campaign_type" },
  mcc: { kind: "ref", key: "gateway_id", ref: gateways, column: "mcc" },
  acquirer: { kind: "ref", key: "gateway_id", ref: gateways, column: "acquirer" },
  gateway_alias: { kind: "ref", key: "gateway_id", ref: gateways, column: "gateway_alias" },
  bank: { kind: "ref", key: "bin", ref: bins, column: "bank" },
  card_brand: { kind: "ref", key: "bin", ref: bins, column: "card_brand" },
  card_type: { kind: "ref", key: "bin", ref: bins, column: "card_type" },
} as const satisfies Record<DimensionName, DimensionColumn>;

export interface MetricColumn {
  /**
   * The metric as an aggregate over a branch's fact rows (null when no row qualifies). `a` is the
   * attempt or event fact row, `cp` the attempt's campaign. Counts are `count(*) FILTER (…)`: on the
   * ten million rows of a grain build that is about half the cost of summing 0/1 flags.
   */
  agg: string;
  /** The branch that produces it: the fact table, and whether it is dated by the event's own date. */
  source: FactSource;
  byEventDate: boolean;
  needsCampaign?: boolean;
}

const notCascade = "NOT a.is_cascade";
const attemptMetrics = {
  attempts: `count(*) FILTER (${notCascade})`,
  approvals: `count(*) FILTER (a.approved AND ${notCascade})`,
  revenue: "sum(a.amount_cents) FILTER (a.approved)",
  initial_attempt: `count(*) FILTER (${notCascade} AND a.billing_cycle = 0)`,
  initial_approved: `count(*) FILTER (a.approved AND ${notCascade} AND a.billing_cycle = 0)`,
  rebills_attempted: `count(*) FILTER (${notCascade} AND a.billing_cycle >= 1)`,
  rebills_approved: `count(*) FILTER (a.approved AND ${notCascade} AND a.billing_cycle >= 1)`,
  net_approvals: "count(*) FILTER (a.approved)",
  approvals_organic: "count(*) FILTER (a.approved AND a.attempt_no = 1)",
};
const cpa = "sum(cp.cpa_cents) FILTER (a.approved AND a.billing_cycle = 0)";
const eventCount = "count(*)";
const eventAmount = "sum(a.event_amount_cents)";

type Aggregate = Pick<MetricColumn, "agg" | "needsCampaign">;
const AGGREGATES = {
  attempts: { agg: attemptMetrics.attempts },
  approvals: { agg: attemptMetrics.approvals },
  revenue: { agg: attemptMetrics.revenue },
  cpa: { agg: cpa, needsCampaign: true },
  cb_count: { agg: eventCount },
  cb_amount: { agg: eventAmount },
  cb_count_by_cb_date: { agg: eventCount },
  cb_amount_by_cb_date: { agg: eventAmount },
  refund_count: { agg: eventCount },
  refund_amount: { agg: eventAmount },
  refund_count_by_refund_date: { agg: eventCount },
  refund_amount_by_refund_date: { agg: eventAmount },
  alert_count: { agg: eventCount },
  alert: { agg: eventAmount },
  alert_count_by_alert_date: { agg: eventCount },
  alert_by_alert_date: { agg: eventAmount },
  initial_attempt: { agg: attemptMetrics.initial_attempt },
  initial_approved: { agg: attemptMetrics.initial_approved },
  rebills_attempted: { agg: attemptMetrics.rebills_attempted },
  rebills_approved: { agg: attemptMetrics.rebills_approved },
  net_approvals: { agg: attemptMetrics.net_approvals },
  approvals_organic: { agg: attemptMetrics.approvals_organic },
  approvals_by_initial_date: { agg: attemptMetrics.approvals },
  attempts_by_initial_date: { agg: attemptMetrics.attempts },
  revenue_by_initial_date: { agg: attemptMetrics.revenue },
  cb_count_by_initial_date: { agg: eventCount },
  cb_amount_by_initial_date: { agg: eventAmount },
  refund_count_by_initial_date: { agg: eventCount },
  refund_amount_by_initial_date: { agg: eventAmount },
  alert_count_by_initial_date: { agg: eventCount },
  alert_by_initial_date: { agg: eventAmount },
} as const satisfies Record<MetricName, Aggregate>;

/** Dated by the event's own date (a chargeback's, a refund's, an alert's), not the attempt's or the initial one. */
const EVENT_DATE_BASES: readonly DateBasis[] = ["chargeback", "refund", "alert"];

/**
 * Each metric's SQL: its aggregate from above, and its branch (fact table and date) from the
 * catalog's `source` and `dateBasis`, never restated here.
 */
export const METRIC_COLUMNS: Readonly<Record<MetricName, MetricColumn>> = Object.fromEntries(
  METRICS.map((m): [MetricName, MetricColumn] => [m.name, { ...AGGREGATES[m.name], source: m.source, byEventDate: EVENT_DATE_BASES.includes(m.dateBasis) }]),
) as Record<MetricName, MetricColumn>;

/** Where the date range applies in a branch of each operation. */
export function rangeColumn(op: Operation, source: FactSource, byEventDate: boolean): string {
  if (op === "cohort") return "a.initial_date";
  if (source !== "attempts" && byEventDate) return EVENT_TABLES[source].date;
  return "a.attempt_date";
}
