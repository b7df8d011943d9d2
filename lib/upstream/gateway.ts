/**
 * The report gateway: everything between a user's report request and the upstream's quota.
 * validate → answer from cache (exact or derived) → merge with an identical job in flight → split the
 * range into ≤ 100-day pieces → fetch every page through the quota queue (429: wait Retry-After, retry
 * at most 3 times) → merge pieces by re-adding metrics → cache. Jobs report their progress.
 */
import "server-only";
import { randomBytes } from "node:crypto";
import {
  LIMITS,
  addDays,
  daysBetween,
  reportQuerySchemaFor,
  todayIn,
  type Operation,
  type ReportRecord,
} from "@/lib/contract";
import { ApiError } from "@/lib/errors";
import { UpstreamClient, UpstreamError, type UpstreamCredentials } from "./client";
import { canDerive, derive } from "./derive";
import { aggregate, canonicalQuery, effectiveGroupBy, effectiveMetrics, queryKey, sortRecords, type ReportQuery } from "./records";
import { CancelledError, QuotaQueue, type QueueTicket } from "./quota";
import { SeenValues } from "./seen-values";

export interface GatewayConfig extends UpstreamCredentials {
  reportRateLimit: number;
  rateWindowSeconds: number;
  pageCap: number;
  ttlPastSeconds: number;
  ttlTodaySeconds: number;
  timeZone: string;
  /** Longest range of one upstream call (the contract's cap); smaller only in tests. */
  maxPieceDays?: number;
  maxRetries?: number;
}

export type JobSource = "upstream" | "cache" | "derived";

export interface JobResult {
  source: JobSource;
  fetched_at: string;
  /** Set when derived from a cached answer: the query it came from. */
  derived_from?: { query: ReportQuery; fetched_at: string };
  upstream_calls: number;
  total: number;
  data: ReportRecord[];
}

export type JobStatus =
  | { state: "queued"; position: number; estimated_start: string; waiting_for_rate_limit_until?: string }
  | { state: "fetching"; page: number; pages: number | null; piece: number; pieces: number }
  | { state: "done"; result: JobResult }
  | { state: "failed"; error: { status: number; message: string; action: string } }
  | { state: "cancelled" };

export interface JobView {
  id: string;
  operation: Operation;
  query: ReportQuery;
  created_at: string;
  status: JobStatus;
}

interface CacheEntry {
  op: Operation;
  query: ReportQuery;
  records: ReportRecord[];
  fetchedAt: number;
  expiresAt: number;
  upstreamCalls: number;
}

interface Job {
  id: string;
  key: string;
  op: Operation;
  query: ReportQuery;
  createdAt: number;
  status: JobStatus;
  ticket: QueueTicket | null;
  subscribers: number;
  cancelled: boolean;
  promise: Promise<JobResult>;
  finishedAt?: number;
}

const MAX_CACHE_ENTRIES = 500;
const JOB_RETENTION_MS = 15 * 60_000;

export class ReportGateway {
  readonly client: UpstreamClient;
  readonly queue: QuotaQueue;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly jobs = new Map<string, Job>();
  private readonly inflight = new Map<string, Job>();
  /** Values seen in fetched answers, for the filter editor's suggestions. */
  readonly seen = new SeenValues();

  constructor(readonly config: GatewayConfig) {
    this.client = new UpstreamClient(config);
    this.queue = new QuotaQueue(config.reportRateLimit, config.rateWindowSeconds * 1000);
  }

  /** Validates with the contract first: a bad request costs no upstream call. */
  parse(op: Operation, body: unknown): ReportQuery {
    const parsed = reportQuerySchemaFor(op).safeParse(body);
    if (!parsed.success) throw ApiError.fromZod(parsed.error);
    return canonicalQuery(op, parsed.data);
  }

  /** Cached or derivable answer, or null. */
  lookup(op: Operation, query: ReportQuery, now = Date.now()): JobResult | null {
    const key = queryKey(op, query);
    const exact = this.cache.get(key);
    if (exact && exact.expiresAt > now) {
      this.touch(key, exact);
      return { source: "cache", fetched_at: new Date(exact.fetchedAt).toISOString(), upstream_calls: 0, total: exact.records.length, data: exact.records };
    }
    for (const [k, entry] of this.cache) {
      if (entry.expiresAt <= now) {
        this.cache.delete(k);
        continue;
      }
      if (entry.op === op && canDerive(op, query, entry.query)) {
        this.touch(k, entry);
        const data = derive(op, query, entry.records);
        return {
          source: "derived",
          fetched_at: new Date(entry.fetchedAt).toISOString(),
          derived_from: { query: entry.query, fetched_at: new Date(entry.fetchedAt).toISOString() },
          upstream_calls: 0,
          total: data.length,
          data,
        };
      }
    }
    return null;
  }

  private touch(key: string, entry: CacheEntry): void {
    this.cache.delete(key);
    this.cache.set(key, entry); // most recently used last
  }

  private store(op: Operation, query: ReportQuery, records: ReportRecord[], calls: number): void {
    const today = todayIn(this.config.timeZone);
    const ttl = query.end_date < today ? this.config.ttlPastSeconds : this.config.ttlTodaySeconds;
    const now = Date.now();
    this.cache.set(queryKey(op, query), { op, query, records, fetchedAt: now, expiresAt: now + ttl * 1000, upstreamCalls: calls });
    this.seen.add(records);
    while (this.cache.size > MAX_CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
  }

  /** Starts (or joins) the job for a query; answers from cache without a job when it can. */
  submit(op: Operation, query: ReportQuery): { cached: JobResult } | { job: JobView } {
    const cached = this.lookup(op, query);
    if (cached) return { cached };
    const key = queryKey(op, query);
    const running = this.inflight.get(key);
    if (running) {
      running.subscribers++;
      return { job: this.view(running) };
    }
    const job: Job = {
      id: randomBytes(16).toString("base64url"),
      key,
      op,
      query,
      createdAt: Date.now(),
      status: { state: "queued", position: 0, estimated_start: new Date().toISOString() },
      ticket: null,
      subscribers: 1,
      cancelled: false,
      promise: Promise.resolve() as unknown as Promise<JobResult>,
    };
    this.jobs.set(job.id, job);
    this.inflight.set(key, job);
    job.promise = this.execute(job).then(
      (result) => {
        job.status = { state: "done", result };
        return result;
      },
      (e: unknown) => {
        job.status = job.cancelled ? { state: "cancelled" } : { state: "failed", error: explain(e) };
        throw e;
      },
    );
    job.promise
      .catch(() => undefined)
      .finally(() => {
        job.finishedAt = Date.now();
        this.inflight.delete(key);
        this.sweepJobs();
      });
    return { job: this.view(job) };
  }

  /** Waits for a job (tests and server-side callers). */
  async wait(id: string): Promise<JobResult> {
    const job = this.jobs.get(id);
    if (!job) throw new ApiError(404, "No such report job (it may have expired)");
    return job.promise;
  }

  /** The job's view once it has finished or `ms` have passed, whichever is first (long polling). */
  async settle(id: string, ms: number): Promise<JobView | null> {
    const job = this.jobs.get(id);
    if (!job) return null;
    if (ms > 0 && (job.status.state === "queued" || job.status.state === "fetching")) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([job.promise.catch(() => undefined), new Promise((r) => (timer = setTimeout(r, ms)))]);
      clearTimeout(timer);
    }
    return this.view(job);
  }

  get(id: string): JobView | null {
    const job = this.jobs.get(id);
    return job ? this.view(job) : null;
  }

  /** A subscriber leaves; the job stops when nobody waits for it any more. */
  cancel(id: string): JobView | null {
    const job = this.jobs.get(id);
    if (!job) return null;
    if (job.status.state === "queued" || job.status.state === "fetching") {
      job.subscribers = Math.max(0, job.subscribers - 1);
      if (job.subscribers === 0) {
        job.cancelled = true;
        job.ticket?.cancel();
      }
    }
    return this.view(job);
  }

  private view(job: Job): JobView {
    let status = job.status;
    if (status.state === "queued" && job.ticket) {
      const q = this.queue.status();
      status = {
        state: "queued",
        position: Math.max(0, job.ticket.position()),
        estimated_start: new Date(job.ticket.estimatedStart()).toISOString(),
        ...(q.pausedUntil ? { waiting_for_rate_limit_until: new Date(q.pausedUntil).toISOString() } : {}),
      };
    }
    return { id: job.id, operation: job.op, query: job.query, created_at: new Date(job.createdAt).toISOString(), status };
  }

  private sweepJobs(): void {
    const cutoff = Date.now() - JOB_RETENTION_MS;
    for (const [id, job] of this.jobs) if (job.finishedAt && job.finishedAt < cutoff) this.jobs.delete(id);
  }

  /** Ranges of at most maxPieceDays + 1 calendar days (the contract's end ≤ start + 100). */
  pieces(query: ReportQuery): { start_date: string; end_date: string }[] {
    const span = this.config.maxPieceDays ?? LIMITS.maxRangeDays;
    const out: { start_date: string; end_date: string }[] = [];
    let start = query.start_date;
    while (start <= query.end_date) {
      const end = daysBetween(start, query.end_date) > span ? addDays(start, span) : query.end_date;
      out.push({ start_date: start, end_date: end });
      start = addDays(end, 1);
    }
    return out;
  }

  private async execute(job: Job): Promise<JobResult> {
    const { op, query } = job;
    const pieces = this.pieces(query);
    let calls = 0;
    const all: ReportRecord[] = [];
    for (const [pieceIndex, piece] of pieces.entries()) {
      let pages: number | null = null;
      for (let page = 0; pages === null || page < pages; page++) {
        const request = { ...query, ...piece, limit: LIMITS.maxPageSize, offset: page * LIMITS.maxPageSize };
        const res = await this.call(job, request, { page: page + 1, pages, piece: pieceIndex + 1, pieces: pieces.length });
        calls++;
        all.push(...res.data);
        if (pages === null) {
          pages = Math.max(1, Math.ceil(res.pagination.total / LIMITS.maxPageSize));
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
    this.store(op, query, data, calls);
    return { source: "upstream", fetched_at: new Date().toISOString(), upstream_calls: calls, total: data.length, data };
  }

  private async call(job: Job, request: ReportQuery & { limit: number; offset: number }, progress: { page: number; pages: number | null; piece: number; pieces: number }) {
    const maxRetries = this.config.maxRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      if (job.cancelled) throw new CancelledError();
      job.status = { state: "queued", position: 0, estimated_start: new Date().toISOString() };
      try {
        return await this.queue.run(
          () => {
            job.ticket = null;
            job.status = { state: "fetching", ...progress };
            return this.client.report(job.op, request);
          },
          (t) => (job.ticket = t),
        );
      } catch (e) {
        if (e instanceof UpstreamError && e.status === 429 && attempt < maxRetries) {
          const waitS = Math.max(1, e.retryAfterSeconds ?? this.config.rateWindowSeconds);
          this.queue.pause(Date.now() + waitS * 1000);
          continue;
        }
        throw e;
      }
    }
  }

  status() {
    const q = this.queue.status();
    return {
      limit_per_window: q.limit,
      window_seconds: q.windowSeconds,
      calls_in_window: q.callsInWindow,
      next_slot_at: new Date(q.nextSlotAt).toISOString(),
      paused_until: q.pausedUntil ? new Date(q.pausedUntil).toISOString() : null,
      queue_length: q.queueLength,
      jobs_running: this.inflight.size,
      cache_entries: this.cache.size,
      upstream_report_calls: this.client.reportCalls,
    };
  }
}

/** A reason a user understands, and what to do about it. */
export function explain(e: unknown): { status: number; message: string; action: string } {
  if (e instanceof ApiError) return { status: e.status, message: e.message, action: e.status === 400 ? "Change the report and run it again." : "Try again." };
  if (e instanceof UpstreamError) {
    if (e.status === 429) return { status: 429, message: "The reporting service kept refusing calls (rate limit), even after waiting.", action: "Wait a minute and run the report again." };
    if (e.status === 401) return { status: 502, message: "The dashboard's credentials were refused by the reporting service.", action: "Ask an administrator to check the upstream client credentials." };
    if (e.status === 400) return { status: 400, message: `The reporting service rejected the request: ${e.message}`, action: "Change the report and run it again." };
    return { status: 502, message: `The reporting service failed: ${e.message}`, action: "Try again in a few minutes; if it persists, tell an administrator." };
  }
  return { status: 500, message: "Something went wrong while fetching the report.", action: "Try again; if it persists, tell an administrator." };
}
