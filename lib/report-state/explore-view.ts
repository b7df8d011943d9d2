/**
 * Explore's view enumerations and each report's default columns (re-exported by ./explore.ts): apart
 * from the URL's parser and writer, which the page's first paint does not load (the server
 * parses the URL the page opens with, ./explore-look.ts).
 */
import type { Operation } from "@/lib/contract/operations";

export const CHART_KINDS = ["auto", "line", "bar", "none"] as const;
export type ChartKind = (typeof CHART_KINDS)[number];
/** What the chart controls call each kind. */
export const CHART_LABELS: Record<ChartKind, string> = { auto: "Automatic", line: "Lines", bar: "Bars", none: "Off" };

/** How the results table lays the rows out: one row per record, or the last grouped dimension as columns. */
export const TABLE_LAYOUTS = ["rows", "pivot"] as const;
export type TableLayout = (typeof TABLE_LAYOUTS)[number];

/** A report's columns and grouping when the URL names none (a test checks them against the catalog). */
export const DEFAULTS: Record<Operation, { groupBy: readonly string[]; metrics: readonly string[]; kpis: readonly string[] }> = {
  orders: {
    groupBy: ["date"],
    metrics: ["attempts", "approvals", "revenue", "cb_count", "cb_amount", "refund_count", "refund_amount"],
    kpis: ["approval_rate", "cb_rate_count", "refund_rate", "net_revenue"],
  },
  cohort: {
    groupBy: ["date"],
    metrics: ["attempts_by_initial_date", "approvals_by_initial_date", "revenue_by_initial_date", "cpa"],
    kpis: ["approval_rate", "net_revenue_per_customer"],
  },
};

/** The defaults a picker's "reset" restores. */
export function defaultColumns(op: Operation): { metrics: string[]; kpis: string[] } {
  return { metrics: [...DEFAULTS[op].metrics], kpis: [...DEFAULTS[op].kpis] };
}
