/**
 * What each derived KPI means: for the Metrics page and Explore's metric picker, which its server
 * page hands the words as data. Apart from the registry (./kpis.ts), which the report pages' browser
 * code loads to check and compute KPIs. Typed by the KPIs' ids, so a KPI added without its
 * description does not compile.
 */
import type { KpiId } from "./kpis";
import { MATURITY_WINDOW_DAYS as W } from "@/lib/contract/catalog";

export const KPI_DESCRIPTIONS: Readonly<Record<KpiId, string>> = {
  approval_rate: "Approvals ÷ attempts (cascades excluded from both).",
  cb_rate_count: `Chargebacks ÷ approvals, both dated by the attempt (cohorts: by the initial date). Maturing for sales under ${W.chargebacks} days old: their chargebacks are still arriving.`,
  cb_rate_amount: `Chargeback amount ÷ revenue, both dated by the attempt (cohorts: by the initial date). Maturing for sales under ${W.chargebacks} days old.`,
  refund_rate: `Refunds ÷ approvals, both dated by the attempt (cohorts: by the initial date). Maturing for sales under ${W.refunds} days old.`,
  alert_rate: `Alerts ÷ approvals, both dated by the attempt (cohorts: by the initial date). Maturing for sales under ${W.alerts} days old.`,
  cb_rate_count_by_cb_date: "Chargebacks received in the period (by chargeback date) ÷ the period's approvals: how the card networks count, and complete for any past period.",
  cb_rate_amount_by_cb_date: "Chargeback amount received in the period (by chargeback date) ÷ the period's revenue; complete for any past period.",
  refund_rate_by_refund_date: "Refunds made in the period (by refund date) ÷ the period's approvals; complete for any past period.",
  alert_rate_by_alert_date: "Alerts received in the period (by alert date) ÷ the period's approvals; complete for any past period.",
  net_revenue: "Revenue − refund amount − chargeback amount.",
  aov: "Revenue ÷ approvals.",
  net_revenue_per_customer: "(Revenue − refunds − chargebacks − CPA) ÷ initial approvals.",
};

/** A KPI's description by its id (undefined for an id the registry does not have). */
export function kpiDescription(id: string): string | undefined {
  return Object.hasOwn(KPI_DESCRIPTIONS, id) ? KPI_DESCRIPTIONS[id as KpiId] : undefined;
}
