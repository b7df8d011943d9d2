/**
 * What each catalog metric means (re-exported by ./catalog.ts): for the Metrics page, the OpenAPI
 * document and Explore's metric picker, which its server page hands the words as data. Apart from the
 * metrics themselves, which the report pages' browser code loads to check and label metrics (issue
 * 21). Typed by the metrics' names, so a metric added without its description does not compile.
 */
import type { MetricName } from "./catalog";

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
