/**
 * The upstream quota shared by every dashboard instance on one PostgreSQL database: the
 * rolling window lives in `upstream_calls` (one row per reporting call any instance started) and a
 * 429's pause in `upstream_pause` (migration 8). An instance takes a call under a transaction-scoped
 * advisory lock, so the count and the insert cannot interleave with another instance's; times are
 * the database's own clock, so instances with skewed clocks still agree on the window.
 *
 * The window is the configured one plus the same margin the local QuotaQueue keeps (./quota.ts): a
 * call that leaves one instance just as another's slot frees cannot reach the upstream too early.
 */
import type { Sql, Store } from "@/lib/core/store/sql";
import type { SharedQuota } from "./shared";

/** Any constant will do; it must be the same in every instance (and differ from the migrator's). */
export const QUOTA_LOCK_ID = 7_286_125_020;

export interface PgQuotaOptions {
  /** The dashboard store (PostgreSQL); needs transactions. */
  db: Pick<Store, "transaction">;
  /** Reporting calls per window, for every instance together. */
  limit: number;
  /** The configured window (what users are told), ms. */
  windowMs: number;
  /** Widens the window as QuotaQueue does; default the same as QuotaQueue's. */
  marginMs?: number;
  /** Names this instance in `upstream_calls.instance` (diagnostics only). */
  instance: string;
  /** Longest single sleep while waiting, ms: a wait is re-checked at least this often. Default 1000. */
  pollMs?: number;
}

/** QuotaQueue's default margin (./quota.ts), so the shared window is exactly as wide as a local one. */
export function defaultMarginMs(windowMs: number): number {
  return Math.min(500, windowMs / 20);
}

interface Attempt {
  /** The id of the call row taken, or null when none was. */
  id: string | null;
  /** When not taken: ms until a slot frees or the pause ends, by the database's clock. */
  wait_ms: number | null;
  /** ms until a running pause (a 429 any instance saw) ends; null when none runs. */
  pause_ms: number | null;
}

/**
 * One statement after the lock: forget calls that left the window, count the rest, and take a call
 * when the window has room and no pause is running; otherwise say how long until it may. It runs
 * after the lock statement so that its snapshot sees every call the previous holder committed.
 * $1 window+margin (ms), $2 limit, $3 instance.
 */
const ATTEMPT = `
  WITH clock AS (SELECT clock_timestamp() AS t),
  gone AS (
    DELETE FROM upstream_calls WHERE at <= (SELECT t FROM clock) - $1::float8 * interval '1 millisecond'
  ),
  state AS (
    SELECT c.t,
           (SELECT count(*) FROM upstream_calls WHERE at > c.t - $1::float8 * interval '1 millisecond') AS n,
           (SELECT at FROM upstream_calls WHERE at > c.t - $1::float8 * interval '1 millisecond'
              ORDER BY at DESC OFFSET $2::int - 1 LIMIT 1) AS nth_newest,
           (SELECT until FROM upstream_pause WHERE id = 1) AS paused_until
    FROM clock c
  ),
  taken AS (
    INSERT INTO upstream_calls (at, instance)
    SELECT t, $3 FROM state WHERE n < $2::int AND (paused_until IS NULL OR paused_until <= t)
    RETURNING id
  )
  SELECT (SELECT id::text FROM taken) AS id,
         (SELECT 1000 * extract(epoch FROM GREATEST(
                   CASE WHEN n >= $2::int THEN nth_newest + $1::float8 * interval '1 millisecond' - t ELSE interval '0' END,
                   CASE WHEN paused_until > t THEN paused_until - t ELSE interval '0' END))::float8
            FROM state) AS wait_ms,
         (SELECT 1000 * extract(epoch FROM paused_until - t)::float8 FROM state WHERE paused_until > t) AS pause_ms
`;

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export class PgQuota implements SharedQuota {
  /** The window this quota enforces: the configured one plus the margin, ms. */
  readonly windowMs: number;
  readonly limit: number;
  private readonly db: Pick<Store, "transaction">;
  private readonly instance: string;
  private readonly pollMs: number;

  constructor(opts: PgQuotaOptions) {
    if (!(opts.limit >= 1)) throw new Error(`PgQuota: limit must be at least 1, not ${opts.limit}`);
    this.db = opts.db;
    this.limit = Math.floor(opts.limit);
    this.windowMs = opts.windowMs + (opts.marginMs ?? defaultMarginMs(opts.windowMs));
    this.instance = opts.instance;
    this.pollMs = Math.max(10, opts.pollMs ?? 1000);
  }

  async acquire(signal?: AbortSignal, onPause?: (until: number) => void): Promise<void> {
    for (;;) {
      if (signal?.aborted) throw abortError(signal);
      const attempt = await this.db.transaction(async (tx: Sql) => {
        await tx.query("SELECT pg_advisory_xact_lock($1)", [QUOTA_LOCK_ID]);
        const [row] = await tx.query<Attempt>(ATTEMPT, [this.windowMs, this.limit, this.instance]);
        return row ?? { id: null, wait_ms: 0, pause_ms: null };
      });
      if (attempt.id !== null) {
        if (!signal?.aborted) return;
        // Aborted while taking it: no call is made, so give the slot back.
        await this.db.transaction((tx) => tx.query("DELETE FROM upstream_calls WHERE id = $1", [attempt.id])).catch(() => undefined);
        throw abortError(signal);
      }
      // A pause another instance set: this instance's queue learns when it ends (this instance's clock).
      if (attempt.pause_ms !== null && attempt.pause_ms > 0) onPause?.(Date.now() + attempt.pause_ms);
      // +1 ms: the database keeps microseconds, and waking a hair early only costs another look.
      await sleep(Math.min(this.pollMs, Math.max(1, Math.ceil(attempt.wait_ms ?? 0) + 1)), signal);
    }
  }

  /**
   * Pauses every instance until `until` (this instance's clock), kept as the database's clock plus
   * the same distance, never shortening a longer pause already set.
   */
  async pause(until: number): Promise<void> {
    const ms = Math.max(0, until - Date.now());
    await this.db.transaction((tx) =>
      tx.query(
        `INSERT INTO upstream_pause (id, until) VALUES (1, clock_timestamp() + $1::float8 * interval '1 millisecond')
         ON CONFLICT (id) DO UPDATE SET until = GREATEST(upstream_pause.until, EXCLUDED.until)`,
        [ms],
      ),
    );
  }
}
