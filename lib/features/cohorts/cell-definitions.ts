/** What a cell of the retention grid shows: its label in pickers and exports, and its definition. */
import type { CohortCell } from "@/lib/report/state/cohort";
import { CELL_LABELS } from "./labels";

export const CELL_DEFINITIONS: Record<CohortCell, { label: string; description: string }> = {
  retention: { label: CELL_LABELS.retention, description: "Retention: approvals in billing cycle k ÷ approvals in cycle 0 (the cohort's initial orders)." },
  previous: { label: CELL_LABELS.previous, description: "Step retention: approvals in cycle k ÷ approvals in cycle k − 1." },
  revenue: { label: CELL_LABELS.revenue, description: "Revenue of the cohort's approved attempts in cycle k." },
  ltv: {
    label: CELL_LABELS.ltv,
    description: "Lifetime value to date: (revenue − refunds − chargebacks − CPA) summed over cycles 0 to k ÷ the cohort's initial approvals.",
  },
};
