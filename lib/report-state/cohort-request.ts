/**
 * Cohorts' request (re-exported by ./request.ts). Its metrics are fixed, so they are listed here in
 * catalog order (state.test.ts checks that order against the catalog) rather than sorted with the
 * catalog's metrics, which the Cohorts page then does not load.
 */
import type { CohortState } from "./cohort";
import { requestBase, type ReportRequestSpec } from "./request-base";

/** What the retention grid is computed from (docs/metrics.md, "Cohorts"), in catalog order. */
export const COHORT_GRID_METRICS = ["cpa", "approvals_by_initial_date", "revenue_by_initial_date", "cb_amount_by_initial_date", "refund_amount_by_initial_date"] as const;

export function cohortRequest(state: CohortState, today: string): ReportRequestSpec {
  return {
    op: "cohort",
    request: {
      ...requestBase(state.range, today, state.filters),
      group_by: ["date", "billing_cycle"],
      metrics: [...COHORT_GRID_METRICS],
    },
  };
}
