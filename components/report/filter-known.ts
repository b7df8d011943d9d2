/** What the dashboard has seen of a dimension's values, from answers it already holds (no upstream call). */
import { apiFetch } from "@/lib/core/api-client/fetch";
import type { KnownValues } from "@/lib/report/state/filter-input";

/** GET /api/reports/suggestions; a courtesy: when it cannot be had, nothing is known and forms work without it. */
export function fetchKnownValues(dimension: string, signal?: AbortSignal): Promise<KnownValues> {
  return apiFetch<KnownValues>(`/api/reports/suggestions?dimension=${encodeURIComponent(dimension)}`, { signal }).then(
    (b) => ({ values: b.values, reports: b.reports, complete: b.complete }),
    () => ({ values: [], reports: 0, complete: false }),
  );
}
