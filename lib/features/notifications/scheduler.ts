import "server-only";
/**
 * Runs alerts' evaluations and scheduled reports' sends in the dashboard's server, each
 * slot once: also across a restart, and across several dashboard instances sharing one PostgreSQL,
 * because a slot runs only for the worker that claims it in the store (./claims.ts).
 *
 * Every tick (every 30 s unless tickSeconds says otherwise), for each item that is not paused, the scheduler takes the item's latest slot at
 * or before now (./spec.ts, in the reporting time zone) and, unless that slot is done or comes before
 * the item was created, claims it and runs it. So:
 * - Only the latest slot runs. Slots missed while no dashboard was up are not replayed one by one:
 *   the latest of them runs once when a dashboard is back, marked late (more than lateAfterSeconds
 *   after the slot).
 * - A run that throws is not retried for the same slot: its claim is completed with the error
 *   message (visible in the claim's history), and the next slot runs as usual. Retrying is the
 *   caller's business (a mail outbox retries its own sends).
 * - A worker that dies after claiming, before completing, leaves a claim whose lease runs out; the
 *   next tick of any worker after that takes it over and runs the slot (late, by then). A run still
 *   going renews its lease, so a slow run is not taken over; but a process that died mid-run, or
 *   between running and recording completion, gets its slot run again: the guarantee is "at most
 *   once per slot, except after a crash in that window".
 * Ticks never overlap; errors are logged as one JSON line each and never thrown out of the timer.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { Cron } from "croner";
import type { Sql } from "@/lib/core/store/sql";
import { claimsRepo, type ClaimKind, type ClaimsRepo } from "./claims";
import { latestSlot, type ScheduleSpec } from "./spec";

export interface ScheduledItem {
  kind: ClaimKind;
  /** A uuid (the alert's or the subscription's id). */
  id: string;
  spec: ScheduleSpec;
  /**
   * Slots before this never run: a new item waits for its first slot after it was made, an edited or
   * resumed one for its first slot after that (callers pass the item's last change).
   */
  notBefore: Date;
  paused: boolean;
}

export interface SchedulerOptions<I extends ScheduledItem = ScheduledItem> {
  db: Sql;
  /** Unique per process (see defaultWorkerId); named on the claims it makes. */
  workerId: string;
  /** The reporting time zone, in which every item's schedule is read. */
  timeZone: string;
  /** How long a claim stays the claimer's without renewal (default 300); a dead worker's slot waits this long. */
  leaseSeconds?: number;
  /** A slot run more than this after its time is marked late (default 300). */
  lateAfterSeconds?: number;
  /** The items to schedule, asked on every tick. */
  items: () => Promise<I[]>;
  /** Runs one slot of an item. A throw is recorded on the slot's claim, not retried. */
  run: (item: I, slot: Date, ctx: { late: boolean }) => Promise<void>;
  /** Where the one JSON line per error goes; console.error unless given (tests capture it). */
  log?: (line: string) => void;
  /** The clock slots are computed from (tests inject one); leases use the store's clock. */
  now?: () => Date;
  /**
   * Seconds between ticks (default 30), a divisor of 60 so that ticks fall on the same seconds of
   * every minute. Slots are computed from the schedule, not from ticks: a shorter interval runs a
   * due slot sooner after its time and looks at the store more often.
   */
  tickSeconds?: number;
}

/** A slot a tick ran. */
export interface SlotRun {
  kind: ClaimKind;
  id: string;
  slot: Date;
  late: boolean;
  /** The run's error message when it threw, else null. */
  error: string | null;
}

/** The croner pattern of a timer every `seconds` seconds, on the seconds of the minute that are multiples of it. */
export function tickPattern(seconds: number): string {
  if (!(Number.isInteger(seconds) && seconds >= 1 && 60 % seconds === 0)) throw new RangeError(`Scheduler: tickSeconds must divide 60, not ${seconds}`);
  return seconds === 60 ? "0 * * * * *" : `*/${seconds} * * * * *`;
}

/** A worker id unique to this process: host, pid and a random part (pids repeat across restarts and containers). */
export function defaultWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

const messageOf = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/** Strips what could be a credential from an error message: URL user info, bearer tokens, key=value secrets. */
function redact(message: string): string {
  return message
    .replace(/\/\/[^/\s:@]+:[^/\s@]+@/g, "//[redacted]@")
    .replace(/\bBearer\s+[\w.~+/-]+=*/gi, "Bearer [redacted]")
    .replace(/\b(secret|password|pass|token|authorization)(["']?\s*[:=]\s*["']?)[^\s"',}]+/gi, "$1$2[redacted]")
    .slice(0, 1000);
}

export class Scheduler<I extends ScheduledItem = ScheduledItem> {
  private readonly claims: ClaimsRepo;
  private readonly leaseSeconds: number;
  private readonly lateAfterMs: number;
  private readonly log: (line: string) => void;
  private readonly now: () => Date;
  private readonly pattern: string;
  private job: Cron | null = null;
  /** The tick under way, if any. */
  private running: Promise<SlotRun[]> | null = null;

  constructor(private readonly opts: SchedulerOptions<I>) {
    this.claims = claimsRepo(opts.db);
    this.leaseSeconds = opts.leaseSeconds ?? 300;
    if (!(this.leaseSeconds > 0)) throw new RangeError(`Scheduler: leaseSeconds must be positive, not ${this.leaseSeconds}`);
    this.lateAfterMs = (opts.lateAfterSeconds ?? 300) * 1000;
    this.log = opts.log ?? ((line) => console.error(line));
    this.now = opts.now ?? (() => new Date());
    this.pattern = tickPattern(opts.tickSeconds ?? 30);
  }

  get workerId(): string {
    return this.opts.workerId;
  }

  /**
   * Ticks every tickSeconds (by default on :00 and :30 of each minute) until stop(). The timer does not keep the process alive,
   * and a tick still running when the next is due makes that one a no-op.
   */
  start(): void {
    if (this.job) return;
    this.job = new Cron(
      this.pattern,
      { protect: true, unref: true, catch: (e) => this.logError("scheduler tick failed", e) },
      async () => {
        await this.tick();
      },
    );
  }

  /**
   * Stops ticking; resolves when a tick under way has finished (so the store can then be closed) —
   * which waits for a run under way, however long it takes.
   */
  async stop(): Promise<void> {
    this.job?.stop();
    this.job = null;
    await this.running;
  }

  /**
   * One pass over the items: runs each due slot this worker claims, one item after another. Returns
   * the slots it ran (with their errors); [] at once when another tick of this scheduler is under
   * way. Never throws: failures are logged.
   */
  tick(): Promise<SlotRun[]> {
    if (this.running) return Promise.resolve([]);
    const run = this.work().catch((e: unknown) => {
      this.logError("scheduler tick failed", e);
      return [];
    });
    this.running = run;
    void run.finally(() => (this.running = null));
    return run;
  }

  private async work(): Promise<SlotRun[]> {
    let items: I[];
    try {
      items = await this.opts.items();
    } catch (e) {
      this.logError("scheduler could not list its items", e);
      return [];
    }
    const ran: SlotRun[] = [];
    for (const item of items) {
      if (item.paused) continue;
      try {
        const done = await this.runItem(item);
        if (done) ran.push(done);
      } catch (e) {
        // The store failing, a bad spec or time zone: this item waits for the next tick.
        this.logError("scheduler could not schedule an item", e, item);
      }
    }
    return ran;
  }

  private async runItem(item: I): Promise<SlotRun | null> {
    const { kind, id } = item;
    const now = this.now();
    const slot = latestSlot(item.spec, now, this.opts.timeZone);
    if (slot.getTime() < item.notBefore.getTime()) return null;
    const existing = await this.claims.get(kind, id, slot);
    if (existing?.doneAt) return null;
    const late = now.getTime() - slot.getTime() > this.lateAfterMs;
    if (!(await this.claims.claim(kind, id, slot, this.opts.workerId, this.leaseSeconds, late))) return null;

    // Keep the claim while the run lasts: renew at a third of the lease.
    const renewal = setInterval(() => {
      this.claims.renew(kind, id, slot, this.opts.workerId, this.leaseSeconds).then(
        (held) => {
          if (!held) this.logError("scheduler lost its claim while running", new Error("lease taken over"), item, slot);
        },
        (e: unknown) => this.logError("scheduler could not renew its claim", e, item, slot),
      );
    }, Math.max(250, (this.leaseSeconds * 1000) / 3));
    renewal.unref();

    let error: string | null = null;
    try {
      await this.opts.run(item, slot, { late });
    } catch (e) {
      error = redact(messageOf(e));
      this.logError("scheduled run failed", e, item, slot);
    } finally {
      clearInterval(renewal);
    }
    await this.complete(item, slot, error);
    return { kind, id, slot, late, error };
  }

  /**
   * Records completion, trying three times: a claim left open is run again once its lease is out.
   * Never throws (the run has happened; the tick reports it either way).
   */
  private async complete(item: I, slot: Date, error: string | null): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        if (!(await this.claims.complete(item.kind, item.id, slot, this.opts.workerId, error))) {
          this.logError("scheduler could not complete a slot it no longer held", new Error("lease taken over"), item, slot);
        }
        return;
      } catch (e) {
        if (attempt >= 3) {
          this.logError("scheduler could not record a run as done; the slot will run again when its lease is out", e, item, slot);
          return;
        }
        await new Promise((r) => setTimeout(r, 500 * attempt));
      }
    }
  }

  /** One JSON line: what failed, which item and slot, and the error's message with secrets removed. */
  private logError(msg: string, e: unknown, item?: I, slot?: Date): void {
    this.log(
      JSON.stringify({
        level: "error",
        msg,
        worker: this.opts.workerId,
        ...(item ? { kind: item.kind, id: item.id } : {}),
        ...(slot ? { slot: slot.toISOString() } : {}),
        error: redact(messageOf(e)),
      }),
    );
  }
}
