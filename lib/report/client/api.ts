/**
 * The browser's side of running a report: answer at once, or a job to poll until it is done, failed
 * or cancelled, and cancel it when the caller's AbortSignal fires. The plain calls (`apiFetch`, the
 * quota) are in ./fetch.ts, re-exported here; routing a BIN is ./route-bin.ts.
 */
import type { Operation } from "@/lib/contract/catalog";
import { OPERATION_TABLE } from "@/lib/contract/operations";
import type { ReportQuery } from "@/lib/contract/schemas";
import type { JobResult, JobStatus, JobView } from "@/lib/core/upstream/gateway";
import { actionFor, errorFrom, JSON_HEADERS, RequestError, send } from "@/lib/core/api-client/fetch";

export type { JobResult, JobStatus, JobView };

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    if (ms <= 0) return resolve();
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** How long to wait before asking again: near the estimated start when queued, briskly while fetching. */
export function pollDelay(status: JobStatus, now: number): number {
  if (status.state === "queued") {
    const until = Date.parse(status.waiting_for_rate_limit_until ?? status.estimated_start);
    return Math.min(5_000, Math.max(1_000, Number.isFinite(until) ? until - now : 1_000));
  }
  return 750;
}

export interface Progress {
  jobId: string | null;
  status: JobStatus | { state: "submitting" };
  /** When the status was received (ms since epoch), to turn estimated times into waits. */
  at: number;
}

export interface RunOptions {
  signal: AbortSignal;
  onProgress?: (p: Progress) => void;
}

/** Asks the job to stop; fire-and-forget, and it must outlive the page when the user navigates away. */
export function cancelJob(id: string): void {
  void fetch(`/api/reports/jobs/${encodeURIComponent(id)}`, { method: "DELETE", credentials: "same-origin", keepalive: true }).catch(() => undefined);
}

/** How long the server may hold a request open for the answer (its long polling), at most. */
export const LONG_POLL_MS = 2_000;

type Answer = JobView | { id?: undefined; status: { state: "done"; result: JobResult } };

/**
 * Runs a report to completion. The first request and each poll ask the server to hold on until the
 * job finishes or `pollDelay` passes (`?wait=`), so a fast report is one round trip and progress is
 * refreshed at the same pace; a server without long polling is simply polled at that pace. Aborting
 * the signal cancels the job on the server too.
 */
export async function runReport(op: Operation, request: ReportQuery, { signal, onProgress }: RunOptions): Promise<JobResult> {
  onProgress?.({ jobId: null, status: { state: "submitting" }, at: Date.now() });
  const res = await send(`${OPERATION_TABLE[op].dashboardPath}?wait=${LONG_POLL_MS}`, { method: "POST", headers: JSON_HEADERS, body: JSON.stringify(request), signal });
  if (res.status !== 200 && res.status !== 202) throw await errorFrom(res);
  let answer = (await res.json()) as Answer;
  let failures = 0;
  try {
    for (;;) {
      const at = Date.now();
      onProgress?.({ jobId: answer.id ?? null, status: answer.status, at });
      const status = answer.status;
      switch (status.state) {
        case "done":
          return status.result;
        case "failed":
          throw new RequestError(status.error.status, status.error.message, status.error.action);
        case "cancelled":
          throw new RequestError(499, "The report was cancelled.", "Run the report again to start over.");
      }
      if (!answer.id) throw new RequestError(502, "The dashboard sent an answer it should not have.", actionFor(500));
      const delay = pollDelay(status, at);
      try {
        const started = Date.now();
        const poll = await send(`/api/reports/jobs/${encodeURIComponent(answer.id)}?wait=${delay}`, { headers: { Accept: "application/json" }, signal });
        if (!poll.ok) {
          if (poll.status === 404) throw new RequestError(404, "The report job is gone (it expired or the dashboard restarted).", actionFor(404));
          throw await errorFrom(poll);
        }
        const next = (await poll.json()) as JobView;
        failures = 0;
        const unfinished = next.status.state === "queued" || next.status.state === "fetching";
        // A server that answered at once (no long polling) is asked again only after the delay.
        if (unfinished) await sleep(delay - (Date.now() - started), signal);
        answer = next;
      } catch (e) {
        // A dropped connection while polling is not the report's failure: try a few more times.
        if (e instanceof RequestError && e.status === 0 && ++failures < 4) {
          await sleep(1_000 * failures, signal);
          continue;
        }
        throw e;
      }
    }
  } catch (e) {
    if (signal.aborted && answer.id) {
      cancelJob(answer.id);
      onProgress?.({ jobId: answer.id, status: { state: "cancelled" }, at: Date.now() });
    }
    throw e;
  }
}

