import "server-only";
/**
 * Fetching one report from the upstream: split its range into pieces the contract accepts, fetch
 * every page of each through the quota queue (a 429 pauses the queue for its Retry-After and the call
 * is retried), refuse past the page cap, and merge the pieces into one answer. Separate from jobs and
 * the cache because it is the only part that spends upstream calls; it reports its progress on the
 * run it is given and keeps nothing between reports.
 */
import { LIMITS, addDays, daysBetween, type Operation, type ReportRecord } from "@/lib/contract";
import { ApiError } from "@/lib/contract/errors";
import { UpstreamError, type UpstreamClient } from "./client";
import type { CallProgress, JobStatus } from "./jobs";
import type { SharedState } from "./shared";
import { CancelledError, type QuotaQueue, type QueueTicket } from "./quota";
import { aggregate, effectiveGroupBy, effectiveMetrics, sortRecords, type ReportQuery } from "./records";

/** Fetching's part of the gateway's configuration. */
export interface FetchConfig {
  /** Also how long to wait after a 429 that names no Retry-After. */
  rateWindowSeconds: number;
  /** Most upstream calls one report may spend. */
  pageCap: number;
  /** Longest range of one upstream call (the contract's cap); smaller only in tests. */
  maxPieceDays?: number;
  maxRetries?: number;
}

/** What a fetch reads from and reports on: a job's record (./jobs.ts) is one. */
export interface FetchRun {
  readonly op: Operation;
  readonly query: ReportQuery;
  /** Queue owner the calls wait under. */
  readonly owner: string;
  /** Checked before every call: once set, no further call is made. */
  readonly cancelled: boolean;
  /** Aborted on cancellation, so a call waiting for the shared window stops waiting. */
  readonly signal?: AbortSignal;
  status: JobStatus;
  /** The queue ticket of the call waiting now, if one is. */
  ticket: QueueTicket | null;
  calls: CallProgress;
}

type DateRange = { start_date: string; end_date: string };
type PieceProgress = { page: number; pages: number | null; piece: number; pieces: number };

export class ReportFetcher {
  constructor(
    private readonly config: FetchConfig,
    private readonly client: UpstreamClient,
    private readonly queue: QuotaQueue,
    private readonly shared: SharedState = {},
  ) {}

  /** Ranges of at most maxPieceDays + 1 calendar days (the contract's end ≤ start + 100). */
  pieces(query: ReportQuery): DateRange[] {
    const span = this.config.maxPieceDays ?? LIMITS.maxRangeDays;
    const out: DateRange[] = [];
    let start = query.start_date;
    while (start <= query.end_date) {
      const end = daysBetween(start, query.end_date) > span ? addDays(start, span) : query.end_date;
      out.push({ start_date: start, end_date: end });
      start = addDays(end, 1);
    }
    return out;
  }

  /** Every record of the report, pieces merged, and the upstream calls it took. */
  async fetch(run: FetchRun): Promise<{ data: ReportRecord[]; calls: number }> {
    const { op, query } = run;
    const pieces = this.pieces(query);
    let calls = 0;
    const all: ReportRecord[] = [];
    // Pages each date-range part needs: known once its first page answers (at least 1 before).
    const pagesOf: (number | null)[] = pieces.map(() => null);
    const progress = (): CallProgress => ({
      call: calls + 1,
      calls: pagesOf.reduce<number>((n, p) => n + (p ?? 1), 0),
      calls_exact: pagesOf.every((p) => p !== null),
    });
    for (const [pieceIndex, piece] of pieces.entries()) {
      let pages: number | null = null;
      for (let page = 0; pages === null || page < pages; page++) {
        const request = { ...query, ...piece, limit: LIMITS.maxPageSize, offset: page * LIMITS.maxPageSize };
        run.calls = progress();
        const res = await this.call(run, request, { page: page + 1, pages, piece: pieceIndex + 1, pieces: pieces.length });
        calls++;
        all.push(...res.data);
        if (pages === null) {
          pages = Math.max(1, Math.ceil(res.pagination.total / LIMITS.maxPageSize));
          pagesOf[pieceIndex] = pages;
          const needed = calls + (pages - 1) + (pieces.length - pieceIndex - 1);
          if (needed > this.config.pageCap) {
            throw new ApiError(
              400,
              `This report needs at least ${needed} upstream calls (${res.pagination.total.toLocaleString("en-US")} records in this part alone), more than the cap of ${this.config.pageCap}. Group by fewer dimensions, add filters or shorten the range.`,
            );
          }
        }
        if (!res.pagination.has_more) break;
      }
    }
    const dims = effectiveGroupBy(op, query);
    // Pieces of a date-grouped answer cannot share a row; otherwise re-add every metric per group.
    const data = pieces.length > 1 && !dims.includes("date") ? aggregate(all, dims, effectiveMetrics(op, query)) : pieces.length > 1 ? sortRecords(all, dims) : all;
    return { data, calls };
  }

  /** One page through the quota queue, under the run's owner; a 429 pauses the queue and retries. */
  private async call(run: FetchRun, request: ReportQuery & { limit: number; offset: number }, progress: PieceProgress) {
    const maxRetries = this.config.maxRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      if (run.cancelled) throw new CancelledError();
      const now = new Date().toISOString();
      run.status = { state: "queued", position: 0, estimated_start: now, estimated_done: now, ...run.calls };
      try {
        return await this.queue.run(
          async () => {
            run.ticket = null;
            // Several instances: the shared window has the last word on when a call may go.
            if (this.shared?.quota) await this.shared.quota.acquire(run.signal);
            run.status = { state: "fetching", ...progress, ...run.calls };
            return this.client.report(run.op, request);
          },
          (t) => (run.ticket = t),
          run.owner,
        );
      } catch (e) {
        if (e instanceof UpstreamError && e.status === 429 && attempt < maxRetries) {
          const waitS = Math.max(1, e.retryAfterSeconds ?? this.config.rateWindowSeconds);
          this.queue.pause(Date.now() + waitS * 1000);
          await this.shared?.quota?.pause(Date.now() + waitS * 1000);
          continue;
        }
        throw e;
      }
    }
  }
}
