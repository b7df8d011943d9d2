/**
 * What each derived KPI means: for the Metrics page and Explore's metric picker, which its server
 * page hands the words as data. Apart from the registry (./kpis.ts), which the report pages' browser
 * code loads to check and compute KPIs (issue 21). Typed by the KPIs' ids, so a KPI added without its
 * description does not compile.
 */
import type { KpiId } from "./kpis";

export const KPI_DESCRIPTIONS: Readonly<Record<KpiId, string>> = {
  approval_rate: "Approvals ÷ attempts (cascades excluded from both).",
  cb_rate_count: "Chargebacks ÷ approvals, both dated by the attempt (cohorts: by the initial date).",
  cb_rate_amount: "Chargeback amount ÷ revenue, both dated by the attempt (cohorts: by the initial date).",
  refund_rate: "Refunds ÷ approvals, both dated by the attempt (cohorts: by the initial date).",
  alert_rate: "Alerts ÷ approvals, both dated by the attempt (cohorts: by the initial date).",
  net_revenue: "Revenue − refund amount − chargeback amount.",
  aov: "Revenue ÷ approvals.",
  net_revenue_per_customer: "(Revenue − refunds − chargebacks − CPA) ÷ initial approvals.",
};

/** A KPI's description by its id (undefined for an id the registry does not have). */
export function kpiDescription(id: string): string | undefined {
  return Object.hasOwn(KPI_DESCRIPTIONS, id) ? KPI_DESCRIPTIONS[id as KpiId] : undefined;
}
