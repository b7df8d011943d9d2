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
import { ApiError } from "@/lib/contract/errors";
import { UpstreamClient, UpstreamError, type UpstreamCredentials } from "./client";
import { translateUpstream } from "./errors";
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
  /** Report jobs one owner (a user; all share-link visitors together) may have waiting or running. */
  maxJobsPerOwner?: number;
  /** Report jobs waiting or running for everyone together. */
  maxJobs?: number;
  /** A job nobody has asked about for this long is cancelled (its caller has gone). */
  jobIdleSeconds?: number;
  /** The answer cache's size bound, besides its entry count (JSON size of the records). */
  cacheMaxBytes?: number;
}

/** Queue owner of everything share-link visitors ask for. */
export const SHARE_OWNER = "share-links";

export const GATEWAY_DEFAULTS = { maxJobsPerOwner: 20, maxJobs: 200, jobIdleSeconds: 90, cacheMaxBytes: 256 * 1024 * 1024 } as const;

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

/**
 * Which upstream call of the report this is (1-based) and how many it needs: exact once every
 * date-range part has answered its first page, otherwise the least it can be.
 */
export interface CallProgress {
  call: number;
  calls: number;
  calls_exact: boolean;
}

export type JobStatus =
  | ({
      state: "queued";
      /** Calls ahead of this one in the queue (everyone's, never whose). */
      position: number;
      estimated_start: string;
      /** When the report's last call should start, counting every call it still needs. */
      estimated_done: string;
      waiting_for_rate_limit_until?: string;
    } & CallProgress)
  | ({ state: "fetching"; page: number; pages: number | null; piece: number; pieces: number } & CallProgress)
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
  bytes: number;
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
  owner: string;
  /** Last time anyone asked about the job (submitted, joined, polled). */
  seenAt: number;
  /** Callers holding a long poll on it right now. */
  waiters: number;
  calls: CallProgress;
}

const MAX_CACHE_ENTRIES = 500;
const JOB_RETENTION_MS = 15 * 60_000;

export class ReportGateway {
  readonly client: UpstreamClient;
  readonly queue: QuotaQueue;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly jobs = new Map<string, Job>();
  private readonly inflight = new Map<string, Job>();
  private cacheBytes = 0;
  private readonly reaper: NodeJS.Timeout;
  /** Values seen in fetched answers, for the filter editor's suggestions. */
  readonly seen = new SeenValues();

  constructor(readonly config: GatewayConfig) {
    this.client = new UpstreamClient(config);
    this.queue = new QuotaQueue(config.reportRateLimit, config.rateWindowSeconds * 1000);
    this.reaper = setInterval(() => this.reapIdle(), 5_000);
    this.reaper.unref();
  }

  private get limits() {
    const c = this.config;
    return {
      maxJobsPerOwner: c.maxJobsPerOwner ?? GATEWAY_DEFAULTS.maxJobsPerOwner,
      maxJobs: c.maxJobs ?? GATEWAY_DEFAULTS.maxJobs,
      jobIdleSeconds: c.jobIdleSeconds ?? GATEWAY_DEFAULTS.jobIdleSeconds,
      cacheMaxBytes: c.cacheMaxBytes ?? GATEWAY_DEFAULTS.cacheMaxBytes,
    };
  }

  /** Cancels queued or running jobs whose callers have all gone (nobody polled for a while). */
  reapIdle(now = Date.now()): number {
    const idleMs = this.limits.jobIdleSeconds * 1000;
    let n = 0;
    for (const job of this.inflight.values()) {
      if (job.waiters > 0 || now - job.seenAt < idleMs) continue;
      job.cancelled = true;
      job.ticket?.cancel();
      n++;
    }
    return n;
  }

  /** Validates with the contract first: a bad request costs no upstream call. */
  parse(op: Operation, body: unknown): ReportQuery {
    return canonicalQuery(op, ApiError.parse(reportQuerySchemaFor(op), body));
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
        this.evict(k);
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
    this.seen.add(records);
    // The records' JSON size: what they cost to hold, near enough, and what the bound is set in.
    const bytes = JSON.stringify(records).length;
    const max = this.limits.cacheMaxBytes;
    if (bytes > max) return; // larger than the whole cache: served, not kept
    const key = queryKey(op, query);
    this.evict(key);
    this.cache.set(key, { op, query, records, fetchedAt: now, expiresAt: now + ttl * 1000, upstreamCalls: calls, bytes });
    this.cacheBytes += bytes;
    while (this.cache.size > MAX_CACHE_ENTRIES || this.cacheBytes > max) this.evict(this.cache.keys().next().value!);
  }

  private evict(key: string): void {
    const e = this.cache.get(key);
    if (!e) return;
    this.cache.delete(key);
    this.cacheBytes -= e.bytes;
  }

  /**
   * Starts (or joins) the job for a query on behalf of `owner` (a user id, or SHARE_OWNER); answers
   * from cache without a job when it can. An owner past their cap of waiting jobs, or everyone past
   * the global one, gets a 429 that says which cap and what to do.
   */
  submit(op: Operation, query: ReportQuery, owner = ""): { cached: JobResult } | { job: JobView } {
    const cached = this.lookup(op, query);
    if (cached) return { cached };
    const key = queryKey(op, query);
    const running = this.inflight.get(key);
    if (running) {
      running.subscribers++;
      running.seenAt = Date.now();
      return { job: this.view(running) };
    }
    this.reapIdle();
    const { maxJobsPerOwner, maxJobs } = this.limits;
    let mine = 0;
    for (const j of this.inflight.values()) if (j.owner === owner) mine++;
    if (mine >= maxJobsPerOwner) {
      throw new ApiError(429, `You already have ${mine} reports waiting or running, the most one person may have at once (${maxJobsPerOwner}). Wait for some to finish, or cancel those you no longer need.`, undefined, { "Retry-After": String(this.config.rateWindowSeconds) }, { retry_after: this.config.rateWindowSeconds });
    }
    if (this.inflight.size >= maxJobs) {
      throw new ApiError(429, `The dashboard already has ${this.inflight.size} reports waiting or running, the most it takes at once (${maxJobs}). Try again in a minute.`, undefined, { "Retry-After": String(this.config.rateWindowSeconds) }, { retry_after: this.config.rateWindowSeconds });
    }
    const job: Job = {
      id: randomBytes(16).toString("base64url"),
      key,
      op,
      query,
      createdAt: Date.now(),
      status: { state: "queued", position: 0, estimated_start: new Date().toISOString(), estimated_done: new Date().toISOString(), call: 1, calls: 1, calls_exact: false },
      ticket: null,
      subscribers: 1,
      cancelled: false,
      promise: Promise.resolve() as unknown as Promise<JobResult>,
      owner,
      seenAt: Date.now(),
      waiters: 0,
      calls: { call: 1, calls: 1, calls_exact: false },
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
    job.seenAt = Date.now();
    if (ms > 0 && (job.status.state === "queued" || job.status.state === "fetching")) {
      let timer: NodeJS.Timeout | undefined;
      job.waiters++;
      try {
        await Promise.race([job.promise.catch(() => undefined), new Promise((r) => (timer = setTimeout(r, ms)))]);
      } finally {
        clearTimeout(timer);
        job.waiters--;
        job.seenAt = Date.now();
      }
    }
    return this.view(job);
  }

  get(id: string): JobView | null {
    const job = this.jobs.get(id);
    if (job) job.seenAt = Date.now();
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
      // Every call the report still needs after this one queues behind it, in the owner's turn.
      const later = Math.max(0, job.calls.calls - job.calls.call);
      status = {
        state: "queued",
        position: Math.max(0, job.ticket.position()),
        estimated_start: new Date(job.ticket.estimatedStart()).toISOString(),
        estimated_done: new Date(job.ticket.estimatedStart(later)).toISOString(),
        ...job.calls,
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
        job.calls = progress();
        const res = await this.call(job, request, { page: page + 1, pages, piece: pieceIndex + 1, pieces: pieces.length });
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
    this.store(op, query, data, calls);
    return { source: "upstream", fetched_at: new Date().toISOString(), upstream_calls: calls, total: data.length, data };
  }

  private async call(job: Job, request: ReportQuery & { limit: number; offset: number }, progress: { page: number; pages: number | null; piece: number; pieces: number }) {
    const maxRetries = this.config.maxRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      if (job.cancelled) throw new CancelledError();
      const now = new Date().toISOString();
      job.status = { state: "queued", position: 0, estimated_start: now, estimated_done: now, ...job.calls };
      try {
        return await this.queue.run(
          () => {
            job.ticket = null;
            job.status = { state: "fetching", ...progress, ...job.calls };
            return this.client.report(job.op, request);
          },
          (t) => (job.ticket = t),
          job.owner,
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
      /** When the oldest call in the window leaves it and the count drops; null when none is in it. */
      next_free_at: q.nextFreeAt === null ? null : new Date(q.nextFreeAt).toISOString(),
      queue_length: q.queueLength,
      jobs_running: this.inflight.size,
      cache_entries: this.cache.size,
      cache_bytes: this.cacheBytes,
      upstream_report_calls: this.client.reportCalls,
    };
  }
}

/** A reason a user understands, and what to do about it (the one table in ./errors.ts). */
export function explain(e: unknown): { status: number; message: string; action: string } {
  const { status, message, action } = translateUpstream(e, "report");
  return { status, message, action };
}
