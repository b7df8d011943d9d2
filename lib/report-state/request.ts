/**
 * Report state → the body the dashboard's report API takes. Built the same way every time (metrics
 * in catalog order, filter keys in catalog order, values sorted), so it doubles as the query key.
 */
import { metricsFor, type Operation } from "@/lib/contract/catalog";
import type { ReportQuery } from "@/lib/contract/schemas";
import { getKpi, requiredMetrics } from "@/lib/metrics/kpis";
import { comparisonRange } from "@/lib/periods/compare";
import type { CohortState } from "./cohort";
import type { ExploreState } from "./explore";
import { requestFilters, type Filters } from "./filters";
import { resolveRange, type RangeSelection } from "./range";

export interface ReportRequestSpec {
  op: Operation;
  request: ReportQuery;
}

function inCatalogOrder(op: Operation, names: Iterable<string>): string[] {
  const wanted = new Set(names);
  return metricsFor(op)
    .map((m) => m.name)
    .filter((m) => wanted.has(m));
}

function base(range: RangeSelection, today: string, filters: Filters): Pick<ReportQuery, "start_date" | "end_date" | "filters"> {
  const r = resolveRange(range, today);
  const f = requestFilters(filters);
  return { start_date: r.start, end_date: r.end, ...(f ? { filters: f } : {}) };
}

/** The metrics Explore fetches: those shown, plus whatever the shown KPIs are computed from. */
export function exploreMetrics(state: Pick<ExploreState, "op" | "metrics" | "kpis">): string[] {
  const needed = new Set(state.metrics);
  for (const id of state.kpis) {
    const kpi = getKpi(id);
    if (kpi) for (const m of requiredMetrics(kpi, state.op)) needed.add(m);
  }
  return inCatalogOrder(state.op, needed);
}

/**
 * The same request over the comparison's days, or null without a comparison. A coarser grain needs
 * no request of its own: both are daily answers, rolled up in the browser.
 */
export function comparisonRequest(state: ExploreState, today: string): ReportRequestSpec | null {
  const main = exploreRequest(state, today);
  const cmp = comparisonRange({ start: main.request.start_date, end: main.request.end_date }, state.compare);
  return cmp ? { op: main.op, request: { ...main.request, start_date: cmp.start, end_date: cmp.end } } : null;
}

export function exploreRequest(state: ExploreState, today: string): ReportRequestSpec {
  return {
    op: state.op,
    request: {
      ...base(state.range, today, state.filters),
      group_by: [...state.groupBy],
      metrics: exploreMetrics(state),
    },
  };
}

/** What the retention grid is computed from (docs/metrics.md, "Cohorts"). */
export const COHORT_GRID_METRICS = [
  "approvals_by_initial_date",
  "revenue_by_initial_date",
  "refund_amount_by_initial_date",
  "cb_amount_by_initial_date",
  "cpa",
] as const;

export function cohortRequest(state: CohortState, today: string): ReportRequestSpec {
  return {
    op: "cohort",
    request: {
      ...base(state.range, today, state.filters),
      group_by: ["date", "billing_cycle"],
      metrics: inCatalogOrder("cohort", COHORT_GRID_METRICS),
    },
  };
}
