/**
 * The retention grid's words and billing schedule, apart from the grid's math (grid.ts, which
 * re-exports them), so the Cohorts page draws its options and captions without loading the math.
 */
import type { CohortCell, CohortRows } from "@/lib/report-state/cohort";

export interface CohortSchedule {
  trialDays: number;
  periodDays: number;
}

export function cycleOffsetDays(k: number, s: CohortSchedule): number {
  return k <= 0 ? 0 : s.trialDays + s.periodDays * (k - 1);
}

/** What a cell of the retention grid shows: its label in pickers and exports, and its definition. */
export const CELL_DEFINITIONS: Record<CohortCell, { label: string; description: string }> = {
  retention: { label: "Approvals, % of cycle 0", description: "Retention: approvals in billing cycle k ÷ approvals in cycle 0 (the cohort's initial orders)." },
  previous: { label: "Approvals, % of the previous cycle", description: "Step retention: approvals in cycle k ÷ approvals in cycle k − 1." },
  revenue: { label: "Revenue", description: "Revenue of the cohort's approved attempts in cycle k." },
  ltv: {
    label: "Cumulative net revenue per customer",
    description: "Lifetime value to date: (revenue − refunds − chargebacks − CPA) summed over cycles 0 to k ÷ the cohort's initial approvals.",
  },
};

export const ROW_LABELS: Record<CohortRows, string> = { day: "Signup day", week: "Signup week", month: "Signup month" };

/** "Approvals, % of cycle 0 by signup week and billing cycle": the grid's caption, on every page that draws it. */
export function cohortCaption(cell: CohortCell, rows: CohortRows): string {
  return `${CELL_DEFINITIONS[cell].label} by ${ROW_LABELS[rows].toLowerCase()} and billing cycle`;
}
