import "server-only";
/**
 * Report jobs: their records and statuses, joining an identical job in flight, the per-owner and
 * global caps on jobs waiting or running, waiting for a job (whole or long poll), and cancelling jobs
 * whose callers have left. Separate from fetching because it does not know how a report is fetched:
 * the façade starts a job, does its work with the job's run (./gateway.ts), and hands the registry
 * that work's outcome; and from the cache because a job exists only for a miss.
 */
import { randomBytes } from "node:crypto";
import type { Operation, ReportRecord } from "@/lib/contract";
import { ApiError } from "@/lib/contract/errors";
import { translateUpstream } from "./errors";
import type { CallProgress, FetchProgress, FetchRequest } from "./fetch-progress";
import { BACKGROUND_OWNER, CancelledError, type QueueHold, type QuotaQueue, type QueueTicket } from "./quota";
import type { ReportQuery } from "./records";

/** The jobs' part of the gateway's configuration. */
export interface JobsConfig {
  /** Also the Retry-After a caller refused by a cap is told. */
  rateWindowSeconds: number;
  /** Report jobs one owner (a user; all share-link visitors together) may have waiting or running. */
  maxJobsPerOwner?: number;
  /** Report jobs waiting or running for everyone together. */
  maxJobs?: number;
  /** A job nobody has asked about for this long is cancelled (its caller has gone). */
  jobIdleSeconds?: number;
}

export const JOB_DEFAULTS = { maxJobsPerOwner: 20, maxJobs: 200, jobIdleSeconds: 90 } as const;

export type JobSource = "upstream" | "cache" | "derived";

export interface JobResult {
  source: JobSource;
  fetched_at: string;
  /** Set when derived from a cached answer: the query it came from. */
  derived_from?: { query: ReportQuery; fetched_at: string };
  upstream_calls: number;
  total: number;
  data: ReportRecord[];
  /**
   * For a question kept by day: how many of its days came from the day store and how many were
   * fetched now. `fetched_at` is then when its oldest day was fetched.
   */
  days?: { kept: number; fetched: number };
}

export type JobStatus =
  | ({
      state: "queued";
      /** Calls ahead of this one in the queue (everyone's, never whose). */
      position: number;
      estimated_start: string;
      /** When the report's last call should have answered, counting every call it still needs. */
      estimated_done: string;
      /** Calls that start before the report's last one (everyone's, its own included): only falls. */
      last_position?: number;
      waiting_for_rate_limit_until?: string;
    } & CallProgress)
  | ({
      state: "fetching";
      page: number;
      pages: number | null;
      piece: number;
      pieces: number;
      /** When the report's last call should have answered, while it has calls still to make after this one. */
      estimated_done?: string;
      /** Calls that start before the report's last one, while it has calls still to make. */
      last_position?: number;
    } & CallProgress)
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

/**
 * What a job's work is given: the report to fetch, for whom now, whether it is still wanted, and
 * where its progress goes (the job's status, ticket and calls, which only the registry writes).
 */
export interface JobRun extends FetchRequest {
  readonly id: string;
  /** The job's `queryKey`: what an identical job elsewhere is found by. */
  readonly key: string;
  progress(progress: FetchProgress): void;
  /**
   * Another instance runs the same report and this job follows it: its callers here are shown that
   * job's place in line and estimate (as its row says), not a place of this instance's.
   */
  mirror(status: JobStatus): void;
}

/** One job's record; its run's progress sets `status`, `ticket` and `calls` as it goes. */
export interface Job {
  id: string;
  key: string;
  op: Operation;
  query: ReportQuery;
  createdAt: number;
  status: JobStatus;
  ticket: QueueTicket | null;
  /**
   * The job's place in line, kept for the calls it has said it will still make: its next call takes
   * it again, so its position never goes back to the end between calls (./quota.ts).
   */
  hold: QueueHold | null;
  /** Who waits for it: each owner's subscriptions (an owner submitting the same report again is one more). */
  handles: Map<string, number>;
  /** Owners who cancelled their handle: to them the job reads as cancelled, whoever else still waits. */
  left: Set<string>;
  cancelled: boolean;
  /** Aborted when the job is cancelled: a call waiting for the shared window stops waiting. */
  readonly signal: AbortSignal;
  readonly abort: AbortController;
  promise: Promise<JobResult>;
  finishedAt?: number;
  owner: string;
  /** Last time anyone asked about the job (submitted, joined, polled). */
  seenAt: number;
  /** Callers holding a long poll on it right now. */
  waiters: number;
  calls: CallProgress;
  /**
   * The calls its caller's planner expects it to make (the days not kept, the pages their records
   * take), or 0: until the service has said how many records each part holds, the job counts at
   * least these, so its place in line and its estimate cover them rather than one call a part.
   */
  expectedCalls: number;
  /** Its status is another instance's job's, which it follows (`JobRun.mirror`), until it fetches itself. */
  mirrored: boolean;
}

const JOB_RETENTION_MS = 15 * 60_000;

/** No further call for the job: its queued call leaves the queue, and one waiting for the shared window stops waiting. */
function cancelJob(job: Job): void {
  job.cancelled = true;
  job.ticket?.cancel();
  job.hold?.release();
  job.abort.abort(new CancelledError());
}

export class JobRegistry {
  private readonly jobs = new Map<string, Job>();
  private readonly inflight = new Map<string, Job>();
  private readonly reaper: NodeJS.Timeout;

  /** `queue` is read for the positions and estimates of queued jobs. */
  constructor(
    private readonly config: JobsConfig,
    private readonly queue: QuotaQueue,
  ) {
    this.reaper = setInterval(() => this.reapIdle(), 5_000);
    this.reaper.unref();
  }

  private get limits() {
    const c = this.config;
    return {
      maxJobsPerOwner: c.maxJobsPerOwner ?? JOB_DEFAULTS.maxJobsPerOwner,
      maxJobs: c.maxJobs ?? JOB_DEFAULTS.maxJobs,
      jobIdleSeconds: c.jobIdleSeconds ?? JOB_DEFAULTS.jobIdleSeconds,
    };
  }

  /** Jobs waiting or running. */
  get running(): number {
    return this.inflight.size;
  }

  /** Cancels queued or running jobs whose callers have all gone (nobody polled for a while). */
  reapIdle(now = Date.now()): number {
    const idleMs = this.limits.jobIdleSeconds * 1000;
    let n = 0;
    for (const job of this.inflight.values()) {
      // A background job's caller is the warmer, which never polls: it is not abandoned, and it may
      // rightly wait far longer than the idle time behind people's calls.
      if (job.owner === BACKGROUND_OWNER) continue;
      if (job.waiters > 0 || now - job.seenAt < idleMs) continue;
      cancelJob(job);
      n++;
    }
    return n;
  }

  /**
   * Joins the job in flight for `key` on behalf of `owner` as one more subscriber, or null when there
   * is none. A person joining a background job takes it over: its waiting call and the rest move to
   * their queue, since nobody may wait at background priority. Background joining anything does not
   * subscribe: it never cancels, so it would keep a job alive that its people have left.
   */
  join(key: string, owner: string): JobView | null {
    const running = this.inflight.get(key);
    if (!running) return null;
    if (owner === BACKGROUND_OWNER) return this.view(running);
    running.handles.set(owner, (running.handles.get(owner) ?? 0) + 1);
    running.left.delete(owner);
    running.seenAt = Date.now();
    if (running.owner === BACKGROUND_OWNER) {
      running.owner = owner; // the fetcher reads it before each further call
      // Its waiting call and the place kept for the rest move to the end of people's line together.
      if (running.hold) running.hold.moveTo(owner);
      else running.ticket?.moveTo(owner);
    }
    return this.view(running, owner);
  }

  /** The job in flight (waiting or running) for `key`, or null; asks about it for nobody. */
  inFlight(key: string): JobView | null {
    const running = this.inflight.get(key);
    return running ? this.view(running) : null;
  }

  /** The first job waiting or running that `fits`, or null; looking does not join it. */
  inFlightWhere(fits: (op: Operation, query: ReportQuery) => boolean): JobView | null {
    for (const job of this.inflight.values()) if (fits(job.op, job.query)) return this.view(job);
    return null;
  }

  /** The most recent job that failed within `withinMs` and `fits`, or null (newest first). */
  recentFailureWhere(fits: (key: string, op: Operation, query: ReportQuery) => boolean, withinMs: number, now = Date.now()): JobView | null {
    let best: Job | null = null;
    for (const job of this.jobs.values()) {
      if (job.status.state !== "failed" || !job.finishedAt || now - job.finishedAt > withinMs) continue;
      if (fits(job.key, job.op, job.query) && (!best || job.finishedAt > best.finishedAt!)) best = job;
    }
    return best ? this.view(best) : null;
  }

  /**
   * Starts a job for `owner`: the job's view, and the run its work is done with (then handed to
   * `track`). An owner past their cap of waiting jobs, or everyone past the global one, gets a 429
   * that says which cap and what to do.
   */
  start(op: Operation, query: ReportQuery, key: string, owner: string, id?: string, expectedCalls = 0): { view: JobView; run: JobRun } {
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
    const abort = new AbortController();
    const job: Job = {
      // A job taken over from a stopped instance keeps its id, so its callers' polls keep working.
      id: id ?? randomBytes(16).toString("base64url"),
      key,
      op,
      query,
      createdAt: Date.now(),
      status: { state: "queued", position: 0, estimated_start: new Date().toISOString(), estimated_done: new Date().toISOString(), call: 1, calls: Math.max(1, Math.floor(expectedCalls)), calls_exact: false },
      ticket: null,
      // Its place in line from now: a first call that queues after others' keeps it.
      hold: this.queue.reserve(owner, Math.max(1, Math.floor(expectedCalls))),
      handles: new Map([[owner, 1]]),
      left: new Set(),
      cancelled: false,
      abort,
      signal: abort.signal,
      promise: new Promise<JobResult>(() => undefined),
      owner,
      seenAt: Date.now(),
      waiters: 0,
      calls: { call: 1, calls: Math.max(1, Math.floor(expectedCalls)), calls_exact: false },
      expectedCalls: Math.max(0, Math.floor(expectedCalls)),
      mirrored: false,
    };
    this.jobs.set(job.id, job);
    this.inflight.set(key, job);
    const run: JobRun = { id: job.id, key, op, query, signal: job.signal, owner: () => job.owner, progress: (p) => {
        job.mirrored = false;
        applyProgress(job, p);
      },
      mirror: (status) => {
        if (job.status.state !== "queued" && job.status.state !== "fetching") return;
        if (status.state !== "queued" && status.state !== "fetching") return;
        job.mirrored = true;
        job.status = status;
        // Its calls are the other instance's: no place is kept for them here.
        job.hold?.release();
        job.hold = null;
      },
    };
    return { view: this.view(job, owner), run };
  }

  /** The job of `run` ends as `work` does: done with its result, or failed (cancelled, when it was). */
  track(run: JobRun, work: Promise<JobResult>): void {
    const job = this.jobs.get(run.id);
    if (!job) throw new Error(`no job ${run.id} to track`);
    job.promise = work.then(
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
        job.hold?.release();
        job.finishedAt = Date.now();
        this.inflight.delete(job.key);
        this.sweep();
      });
  }

  /** Waits for a job (tests and server-side callers). */
  async wait(id: string): Promise<JobResult> {
    const job = this.jobs.get(id);
    if (!job) throw new ApiError(404, "No such report job (it may have expired)");
    return job.promise;
  }

  /** The job's view (as `owner` sees it) once it has finished or `ms` have passed, whichever is first (long polling). */
  async settle(id: string, ms: number, owner?: string): Promise<JobView | null> {
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
    return this.view(job, owner);
  }

  /** Jobs waiting or running here, as views (what the shared job rows are renewed from). */
  runningViews(): JobView[] {
    return [...this.inflight.values()].map((j) => this.view(j));
  }

  /** A caller asked about the job elsewhere (another instance) at `at`: it is not forgotten. */
  markSeen(id: string, at: number): void {
    const job = this.jobs.get(id);
    if (job && at > job.seenAt) job.seenAt = at;
  }

  /** Whether this registry knows the job (it ran or runs here). */
  has(id: string): boolean {
    return this.jobs.has(id);
  }

  get(id: string, owner?: string): JobView | null {
    const job = this.jobs.get(id);
    if (job) job.seenAt = Date.now();
    return job ? this.view(job, owner) : null;
  }

  /**
   * One of `owner`'s subscriptions leaves. With their last, their handle reads as cancelled; the
   * upstream work stops only when no owner's handle wants it any more.
   */
  cancel(id: string, owner: string): JobView | null {
    const job = this.jobs.get(id);
    if (!job) return null;
    if (job.status.state === "queued" || job.status.state === "fetching") {
      const mine = (job.handles.get(owner) ?? 0) - 1;
      if (mine > 0) job.handles.set(owner, mine);
      else {
        job.handles.delete(owner);
        job.left.add(owner);
      }
      if (job.handles.size === 0) cancelJob(job);
    }
    return this.view(job, owner);
  }

  /** The job as `owner` sees it (a handle they cancelled reads as cancelled); without `owner`, as it is. */
  private view(job: Job, owner?: string): JobView {
    if (owner !== undefined && job.left.has(owner)) {
      return { id: job.id, operation: job.op, query: job.query, created_at: new Date(job.createdAt).toISOString(), status: { state: "cancelled" } };
    }
    let status = job.status;
    // When its last call should have answered: its estimated start and a call's time.
    const answered = (start: number) => new Date(start + this.queue.callMs).toISOString();
    if (job.mirrored) {
      // Another instance's job, as its row last said.
    } else if (status.state === "fetching" && job.hold && job.hold.count > 0) {
      status = { ...status, estimated_done: answered(job.hold.estimatedLast()), last_position: job.hold.lastPosition() };
    } else if (status.state === "queued" && !job.ticket && job.hold && job.hold.count > 0) {
      // Its first call not queued yet (it reads kept days, or asks other instances first): the place
      // kept for it since it started, rather than "now" for a report that may wait windows.
      status = {
        ...status,
        position: job.hold.position(),
        estimated_start: new Date(job.hold.estimatedStart()).toISOString(),
        estimated_done: answered(job.hold.estimatedLast()),
        last_position: job.hold.lastPosition(),
      };
    } else if (status.state === "queued" && job.ticket) {
      const q = this.queue.status();
      // Every call the report still needs after this one: those kept at its place follow it.
      const later = Math.max(0, job.calls.calls - job.calls.call);
      status = {
        state: "queued",
        position: Math.max(0, job.ticket.position()),
        estimated_start: new Date(job.ticket.estimatedStart()).toISOString(),
        estimated_done: answered(Math.max(job.ticket.estimatedStart(later), job.hold ? job.hold.estimatedLast() : 0)),
        ...(job.hold ? { last_position: job.hold.lastPosition() } : {}),
        ...job.calls,
        ...(q.pausedUntil ? { waiting_for_rate_limit_until: new Date(q.pausedUntil).toISOString() } : {}),
      };
    }
    return { id: job.id, operation: job.op, query: job.query, created_at: new Date(job.createdAt).toISOString(), status };
  }

  /** Forgets finished jobs once nobody can still be polling for them. */
  private sweep(): void {
    const cutoff = Date.now() - JOB_RETENTION_MS;
    for (const [id, job] of this.jobs) if (job.finishedAt && job.finishedAt < cutoff) this.jobs.delete(id);
  }
}

/** A fetch's count of calls, at least what the caller expected while the parts' pages are not all known. */
function withExpected(job: Job, calls: CallProgress): CallProgress {
  return calls.calls_exact || calls.calls >= job.expectedCalls ? calls : { ...calls, calls: job.expectedCalls };
}

/** A fetch's progress, as the job's status, ticket and calls. */
function applyProgress(job: Job, progress: FetchProgress): void {
  if (progress.state === "ticket") {
    job.ticket = progress.ticket;
    const t = progress.ticket;
    if (t) {
      // The calls it still says it needs after this one (it learns more once a piece's pages are known).
      const later = Math.max(0, job.calls.calls - job.calls.call);
      if (job.hold) {
        t.join(job.hold);
        job.hold.keep(later);
      } else job.hold = t.hold(later);
    }
  } else if (progress.state === "queued") {
    const now = new Date().toISOString();
    job.calls = withExpected(job, progress.calls);
    job.status = { state: "queued", position: 0, estimated_start: now, estimated_done: now, ...job.calls };
  } else {
    const { page, pages, piece, pieces } = progress;
    job.calls = withExpected(job, progress.calls);
    job.status = { state: "fetching", page, pages, piece, pieces, ...job.calls };
  }
}

/** A reason a user understands, and what to do about it (the one table in ./errors.ts). */
export function explain(e: unknown): { status: number; message: string; action: string } {
  const { status, message, action } = translateUpstream(e, "report");
  return { status, message, action };
}
