/**
 * What the report pages fetch through the browser's answer cache (./cache.ts, ./use-answer.ts): a
 * report keyed by its canonical request (built by lib/report-state), so two screens asking the same
 * thing share one entry and one job, with the running job's progress beside it; and the quota.
 */
import type { Operation } from "@/lib/contract/catalog";
import type { ReportQuery } from "@/lib/contract/schemas";
import { runReport, type JobResult, type Progress } from "./api";
import { fetchUpstreamStatus, type UpstreamStatus } from "./fetch";
import type { Fetcher } from "./cache";

/** An answer with the request it answers, so that a kept-previous answer is drawn as what it was. */
export interface ReportData {
  op: Operation;
  request: ReportQuery;
  result: JobResult;
}

/** Answers are cached by the dashboard's server too; re-running is cheap but costs a round trip. */
export const REPORT_STALE_MS = 5 * 60_000;

export function reportFetcher(op: Operation, request: ReportQuery): Fetcher<ReportData, Progress> {
  return async (signal, onProgress) => ({ op, request, result: await runReport(op, request, { signal, onProgress }) });
}

export const UPSTREAM_STATUS_KEY = "upstream-status";

export const upstreamStatusFetcher: Fetcher<UpstreamStatus, never> = (signal) => fetchUpstreamStatus(signal);

/**
 * When to read the shared quota again: the moment the count can drop (the oldest call leaves the
 * window), and at the latest after `idleMs`; the status line also refreshes it whenever a report
 * moves (a call is spent).
 */
export function upstreamStatusDelay(idleMs: number): (status: UpstreamStatus) => number {
  return (status) => {
    const freeAt = status.next_free_at;
    if (!freeAt) return idleMs;
    return Math.min(idleMs, Math.max(100, Date.parse(freeAt) - Date.now() + 100));
  };
}
