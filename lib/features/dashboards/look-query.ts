/** The browser's query for a dashboard's look: held open on the server, asked again while a tile waits. */
import { keepPreviousData, queryOptions, skipToken } from "@tanstack/react-query";
import { apiFetch } from "@/lib/core/api-client/fetch";
import type { DashboardAnswer } from "./answer";

/** How long one look at a dashboard may wait on the server for the next answer. */
const LOOK_WAIT_MS = 2_000;

/** Ask again while any tile waits; each look is held open on the server until an answer arrives. */
const askAgain = (answer: DashboardAnswer | undefined) => (answer?.tiles.some((t) => t.outcome.status === "pending") ? 200 : false);

/**
 * A dashboard's look by its settings (null: none yet) and the saved dashboard it is, asked again
 * while any tile waits; `initial` is the server's look at these very settings, drawn into the page's
 * HTML, which the entry starts from instead of fetching.
 */
export function dashboardQuery(params: string | null, savedId: string | null, initial: DashboardAnswer | undefined) {
  return queryOptions({
    queryKey: ["dashboard", params, savedId],
    queryFn:
      params === null
        ? skipToken
        : ({ signal }) => apiFetch<DashboardAnswer>(`/api/dashboards/run?wait=${LOOK_WAIT_MS}`, { method: "POST", body: { params, ...(savedId ? { id: savedId } : {}) }, signal }),
    initialData: initial,
    // The grid on screen stays while the next answer loads, so an arranging button keeps its place.
    placeholderData: keepPreviousData,
    refetchInterval: (query) => askAgain(query.state.data),
    staleTime: 60_000,
    refetchOnReconnect: false,
  });
}
