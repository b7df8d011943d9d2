/**
 * Durable routing state with group commit (docs/routing.md, "Durability").
 *
 * The durable record of every answered routing call is an append-only journal next to the database
 * file. Calls are decided in memory (synchronously, so concurrent calls never interleave), queued
 * here, and written in batches (group commit): the calls that arrived in one turn of the event loop,
 * or while earlier batches were being synced, go out as one line and one `fdatasync`. A call's
 * response is sent only after the batch holding its decision is on disk. Each line carries the
 * decisions and the rotation state of the groups they touched, after the batch, plus a sequence number.
 *
 * In the background (every few seconds, and at shutdown) the journal is folded into the DuckDB tables
 * `routing_decisions` and `routing_group_state` in one transaction that also records the last folded
 * sequence number; then the folded journal segments are deleted. At start, and before the CLI reads or
 * replaces the configuration, segments left by a crash are replayed the same way (batches at or below
 * the recorded sequence number are skipped, so a crash mid-fold is harmless; a torn last line, a
 * batch whose fdatasync never returned, was never answered and is dropped).
 */
import { closeSync, fdatasync, fsyncSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Database, Tx } from "../db";

/** One answered call, as journaled (short keys: this is written once per call). */
export interface DecisionRecord {
  /** decided at, Unix ms */
  t: number;
  /** bin */
  b: string;
  /** sales type */
  s?: "INITIALS" | "REBILLS";
  /** rule name */
  r: string;
  /** is fallback */
  f: boolean;
  /** group id */
  g: number;
  /** gateway id */
  w: number;
  /** the group's total_calls after this call */
  n: number;
  /** customer id */
  c?: string;
  /** product id */
  p?: string;
  /** SHA-256 (hex) of the lower-cased e-mail */
  e?: string;
  /** API client */
  k?: string;
}

/** A group's rotation state after a batch. */
export interface StateRecord {
  g: number;
  n: number;
  p: number;
  c: number[];
  r: number | null;
}

interface Batch {
  seq: number;
  states: StateRecord[];
  /** The batch's decisions as a JSON array text (kept as written, folded into DuckDB as is). */
  decisions: string;
  count: number;
}

interface Pending {
  record: DecisionRecord;
  resolve: () => void;
  reject: (e: Error) => void;
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

const SEGMENT_SUFFIX = ".jnl";
const INSERT_CHUNK = 5000;
const DECISION_JSON_SHAPE = JSON.stringify([
  { t: "BIGINT", b: "VARCHAR", s: "VARCHAR", r: "VARCHAR", f: "BOOLEAN", g: "INTEGER", w: "INTEGER", n: "BIGINT", c: "VARCHAR", p: "VARCHAR", e: "VARCHAR", k: "VARCHAR" },
]);

function segmentPrefix(dbPath: string): string {
  return `${basename(dbPath)}.routing-journal.`;
}

/** Journal segments of a database file, oldest first. */
export function journalSegments(dbPath: string): { path: string; no: number }[] {
  const dir = dirname(dbPath);
  const prefix = segmentPrefix(dbPath);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(prefix) && n.endsWith(SEGMENT_SUFFIX))
    .map((n) => ({ path: join(dir, n), no: Number(n.slice(prefix.length, -SEGMENT_SUFFIX.length)) }))
    .filter((s) => Number.isSafeInteger(s.no))
    .sort((a, b) => a.no - b.no);
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Not every platform can fsync a directory; the file's own fdatasync still holds its contents.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

async function appliedSeq(db: Database): Promise<number> {
  const rows = await db.all<{ s: string | number | null }>("SELECT max(applied_seq) AS s FROM routing_journal_checkpoint");
  return Number(rows[0]?.s ?? 0);
}

const DECISION_STRUCT =
  "STRUCT(t BIGINT, b VARCHAR, s VARCHAR, r VARCHAR, f BOOLEAN, g INTEGER, w INTEGER, n BIGINT, c VARCHAR, p VARCHAR, e VARCHAR, k VARCHAR)[]";
const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * Writes batches into the tables and records the last sequence number, all in `tx`. With `files`
 * (complete journal segments holding exactly these batches, and older ones), DuckDB reads the
 * decisions from the files itself, which costs a third of parsing them from a parameter; the number
 * of rows inserted is checked against the batches.
 */
async function foldInto(tx: Tx, batches: readonly Batch[], files?: readonly string[]): Promise<void> {
  const first = batches[0];
  const last = batches[batches.length - 1];
  if (!first || !last) return;
  const expected = batches.reduce((n, b) => n + b.count, 0);
  if (files && files.length > 0) {
    const rows = await tx.all<{ Count?: string | number }>(
      `INSERT INTO routing_decisions
       SELECT epoch_ms(r.t), r.b, r.s, r.r, r.f, r.g, r.w, r.n, r.c, r.p, r.e, r.k
       FROM (SELECT unnest(d) AS r FROM read_json([${files.map(sqlString).join(", ")}], format = 'newline_delimited',
               columns = {seq: 'BIGINT', d: '${DECISION_STRUCT}'})
             WHERE seq BETWEEN ? AND ?)`,
      [first.seq, last.seq],
    );
    const inserted = Number(rows[0]?.Count ?? NaN); // DuckDB answers an INSERT with its row count
    if (inserted !== expected) throw new Error(`journal files held ${inserted} decisions for batches ${first.seq}..${last.seq}, expected ${expected}`);
  } else {
    let parts: string[] = [];
    let count = 0;
    const flushChunk = async () => {
      if (parts.length === 0) return;
      await tx.run(
        `INSERT INTO routing_decisions
         SELECT epoch_ms(r.t), r.b, r.s, r.r, r.f, r.g, r.w, r.n, r.c, r.p, r.e, r.k
         FROM (SELECT unnest(from_json(?::JSON, '${DECISION_JSON_SHAPE}')) AS r)`,
        [`[${parts.join(",")}]`],
      );
      parts = [];
      count = 0;
    };
    for (const b of batches) {
      if (b.count > 0) {
        parts.push(b.decisions.slice(1, -1));
        count += b.count;
      }
      if (count >= INSERT_CHUNK) await flushChunk();
    }
    await flushChunk();
  }
  const latest = new Map<number, StateRecord>();
  for (const b of batches) for (const st of b.states) latest.set(st.g, st);
  for (const st of latest.values()) {
    await tx.run(
      "UPDATE routing_group_state SET total_calls = ?, position = ?, credits = ?, random_next = ?, updated_at = current_timestamp WHERE group_id = ?",
      [st.n, st.p, JSON.stringify(st.c), st.r, st.g],
    );
  }
  await tx.run("UPDATE routing_journal_checkpoint SET applied_seq = ?", [last.seq]);
}

function isBatchLine(v: unknown): v is { seq: number; s: StateRecord[]; d: DecisionRecord[] } {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return Number.isSafeInteger(o.seq) && Array.isArray(o.s) && Array.isArray(o.d);
}

/**
 * Replays journal segments left behind (by a crash, or a process that could not fold at exit) into the
 * tables and deletes them. Safe to call at any time no writer is active on this database file.
 */
export async function foldJournal(db: Database): Promise<{ batches: number; decisions: number; tornTail: boolean }> {
  const segments = journalSegments(db.path);
  if (segments.length === 0) return { batches: 0, decisions: 0, tornTail: false };
  const applied = await appliedSeq(db);
  const batches: Batch[] = [];
  let tornTail = false;
  let lastSeq = applied;
  segments.forEach((seg, si) => {
    const lines = readFileSync(seg.path, "utf8").split("\n");
    lines.forEach((line, li) => {
      if (line === "") return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        parsed = undefined;
      }
      if (!isBatchLine(parsed)) {
        const isLastLine = si === segments.length - 1 && lines.slice(li + 1).every((l) => l === "");
        if (isLastLine) {
          tornTail = true; // written but never synced: its calls were never answered
          return;
        }
        throw new Error(`Routing journal ${seg.path} is damaged at line ${li + 1}; it has not been applied (move it away to start without it)`);
      }
      if (parsed.seq <= lastSeq) return;
      lastSeq = parsed.seq;
      batches.push({ seq: parsed.seq, states: parsed.s, decisions: JSON.stringify(parsed.d), count: parsed.d.length });
    });
  });
  if (batches.length > 0) await db.transaction((tx) => foldInto(tx, batches));
  for (const seg of segments) unlinkSync(seg.path);
  fsyncDir(dirname(db.path));
  return { batches: batches.length, decisions: batches.reduce((a, b) => a + b.count, 0), tornTail };
}

export class JournalUnavailableError extends Error {}

interface InFlight {
  seq: number;
  pendings: Pending[];
  batch: Batch;
}

/**
 * The running service's writer. `append` resolves once the decision is on disk.
 *
 * A batch is written with a synchronous `write` (into the page cache, microseconds) and made durable
 * with an asynchronous `fdatasync` on the thread pool, so the event loop keeps deciding calls while
 * the disk works. Up to `maxInFlight` syncs may be outstanding; a sync started after batch n was
 * written covers every batch up to n (same file), and batches are released strictly in order.
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
    const seq = this.writtenSeq + 1;
    const decisions = JSON.stringify(pendings.map((p) => p.record));
    const line = Buffer.from(`{"seq":${seq},"s":${JSON.stringify(states)},"d":${decisions}}\n`, "utf8");
    const started = performance.now();
    let fd: number;
    try {
      if (this.fd === null) this.openSegment();
      fd = this.fd!;
      writeAllSync(fd, line);
    } catch (e) {
      this.fail(e, pendings);
      return;
    }
    this.writtenSeq = seq;
    this.inFlight.push({ seq, pendings, batch: { seq, states, decisions, count: pendings.length } });
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

  private fail(e: unknown, batch: Pending[]): void {
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
    const path = join(dirname(this.db.path), `${segmentPrefix(this.db.path)}${String(this.segmentNo).padStart(8, "0")}${SEGMENT_SUFFIX}`);
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
