/**
 * The group-commit writer of the running service (`RoutingJournal`): it queues decided calls, writes
 * them in batches, releases each call once its batch is on disk, and folds durable batches into
 * DuckDB in the background. It alone holds the service's in-flight state (queued calls, outstanding
 * syncs, the open segment); replay, which runs with no writer, is journal-replay.ts.
 */
import { closeSync, fdatasync, openSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { Database } from "../db";
import { appliedSeq, foldInto } from "./journal-fold";
import { foldJournal } from "./journal-replay";
import { encodeBatchLine, fsyncDir, journalSegments, segmentPath, type Batch, type ConfigChangeRecord, type DecisionRecord, type StateRecord } from "./journal-segments";

/** Someone waiting for a batch to be durable. */
interface Waiter {
  resolve: () => void;
  reject: (e: Error) => void;
}

interface Pending extends Waiter {
  record: DecisionRecord;
}

export interface JournalOptions {
  /** How often written batches are folded into DuckDB. */
  foldIntervalMs?: number;
  /** Fold early once this many decisions are waiting. */
  foldThreshold?: number;
  /** How many fdatasyncs may be outstanding at once (batches still leave in order). */
  maxInFlight?: number;
  log?: (level: "info" | "error", msg: string, fields?: Record<string, string | number>) => void;
}

export class JournalUnavailableError extends Error {}

interface InFlight {
  seq: number;
  pendings: Waiter[];
  batch: Batch;
}

/**
 * The running service's writer. `append` resolves once the decision is on disk.
 *
 * A batch is written with a synchronous `write` (it only reaches the page cache, so it does not hold
 * up the event loop) and made durable with an asynchronous `fdatasync` on the thread pool, so the
 * event loop keeps deciding calls while the disk works. Up to `maxInFlight` syncs may be outstanding;
 * a sync started after batch n was written covers every batch up to n (same file), and batches are
 * released strictly in order.
 */
export class RoutingJournal {
  private pending: Pending[] = [];
  private touched = new Set<number>();
  private scheduled = false;
  private writtenSeq: number;
  private durable: number;
  private inFlight: InFlight[] = [];
  private syncs = 0;
  private fd: number | null = null;
  private segmentNo: number;
  private currentSegment: string | null = null;
  /** Closed segments whose batches are not yet folded into DuckDB. */
  private sealed: string[] = [];
  /** Durable batches not yet folded. */
  private unfolded: Batch[] = [];
  private unfoldedCount = 0;
  private rotateRequested = false;
  private folding: Promise<void> | null = null;
  private failure: Error | null = null;
  private closing = false;
  private idleWaiters: (() => void)[] = [];
  /** Batches written, calls in them, and time from write to durable (for the log at close). */
  private readonly stats = { batches: 0, calls: 0, syncMs: 0, maxSyncMs: 0 };
  private readonly timer: NodeJS.Timeout;
  private readonly foldThreshold: number;
  private readonly maxInFlight: number;
  private readonly log: NonNullable<JournalOptions["log"]>;

  private constructor(
    private readonly db: Database,
    private readonly snapshot: (groupId: number) => StateRecord,
    startSeq: number,
    opts: JournalOptions,
  ) {
    this.writtenSeq = startSeq;
    this.durable = startSeq;
    this.segmentNo = journalSegments(db.path).reduce((m, s) => Math.max(m, s.no), 0);
    this.foldThreshold = opts.foldThreshold ?? 50_000;
    this.maxInFlight = Math.max(1, opts.maxInFlight ?? 2);
    this.log = opts.log ?? (() => undefined);
    this.timer = setInterval(() => this.requestFold(), opts.foldIntervalMs ?? 5_000);
    this.timer.unref();
  }

  /** Replays what a previous process left (see foldJournal), then returns a writer continuing its sequence. */
  static async open(db: Database, snapshot: (groupId: number) => StateRecord, opts: JournalOptions = {}): Promise<RoutingJournal> {
    await foldJournal(db);
    return new RoutingJournal(db, snapshot, await appliedSeq(db), opts);
  }

  /** Queues a decision; resolves when it is durable. Call right after the state change it records. */
  append(record: DecisionRecord): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(new JournalUnavailableError("the service is shutting down"));
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ record, resolve, reject });
      this.touched.add(record.g);
      this.schedule();
    });
  }

  /** The journal takes nothing more: it failed (until a restart) or it is closing. */
  get unavailable(): boolean {
    return this.failure !== null || this.closing;
  }

  /** Sequence number of the last batch known to be on disk. */
  get durableSeq(): number {
    return this.durable;
  }

  private schedule(): void {
    if (this.scheduled || this.syncs >= this.maxInFlight) return;
    this.scheduled = true;
    // Let every request already read in this turn of the event loop join the batch.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
      this.notifyIfIdle();
    });
  }

  private flush(): void {
    if (this.pending.length === 0 || this.failure || this.syncs >= this.maxInFlight) return;
    if (this.rotateRequested || this.unfoldedCount >= this.foldThreshold) {
      // Rotation waits for the outstanding syncs, so a segment's batches are all durable when it is sealed.
      if (this.syncs > 0) return;
      this.rotateAndFold();
    }
    // Taken synchronously together: the states are exactly those after the batch's last decision.
    const pendings = this.pending;
    this.pending = [];
    const states = [...this.touched].map(this.snapshot);
    this.touched = new Set();
    this.writeBatch(pendings, states);
  }

  /**
   * Journals a new configuration version, in the same synchronous step as the caller swaps its
   * routing table (call it before the swap): the decisions queued so far, made under the previous
   * configuration, go into the same line ahead of the change, with their groups' states as of now.
   * Resolves once the line is on disk. Every later decision goes into a later batch, so no answer
   * given under the new version is released before the version itself is durable.
   */
  appendConfig(change: ConfigChangeRecord): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(new JournalUnavailableError("the service is shutting down"));
    return new Promise<void>((resolve, reject) => {
      const pendings = this.pending;
      this.pending = [];
      const states = [...this.touched].map(this.snapshot);
      this.touched = new Set();
      // Written at once even with `maxInFlight` syncs outstanding: the limit only paces decisions.
      this.writeBatch(pendings, states, change, { resolve, reject });
    });
  }

  private writeBatch(pendings: Pending[], states: StateRecord[], change?: ConfigChangeRecord, changeWaiter?: Waiter): void {
    const seq = this.writtenSeq + 1;
    const decisions = JSON.stringify(pendings.map((p) => p.record));
    const line = encodeBatchLine(seq, states, decisions, change);
    const started = performance.now();
    const waiting: Waiter[] = changeWaiter ? [...pendings, changeWaiter] : pendings;
    let fd: number;
    try {
      if (this.fd === null) this.openSegment();
      fd = this.fd!;
      writeAllSync(fd, line);
    } catch (e) {
      this.fail(e, waiting);
      return;
    }
    this.writtenSeq = seq;
    this.inFlight.push({ seq, pendings: waiting, batch: { seq, states, decisions, count: pendings.length, ...(change ? { config: change } : {}) } });
    this.syncs += 1;
    fdatasync(fd, (err) => {
      this.syncs -= 1;
      if (err) this.fail(err, []);
      else if (!this.failure) {
        const ms = performance.now() - started;
        this.stats.batches += 1;
        this.stats.calls += pendings.length;
        this.stats.syncMs += ms;
        this.stats.maxSyncMs = Math.max(this.stats.maxSyncMs, ms);
        this.markDurable(seq);
      }
      this.afterSync();
    });
  }

  /** Every batch up to `seq` is on disk: release their calls, in order. */
  private markDurable(seq: number): void {
    if (seq <= this.durable) return;
    this.durable = seq;
    while (this.inFlight.length > 0 && this.inFlight[0]!.seq <= seq) {
      const done = this.inFlight.shift()!;
      this.unfolded.push(done.batch);
      this.unfoldedCount += done.batch.count;
      for (const p of done.pendings) p.resolve();
    }
  }

  private afterSync(): void {
    if (this.pending.length > 0) this.schedule();
    else if (this.syncs === 0 && this.rotateRequested && !this.folding) this.rotateAndFold();
    this.notifyIfIdle();
  }

  private notifyIfIdle(): void {
    if (this.syncs === 0 && this.pending.length === 0 && !this.scheduled) for (const w of this.idleWaiters.splice(0)) w();
  }

  private fail(e: unknown, batch: Waiter[]): void {
    // The journal can no longer promise durability: refuse routing until an operator restarts the
    // service (which replays what did reach the disk).
    const err = e instanceof JournalUnavailableError ? e : new JournalUnavailableError(`routing journal write failed: ${e instanceof Error ? e.message : String(e)}`);
    if (!this.failure) this.log("error", "routing journal failed; routing calls are refused until restart", { error: err.message });
    this.failure = err;
    for (const p of batch) p.reject(err);
    for (const f of this.inFlight.splice(0)) for (const p of f.pendings) p.reject(err);
    for (const p of this.pending.splice(0)) p.reject(err);
  }

  private openSegment(): void {
    this.segmentNo += 1;
    const path = segmentPath(this.db.path, this.segmentNo);
    this.fd = openSync(path, "a");
    this.currentSegment = path;
    fsyncDir(dirname(path));
  }

  private requestFold(): void {
    if (this.unfolded.length === 0 || this.folding) return;
    if (this.syncs > 0 || this.scheduled) this.rotateRequested = true;
    else this.rotateAndFold();
  }

  /** Seals the current segment and folds every durable batch into DuckDB. Only with no sync outstanding. */
  private rotateAndFold(): void {
    this.rotateRequested = false;
    if (this.folding || this.unfolded.length === 0 || this.syncs > 0) return;
    if (this.fd !== null) {
      closeSync(this.fd);
      this.fd = null;
      if (this.currentSegment) this.sealed.push(this.currentSegment);
      this.currentSegment = null;
    }
    const batches = this.unfolded;
    const segments = this.sealed;
    this.unfolded = [];
    this.unfoldedCount = 0;
    this.sealed = [];
    // Segments sealed with no failure hold exactly the written batches: DuckDB can read them directly.
    const fromFiles = this.failure === null;
    this.folding = this.db
      .transaction((tx) => foldInto(tx, batches, fromFiles ? segments : undefined))
      .catch(async (e: unknown) => {
        if (!fromFiles) throw e;
        this.log("error", "routing journal fold from files failed; folding from memory", { error: e instanceof Error ? e.message : String(e) });
        await this.db.transaction((tx) => foldInto(tx, batches));
      })
      .then(
        () => {
          for (const s of segments) unlinkSync(s);
        },
        (e: unknown) => {
          // Nothing was applied; keep the batches (and their segments) for the next attempt.
          this.log("error", "routing journal fold failed; will retry", { error: e instanceof Error ? e.message : String(e) });
          this.unfolded = batches.concat(this.unfolded);
          this.unfoldedCount += batches.reduce((a, b) => a + b.count, 0);
          this.sealed = segments.concat(this.sealed);
        },
      )
      .finally(() => {
        this.folding = null;
      });
  }

  /** Waits for queued decisions to be written, folds everything into DuckDB, and releases the file. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.timer);
    while (this.syncs > 0 || this.pending.length > 0 || this.scheduled) {
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
    if (this.folding) await this.folding;
    this.rotateAndFold();
    if (this.folding) await this.folding;
    if (this.fd !== null) {
      closeSync(this.fd);
      this.fd = null;
      if (this.currentSegment && this.unfolded.length === 0) unlinkSync(this.currentSegment); // nothing durable left in it
    }
    const { batches, calls, syncMs, maxSyncMs } = this.stats;
    if (batches > 0) {
      this.log("info", "routing journal closed", {
        batches,
        calls,
        calls_per_batch: Math.round((calls / batches) * 10) / 10,
        mean_sync_ms: Math.round((syncMs / batches) * 100) / 100,
        max_sync_ms: Math.round(maxSyncMs * 100) / 100,
      });
    }
  }
}

function writeAllSync(fd: number, buf: Buffer): void {
  let offset = 0;
  while (offset < buf.length) offset += writeSync(fd, buf, offset, buf.length - offset);
}
