/**
 * Report state → the body the dashboard's report API takes. Built the same way every time (metrics
 * in catalog order, filter keys in catalog order, values sorted), so it doubles as the query key.
 */
import { metricsFor, type Operation } from "@/lib/contract/catalog";
import { getKpi, requiredMetrics } from "@/lib/metrics/kpis";
import { comparisonRange } from "@/lib/periods/compare";
import type { ExploreState } from "./explore";
import { requestBase as base, type ReportRequestSpec } from "./request-base";

// Cohorts' request asks for a fixed set of metrics and needs neither the KPI registry nor the
// metrics' catalog: it has a module of its own, which its page loads.
export { COHORT_GRID_METRICS, cohortRequest } from "./cohort-request";
export type { ReportRequestSpec } from "./request-base";

function inCatalogOrder(op: Operation, names: Iterable<string>): string[] {
  const wanted = new Set(names);
  return metricsFor(op)
    .map((m) => m.name)
    .filter((m) => wanted.has(m));
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
