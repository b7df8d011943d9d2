/**
 * The retention grid's words and billing schedule, apart from the grid's math (grid.ts, which
 * re-exports them), so the Cohorts page draws its options and captions without loading the math.
 */
import type { CohortCell, CohortRows } from "@/lib/report/state/cohort";

export interface CohortSchedule {
  trialDays: number;
  periodDays: number;
}

export function cycleOffsetDays(k: number, s: CohortSchedule): number {
  return k <= 0 ? 0 : s.trialDays + s.periodDays * (k - 1);
}

/**
 * A cell's label in pickers, captions and exports. What each means is ./cell-definitions.ts (the
 * Metrics page's), which the Cohorts page's first load does not need.
 */
export const CELL_LABELS: Record<CohortCell, string> = {
  retention: "Approvals, % of cycle 0",
  previous: "Approvals, % of the previous cycle",
  revenue: "Revenue",
  ltv: "Cumulative net revenue per customer",
};

export const ROW_LABELS: Record<CohortRows, string> = { day: "Signup day", week: "Signup week", month: "Signup month" };

/** "Approvals, % of cycle 0 by signup week and billing cycle": the grid's caption, on every page that draws it. */
export function cohortCaption(cell: CohortCell, rows: CohortRows): string {
  return `${CELL_LABELS[cell]} by ${ROW_LABELS[rows].toLowerCase()} and billing cycle`;
}
