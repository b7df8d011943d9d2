import "server-only";
/**
 * The report gateway: everything between a user's report request and the upstream's quota.
 * validate → answer from cache (exact or derived) → merge with an identical job in flight → split the
 * range into ≤ 100-day pieces → fetch every page through the quota queue (429: wait Retry-After, retry
 * at most 3 times) → merge pieces by re-adding metrics → cache. Jobs report their progress.
 *
 * This file is the façade that wires the parts together and the one place callers import from:
 * ./cache.ts holds answers, ./day-answers.ts makes them of kept days, ./jobs.ts tracks jobs and their
 * callers (./job-handles.ts signs each caller's hold on one), ./fetcher.ts spends upstream calls, and
 * ./quota.ts decides when each call may go.
 */
import { createHmac } from "node:crypto";
import { OPERATION_SCHEMAS, type Operation } from "@/lib/contract";
import { ApiError } from "@/lib/contract/errors";
import { canDerive, derive } from "./derive";
import { DayAnswers } from "./day-answers";
import { JobHandles } from "./job-handles";
import type { DateRange } from "./range-pieces";
import { logShared, type SharedState } from "./shared";
import { CancelledError, QuotaQueue } from "./quota";
import { ReportCache, type CacheConfig, type LatestAnswer, type SerializedAnswer } from "./cache";
import { UpstreamClient, type UpstreamCredentials } from "./client";
import { ReportFetcher, type FetchConfig } from "./fetcher";
import { JobRegistry, type JobResult, type JobRun, type JobView, type JobsConfig } from "./jobs";
import { canonicalQuery, queryKey, type ReportQuery } from "./records";
import { SeenValues } from "./seen-values";

export type { LatestAnswer, SerializedAnswer } from "./cache";
export { answerBody } from "./cache";
export { BACKGROUND_OWNER } from "./quota";
export { type JobResult, type JobStatus, type JobView } from "./jobs";

/** Everything the gateway is configured with: the credentials, the quota, and each part's settings. */
export interface GatewayConfig extends UpstreamCredentials, CacheConfig, JobsConfig, FetchConfig {
  /** Reporting calls the upstream accepts per window (the quota queue's limit). */
  reportRateLimit: number;
  rateWindowSeconds: number;
  /**
   * Signs job handles. Every instance on one database must have the same; by default derived from
   * the upstream client secret, which they already share (and not the secret itself).
   */
  handleKey?: string;
}

/** Queue owner of everything share-link visitors ask for. */
export const SHARE_OWNER = "share-links";

export class ReportGateway {
  readonly client: UpstreamClient;
  readonly queue: QuotaQueue;
  private readonly cache: ReportCache;
  private readonly jobs: JobRegistry;
  private readonly fetcher: ReportFetcher;
  /** Values seen in fetched answers, for the filter editor's suggestions. */
  readonly seen = new SeenValues();
  private readonly handles: JobHandles;
  /** Answers made of kept days, when the store keeps them (`shared.days`). */
  readonly days: DayAnswers | null;

  /** `shared`: what this instance shares with others on one PostgreSQL database (./shared.ts); none by default. */
  constructor(
    readonly config: GatewayConfig,
    private readonly shared: SharedState = {},
  ) {
    this.client = new UpstreamClient(config);
    this.handles = new JobHandles(config.handleKey ?? createHmac("sha256", config.clientSecret).update("report-job-handles").digest("base64url"));
    this.queue = new QuotaQueue(config.reportRateLimit, config.rateWindowSeconds * 1000);
    this.cache = new ReportCache(config);
    this.jobs = new JobRegistry(config, this.queue);
    this.fetcher = new ReportFetcher(config, this.client, this.queue, shared);
    this.days = shared.days ? new DayAnswers(shared.days, this.fetcher, config.maxPieceDays) : null;
    if (shared.jobs) {
      const rows = shared.jobs;
      this.renewer = setInterval(() => {
        const at = Date.now();
        rows
          .renew(this.jobs.runningViews(), at)
          .then((polled) => {
            for (const [id, at] of polled) this.jobs.markSeen(id, at);
          })
          .catch((e: unknown) => logShared("job leases not renewed", e));
      }, rows.renewMs);
      this.renewer.unref();
    }
  }

  private readonly renewer: NodeJS.Timeout | null = null;

  /** Starts a job here (a new one, or one taken over under its id), does its work, and keeps its shared row. */
  private startJob(op: Operation, query: ReportQuery, key: string, owner: string, id?: string, expectedCalls = 0): JobView {
    const { view: created, run } = this.jobs.start(op, query, key, owner, id, expectedCalls);
    this.jobs.track(run, this.execute(run));
    // As it stands now that its first call may have queued, not as it was created.
    const view = this.jobs.get(created.id) ?? created;
    const rows = this.shared.jobs;
    if (rows) {
      const recorded = rows.record(view, key, owner).catch((e: unknown) => logShared("job row not written", e));
      this.recorded.set(view.id, recorded);
      // The row is finished once the job is (after it was written, so the two cannot cross).
      void this.jobs
        .wait(view.id)
        .catch(() => undefined)
        .then(async () => {
          await recorded;
          const done = this.jobs.get(view.id);
          if (done) await rows.finish(done);
          this.recorded.delete(view.id);
        })
        .catch((e: unknown) => logShared("job row not finished", e));
    }
    return this.jobs.get(view.id, owner) ?? view;
  }

  /** Each running job's row write, which a status written later must follow. */
  private readonly recorded = new Map<string, Promise<void>>();

  /**
   * Writes the status a caller is shown here of a job this instance runs to its row, so that a poll
   * answered elsewhere from the row never shows an older place in line (the row keeps the newest).
   */
  private async publish(jobId: string): Promise<void> {
    const rows = this.shared.jobs;
    if (!rows || !this.jobs.has(jobId)) return;
    await this.recorded.get(jobId);
    const at = Date.now();
    const view = this.jobs.get(jobId);
    if (!view || (view.status.state !== "queued" && view.status.state !== "fetching")) return;
    await rows.update(view, at).catch((e: unknown) => logShared("job status not written", e));
  }

  /** Cancels queued or running jobs whose callers have all gone (nobody polled for a while). */
  reapIdle(now = Date.now()): number {
    return this.jobs.reapIdle(now);
  }

  /** Validates with the contract first: a bad request costs no upstream call. */
  parse(op: Operation, body: unknown): ReportQuery {
    return canonicalQuery(op, ApiError.parse(OPERATION_SCHEMAS[op].query, body));
  }

  /** Cached or derivable answer still fresh at `now`, or null. */
  lookup(op: Operation, query: ReportQuery, now = Date.now()): JobResult | null {
    return this.cache.lookup(op, query, now);
  }

  /**
   * The exact cached answer still fresh, as the bytes the report routes send (`answerBody` as JSON),
   * or null; a null here may still be a derived hit for `submit`. A repeated report is then neither
   * derived nor serialized again.
   */
  cachedAnswer(op: Operation, query: ReportQuery, now = Date.now()): SerializedAnswer | null {
    return this.cache.serialized(op, query, now);
  }

  /** `cachedAnswer` for the query whose `queryKey` is `key`. */
  cachedAnswerByKey(key: string, now = Date.now()): SerializedAnswer | null {
    return this.cache.serializedByKey(key, now);
  }

  /**
   * The most recently fetched answer that fits the query (exact or derived), even expired, with
   * whether it is fresh and how old; null when the cache holds none. Costs no upstream call.
   */
  latest(op: Operation, query: ReportQuery, now = Date.now()): LatestAnswer | null {
    return this.cache.latest(op, query, now);
  }

  /** The identical job waiting or running, or null; looking does not join it. */
  inFlight(op: Operation, query: ReportQuery): JobView | null {
    return this.jobs.inFlight(queryKey(op, query));
  }

  /**
   * A job waiting or running whose answer will answer `query` too (the identical one first, else one
   * it derives from), or null; looking does not join it (submit its query to join).
   */
  inFlightFor(op: Operation, query: ReportQuery): JobView | null {
    return this.inFlight(op, query) ?? this.jobs.inFlightWhere((jobOp, jobQuery) => jobOp === op && canDerive(op, query, jobQuery));
  }

  /**
   * A job that failed in the last `withinMs` and would have answered `query`: the identical one when
   * there is one, else one it derives from; null when none. Callers that plan queries of their own
   * (dashboards) read this so that a failing query is shown as failed, not sent again on every look.
   */
  recentFailureFor(op: Operation, query: ReportQuery, withinMs = 60_000): JobView | null {
    const key = queryKey(op, query);
    return (
      this.jobs.recentFailureWhere((k) => k === key, withinMs) ??
      this.jobs.recentFailureWhere((_, jobOp, jobQuery) => jobOp === op && canDerive(op, query, jobQuery), withinMs)
    );
  }

  /**
   * Starts (or joins) the job for a query on behalf of `owner` (a user id, SHARE_OWNER or
   * BACKGROUND_OWNER); answers from cache without a job when it can. With `freshUntil`, only a
   * cached answer still fresh at that time answers (the warmer refreshing one about to expire). A
   * person joining a background job takes it over at their own priority. An owner past their cap of
   * waiting jobs, or everyone past the global one, gets a 429 that says which cap and what to do.
   * `expectedCalls`: what the caller's planner counts for a new job (its place in line and its
   * estimate cover them until the service has said how many records each part holds).
   */
  submit(op: Operation, query: ReportQuery, owner = "", opts: { freshUntil?: number; expectedCalls?: number } = {}): { cached: JobResult } | { job: JobView } {
    const cached = this.cache.lookup(op, query, Math.max(Date.now(), opts.freshUntil ?? 0));
    if (cached) return { cached };
    const key = queryKey(op, query);
    const joined = this.jobs.join(key, owner);
    if (joined) {
      void this.publish(joined.id);
      return { job: this.handed(joined, owner) };
    }
    return { job: this.handed(this.startJob(op, query, key, owner, undefined, opts.expectedCalls), owner) };
  }

  /** A job's view under `owner`'s handle to it. */
  private handed(view: JobView, owner: string): JobView {
    return { ...view, id: this.handles.of(view.id, owner) };
  }

  /** The job and owner of a handle, or null when it is not a handle (or, with `asOwner`, not theirs). */
  private held(handle: string, asOwner: string | undefined): { jobId: string; owner: string } | null {
    const h = this.handles.parse(handle);
    return h && (asOwner === undefined || h.owner === asOwner) ? h : null;
  }

  /** Waits for the job of a handle `submit` gave (tests and server-side callers). */
  wait(handle: string): Promise<JobResult> {
    const h = this.held(handle, undefined);
    if (!h) return Promise.reject(new ApiError(404, "No such report job (it may have expired)"));
    return this.jobs.wait(h.jobId);
  }

  /**
   * The view under a handle once its job has finished or `ms` have passed, whichever is first (long
   * polling); null for no such handle, or, with `asOwner` (a route answering a user), one that is
   * not theirs. With job rows, a job another instance runs is answered from its row (and its records
   * from the shared cache), and one whose instance stopped is taken over here under the same id.
   */
  async settle(handle: string, ms: number, asOwner?: string): Promise<JobView | null> {
    const h = this.held(handle, asOwner);
    if (!h) return null;
    const view = await this.settleJob(h.jobId, ms, h.owner);
    await this.publish(h.jobId);
    return view && this.handed(view, h.owner);
  }

  private async settleJob(id: string, ms: number, owner: string): Promise<JobView | null> {
    const rows = this.shared.jobs;
    if (!rows || this.jobs.has(id)) {
      const view = await this.jobs.settle(id, ms, owner);
      if (!this.following.has(id)) return view;
      await this.refreshFollowed(id);
      return this.jobs.get(id, owner);
    }
    const started = Date.now();
    await rows.touch(id).catch((e: unknown) => logShared("job poll not recorded", e));
    const job = await rows.waitFor(id, ms);
    if (!job) return null;
    if (job.abandoned && (await rows.takeOver(id))) {
      this.startJob(job.view.operation, job.view.query, job.key, job.owner, id);
      return this.jobs.settle(id, Math.max(0, ms - (Date.now() - started)), owner);
    }
    const status = job.view.status;
    if (status.state !== "done") return job.view;
    const answer = await this.sharedAnswer(job.view.operation, job.view.query);
    if (!answer) {
      return { ...job.view, status: { state: "failed", error: { status: 410, message: "This report's answer is no longer kept.", action: "Run the report again." } } };
    }
    return { ...job.view, status: { state: "done", result: { ...status.result, total: answer.total, data: answer.data } } };
  }

  /** The view under a handle now; null as for `settle`. */
  get(handle: string, asOwner?: string): JobView | null {
    const h = this.held(handle, asOwner);
    const view = h && this.jobs.get(h.jobId, h.owner);
    if (view) void this.publish(view.id);
    return view && h ? this.handed(view, h.owner) : null;
  }

  /**
   * The handle's owner lets go (one of their subscriptions): their handle then reads as cancelled,
   * and the upstream work stops only once no owner's handle wants it. Null as for `settle`.
   */
  cancel(handle: string, asOwner?: string): JobView | null {
    const h = this.held(handle, asOwner);
    const view = h && this.jobs.cancel(h.jobId, h.owner);
    return view && h ? this.handed(view, h.owner) : null;
  }

  /** Ranges of at most maxPieceDays + 1 calendar days (the contract's end ≤ start + 100). */
  pieces(query: ReportQuery): { start_date: string; end_date: string }[] {
    return this.fetcher.pieces(query);
  }

  /**
   * A job's work: an answer another instance has (or is fetching), else the kept days and a fetch of
   * the others (or, for a question not kept by day, a fetch of it all); note the values seen, keep
   * the answer.
   */
  private async execute(run: JobRun): Promise<JobResult> {
    const shape = this.days?.shape(run.op, run.query) ?? null;
    // Alone (no shared state) the fetch starts at once, its first call queued before submit returns.
    const fromOthers = this.shared.cache || this.shared.jobs ? await this.fromOtherInstances(run, shape === null) : null;
    if (fromOthers) return fromOthers;
    const result = shape && this.days ? await this.days.answer(run, shape, () => this.fetchWhole(run)) : await this.fetchWhole(run);
    this.seen.add(result.data);
    // A whole answer is kept as of its fetch, so the cache tells the same time; one put together from
    // kept days is kept from now (its oldest day may be long past any lifetime), and tells, as its
    // first answer did, when its oldest day was fetched.
    const fetchedAt = shape ? Date.now() : Date.parse(result.fetched_at);
    const asOf = Date.parse(result.fetched_at);
    const expiresAt = this.cache.store(run.op, run.query, result.data, result.upstream_calls, fetchedAt, asOf);
    await this.shared.cache?.put(run.op, run.query, result.data, fetchedAt, expiresAt, asOf).catch((e: unknown) =>
      // A shared cache that cannot take the answer costs the other instances a call, not this report.
      logShared("shared cache put failed", e),
    );
    return result;
  }

  /**
   * The pieces a job for the query would fetch now, each with its calls when the day store knows
   * them; none when every day is kept current, or a whole answer is kept; null when the question is
   * not kept by day and no answer is kept (the whole range is fetched). What planners count calls from.
   */
  async piecesToFetch(op: Operation, query: ReportQuery): Promise<{ range: DateRange; calls: number | null }[] | null> {
    const shape = this.days?.shape(op, query) ?? null;
    if (shape && this.days) return this.days.piecesToFetch(op, query, shape);
    // A whole answer kept in the store (another instance's, or this one's before a restart) costs nothing.
    const kept = await this.shared.cache?.find(op, query).catch(() => null);
    return kept ? [] : null;
  }

  private async fetchWhole(run: JobRun): Promise<JobResult> {
    const { data, calls } = await this.fetcher.fetch(run, run.progress);
    return { source: "upstream", fetched_at: new Date().toISOString(), upstream_calls: calls, total: data.length, data };
  }

  /**
   * The shared cache's answer to a query (derived from the finer one found there, when so), noted
   * and kept in this instance's cache too; null when it holds none. Costs no upstream call.
   */
  private async sharedAnswer(op: Operation, query: ReportQuery): Promise<JobResult | null> {
    const answer = await this.shared.cache?.find(op, query);
    if (!answer) return null;
    this.seen.add(answer.records);
    const data = answer.derived ? derive(op, query, answer.records) : answer.records;
    this.cache.store(op, query, data, 0, answer.fetchedAt, answer.asOf);
    const fetchedAt = new Date(answer.asOf).toISOString();
    return {
      source: answer.derived ? "derived" : "cache",
      fetched_at: fetchedAt,
      ...(answer.derived ? { derived_from: { query: answer.query, fetched_at: fetchedAt } } : {}),
      upstream_calls: 0,
      total: data.length,
      data,
    };
  }

  /**
   * What another instance fetched (or is fetching) that answers the job, or null to fetch here. A
   * question kept by day (`answers` false) is not looked up among whole answers, whose freshness is
   * coarser than its days': once another instance's job for it ends, its days are in the store.
   */
  private async fromOtherInstances(run: JobRun, answers: boolean): Promise<JobResult | null> {
    // Another instance may have fetched it (or a finer answer): that costs no call here either.
    const elsewhere = answers ? await this.sharedAnswer(run.op, run.query) : null;
    if (elsewhere) return elsewhere;
    // Another instance is fetching the same report: wait for it rather than spend the calls twice.
    const other = await this.shared.jobs?.live(run.key, run.id);
    return other ? this.settleElsewhere(other.view.id, run, answers) : null;
  }

  /** Follows another instance's job to its end; its answer (from the shared cache), or null to fetch (or read kept days) here. */
  private async settleElsewhere(id: string, run: JobRun, answers: boolean): Promise<JobResult | null> {
    const rows = this.shared.jobs!;
    this.following.set(run.id, { otherId: id, run });
    try {
      for (;;) {
        if (run.signal.aborted) throw new CancelledError();
        const other = await rows.waitFor(id, 2_000, (j) => run.mirror(j.view.status));
        if (!other || other.abandoned) return null;
        if (!other.finished) continue;
        if (other.view.status.state !== "done" || !answers) return null;
        return this.sharedAnswer(run.op, run.query);
      }
    } finally {
      this.following.delete(run.id);
    }
  }

  /** Jobs here that follow another instance's job of the same report, by their id: that job's id. */
  private readonly following = new Map<string, { otherId: string; run: JobRun }>();

  /** A job here that follows another instance's takes that job's status from its row now (before a poll is answered). */
  private async refreshFollowed(jobId: string): Promise<void> {
    const f = this.following.get(jobId);
    const rows = this.shared.jobs;
    if (!f || !rows) return;
    const other = await rows.get(f.otherId).catch(() => null);
    if (other && !other.finished) f.run.mirror(other.view.status);
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
      /** Calls of people waiting (what a report may wait behind); background calls are apart. */
      queue_length: q.queueLength,
      background_queue_length: q.backgroundQueueLength,
      jobs_running: this.jobs.running,
      cache_entries: this.cache.size,
      cache_bytes: this.cache.bytes,
      upstream_report_calls: this.client.reportCalls,
    };
  }
}
