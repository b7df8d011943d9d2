import "server-only";
/**
 * Fetching one report from the upstream: split its range into pieces the contract accepts
 * (./range-pieces.ts), fetch every page of each through the quota queue (a 429 pauses the queue for
 * its Retry-After and the call is retried), refuse past the page cap, and merge the pieces into one
 * answer. Separate from jobs and the cache because it is the only part that spends upstream calls;
 * it returns the answer, tells its progress to the listener it is given, and keeps nothing between
 * reports.
 */
import { LIMITS, type ReportRecord } from "@/lib/contract";
import { ApiError } from "@/lib/contract/errors";
import { UpstreamError, type UpstreamClient } from "./client";
import type { SharedState } from "./shared";
import { CancelledError, type QuotaQueue } from "./quota";
import type { CallProgress, FetchProgress, FetchRequest, PieceProgress } from "./fetch-progress";
import { rangePieces, type DateRange } from "./range-pieces";
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

/** A fetched report: every record, pieces merged, and the upstream calls it took. */
interface FetchedReport {
  data: ReportRecord[];
  calls: number;
}

export class ReportFetcher {
  constructor(
    private readonly config: FetchConfig,
    private readonly client: UpstreamClient,
    private readonly queue: QuotaQueue,
    private readonly shared: SharedState = {},
  ) {}

  /** The pieces of the query's range this fetcher sends, one call (or more, paged) each. */
  pieces(query: ReportQuery): DateRange[] {
    return rangePieces(query, this.config.maxPieceDays);
  }

  /**
   * Every record of the report, pieces merged, and the upstream calls it took; its progress goes to
   * `onProgress` as it goes. With `ranges`, only those days of the query's range are fetched (the
   * days the day store does not keep), each split into pieces as a whole range would be.
   */
  async fetch(request: FetchRequest, onProgress: (progress: FetchProgress) => void, ranges?: readonly DateRange[]): Promise<FetchedReport> {
    const { op, query } = request;
    const pieces = ranges ? ranges.flatMap((r) => rangePieces(r, this.config.maxPieceDays)) : this.pieces(query);
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
        const pageQuery = { ...query, ...piece, limit: LIMITS.maxPageSize, offset: page * LIMITS.maxPageSize };
        const res = await this.call(request, pageQuery, progress(), { page: page + 1, pages, piece: pieceIndex + 1, pieces: pieces.length }, onProgress);
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

  /** One page through the quota queue, under the request's owner; a 429 pauses the queue and retries. */
  private async call(
    request: FetchRequest,
    page: ReportQuery & { limit: number; offset: number },
    calls: CallProgress,
    piece: PieceProgress,
    onProgress: (progress: FetchProgress) => void,
  ) {
    const maxRetries = this.config.maxRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      if (request.signal.aborted) throw new CancelledError();
      onProgress({ state: "queued", calls });
      try {
        return await this.queue.run(
          async () => {
            onProgress({ state: "ticket", ticket: null });
            // Several instances: the shared window has the last word on when a call may go, and a
            // pause another instance's 429 set pauses this queue too (its waits are told from it).
            if (this.shared?.quota) await this.shared.quota.acquire(request.signal, (until) => this.queue.pause(until));
            onProgress({ state: "fetching", ...piece, calls });
            return this.client.report(request.op, page);
          },
          (ticket) => onProgress({ state: "ticket", ticket }),
          request.owner(),
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
