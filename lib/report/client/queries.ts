/**
 * What the report pages fetch, as react-query options: a report keyed by its request (built by
 * lib/report/state), so two screens asking the same thing share one entry and one job (react-query
 * hashes a key's objects with their properties sorted, so the order they were written in does not
 * matter); the running job's progress beside it, in an entry of its own; a dashboard's look; and the
 * quota.
 */
import { keepPreviousData, queryOptions, skipToken, type QueryClient } from "@tanstack/react-query";
import type { Operation } from "@/lib/contract/catalog";
import type { ReportQuery } from "@/lib/contract/schemas";
import { runReport, type JobResult, type Progress } from "./api";
import { fetchUpstreamStatus, type UpstreamStatus } from "@/lib/core/api-client/fetch";

/** An answer with the request it answers, so that a kept-previous answer is drawn as what it was. */
export interface ReportData {
  op: Operation;
  request: ReportQuery;
  result: JobResult;
}

/** A report to run: which operation, with what request. */
export interface ReportAsked {
  op: Operation;
  request: ReportQuery;
}

/** Answers are cached by the dashboard's server too; re-running is cheap but costs a round trip. */
export const REPORT_STALE_MS = 5 * 60_000;

const reportKey = (asked: ReportAsked | null) => (asked === null ? (["report", null] as const) : (["report", asked.op, asked.request] as const));
const progressKey = (asked: ReportAsked | null) => (asked === null ? (["report-progress", null] as const) : (["report-progress", asked.op, asked.request] as const));

/** Whether any screen shows the entry. */
const watched = (client: QueryClient, queryKey: readonly unknown[]) => (client.getQueryCache().find({ queryKey, exact: true })?.getObserversCount() ?? 0) > 0;

/** A fetch's last progress, with the fetch that reported it: a fetch superseded by a newer one no longer writes. */
interface Told {
  by: AbortSignal;
  progress: Progress;
}

/**
 * A report by its request (null: nothing to run). Its fetch is cancelled (the job too, on the
 * server) when the client cancels it, when a refetch supersedes it, or when the last screen showing
 * it goes; on a cancel the entry reverts to what it held before.
 */
export function reportQuery(asked: ReportAsked | null) {
  return queryOptions({
    queryKey: reportKey(asked),
    queryFn:
      asked === null
        ? skipToken
        : async ({ signal, client }): Promise<ReportData> => {
            const at = progressKey(asked);
            // The first word is this fetch's (it is the newest); later ones only while no newer fetch has spoken.
            let first = true;
            const tell = (progress: Progress) => {
              if (first || client.getQueryData<Told>(at)?.by === signal) client.setQueryData<Told>(at, { by: signal, progress });
              first = false;
            };
            try {
              return { op: asked.op, request: asked.request, result: await runReport(asked.op, asked.request, { signal, onProgress: tell }) };
            } catch (e) {
              // Abandoned (no screen shows it any more): as if never asked, so a screen that shows it
              // again starts afresh rather than saying "cancelled"; a cancel keeps the progress that says so.
              if (signal.aborted && !watched(client, reportKey(asked)) && client.getQueryData<Told>(at)?.by === signal) client.removeQueries({ queryKey: at, exact: true });
              throw e;
            }
          },
    staleTime: REPORT_STALE_MS,
    // The previous answer stays on screen (dimmed) while the next one is fetched: no layout jump.
    placeholderData: keepPreviousData,
    // A report is asked for by a person; a connection coming back does not ask again on its own.
    refetchOnReconnect: false,
  });
}

/** What the report's running (or last) fetch reported; no data until it reports. Never fetched: its report's fetch writes it. */
export function reportProgressQuery(asked: ReportAsked | null) {
  return queryOptions({
    queryKey: progressKey(asked),
    queryFn: skipToken,
    select: (told: Told) => told.progress,
    staleTime: Infinity,
  });
}

/** Stops the report's fetch, if one runs; its entry reverts to what it held before. */
export function cancelReport(client: QueryClient, asked: ReportAsked): Promise<void> {
  return client.cancelQueries({ queryKey: reportKey(asked), exact: true });
}

/**
 * The shared quota, read again the moment the count can drop (the oldest call leaves the window)
 * and at the latest after `idleMs`; the status line also refreshes it whenever a report moves (a
 * call is spent). Never cached as fresh: every screen that shows it reads it.
 */
export function upstreamStatusQuery(idleMs: number) {
  return queryOptions({
    queryKey: ["upstream-status"],
    queryFn: ({ signal }): Promise<UpstreamStatus> => fetchUpstreamStatus(signal),
    staleTime: 0,
    refetchInterval: (query) => (query.state.data ? upstreamStatusDelay(query.state.data, idleMs) : false),
    refetchOnReconnect: false,
  });
}

/** How long until the quota is read again. */
function upstreamStatusDelay(status: UpstreamStatus, idleMs: number): number {
  const freeAt = status.next_free_at;
  if (!freeAt) return idleMs;
  return Math.min(idleMs, Math.max(100, Date.parse(freeAt) - Date.now() + 100));
}
