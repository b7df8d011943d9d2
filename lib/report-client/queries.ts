/**
 * react-query option factories. A report's key is its canonical request (built by lib/report-state),
 * so two screens asking the same thing share one cache entry and one job. Progress of the running
 * job lives under a sibling key that the fetch writes and the status line reads.
 */
import { keepPreviousData, queryOptions, skipToken } from "@tanstack/react-query";
import type { Operation } from "@/lib/contract/catalog";
import type { ReportQuery } from "@/lib/contract/schemas";
import { fetchUpstreamStatus, runReport, type JobResult, type Progress } from "./api";

export const reportKeys = {
  all: ["report"] as const,
  report: (op: Operation, request: ReportQuery) => ["report", op, request] as const,
  progress: (op: Operation, request: ReportQuery) => ["report-progress", op, request] as const,
};

/** An answer with the request it answers, so that a kept-previous answer is drawn as what it was. */
export interface ReportData {
  op: Operation;
  request: ReportQuery;
  result: JobResult;
}

export function reportQueryOptions(op: Operation, request: ReportQuery) {
  return queryOptions({
    queryKey: reportKeys.report(op, request),
    queryFn: async ({ signal, client }): Promise<ReportData> => {
      const result = await runReport(op, request, {
        signal,
        onProgress: (p) => client.setQueryData(reportKeys.progress(op, request), p),
      });
      return { op, request, result };
    },
    // The previous answer stays on screen (dimmed) while the next one is fetched: no layout jump.
    placeholderData: keepPreviousData,
    // Answers are cached by the dashboard's server too; re-running is cheap but costs a round trip.
    staleTime: 5 * 60_000,
    gcTime: 30 * 60_000,
    retry: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
}

/** Read-only view of a report's progress (written by the report's fetch, never fetched itself). */
export function reportProgressOptions(op: Operation, request: ReportQuery) {
  return queryOptions<Progress | null>({
    queryKey: reportKeys.progress(op, request),
    queryFn: skipToken,
    staleTime: Infinity,
    gcTime: 30 * 60_000,
  });
}

/**
 * The shared quota as the dashboard's server counts it. Read again the moment the count can drop
 * (the oldest call leaves the window), and at the latest after `idleMs`; the status line also
 * refreshes it whenever a report moves (a call is spent).
 */
export function upstreamStatusOptions(idleMs: number) {
  return queryOptions({
    queryKey: UPSTREAM_STATUS_KEY,
    queryFn: ({ signal }) => fetchUpstreamStatus(signal),
    refetchInterval: (query) => {
      const freeAt = query.state.data?.next_free_at;
      if (!freeAt) return idleMs;
      return Math.min(idleMs, Math.max(100, Date.parse(freeAt) - Date.now() + 100));
    },
    staleTime: 0,
    retry: false,
  });
}

export const UPSTREAM_STATUS_KEY = ["upstream-status"] as const;
