/**
 * Failed sign-in bookkeeping for throttling: one row per failure under a key such as
 * "account:<email>" or "address:<ip>", counted over a sliding window.
 *
 * `attempt` counts an attempt *before* the password is checked: it inserts the attempt's row under
 * every key, then counts. Each attempt counts after its own row is in, so whatever the interleaving
 * the last of the attempts allowed under a key sees every allowed one's row, and at most `max`
 * attempts per key get checked however many arrive at once.
 */
import type { Sql } from "@/lib/core/store/sql";

export interface AttemptLimit {
  key: string;
  /** Attempts allowed in the window, this one included. */
  max: number;
}

export type Attempt =
  | {
      allowed: true;
      /** Takes the attempt back (it succeeded): it stops counting as a failure. */
      forget(): Promise<void>;
    }
  | { allowed: false; retryAfterSeconds: number };

export function throttleRepo(db: Sql) {
  const forgetIds = async (ids: readonly string[]) => {
    if (ids.length > 0) await db.query("DELETE FROM login_attempts WHERE id = ANY($1::bigint[])", [ids]);
  };
  return {
    async attempt(limits: readonly AttemptLimit[], windowSeconds: number, now = new Date()): Promise<Attempt> {
      const since = new Date(now.getTime() - windowSeconds * 1000);
      const ids: string[] = [];
      for (const { key } of limits) {
        // Rows outside the window never count again.
        await db.query("DELETE FROM login_attempts WHERE key = $1 AND at <= $2", [key, since]);
        const rows = await db.query<{ id: string }>("INSERT INTO login_attempts (key, at) VALUES ($1, $2) RETURNING id::text AS id", [key, now]);
        ids.push(rows[0]!.id);
      }
      let wait = 0;
      for (const [i, { key, max }] of limits.entries()) {
        const rows = await db.query<{ id: string; at: Date }>(
          "SELECT id::text AS id, at FROM login_attempts WHERE key = $1 AND at > $2 ORDER BY at, id",
          [key, since],
        );
        if (rows.length <= max) continue;
        // Refused: free once enough of the others leave the window that this one would fit.
        const others = rows.filter((r) => r.id !== ids[i]).map((r) => new Date(r.at).getTime());
        const pivot = others[others.length - max] ?? now.getTime();
        wait = Math.max(wait, Math.max(1, Math.ceil((pivot + windowSeconds * 1000 - now.getTime()) / 1000)));
      }
      if (wait > 0) {
        // A refused attempt was never checked: it does not extend anyone's lock-out.
        await forgetIds(ids);
        return { allowed: false, retryAfterSeconds: wait };
      }
      return { allowed: true, forget: () => forgetIds(ids) };
    },

    async recordFailure(key: string, now = new Date(), windowSeconds = 900): Promise<void> {
      await db.query("INSERT INTO login_attempts (key, at) VALUES ($1, $2)", [key, now]);
      // Keeps the table small: rows outside the window never count again.
      await db.query("DELETE FROM login_attempts WHERE key = $1 AND at <= $2", [key, new Date(now.getTime() - windowSeconds * 1000)]);
    },

    /** Failure times in the window, oldest first. */
    async recentFailures(key: string, windowSeconds: number, now = new Date()): Promise<Date[]> {
      const rows = await db.query<{ at: Date }>(
        "SELECT at FROM login_attempts WHERE key = $1 AND at > $2 AND at <= $3 ORDER BY at",
        [key, new Date(now.getTime() - windowSeconds * 1000), now],
      );
      return rows.map((r) => new Date(r.at));
    },

    async countRecent(key: string, windowSeconds: number, now = new Date()): Promise<number> {
      const rows = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM login_attempts WHERE key = $1 AND at > $2 AND at <= $3",
        [key, new Date(now.getTime() - windowSeconds * 1000), now],
      );
      return rows[0]?.n ?? 0;
    },

    async clear(key: string): Promise<void> {
      await db.query("DELETE FROM login_attempts WHERE key = $1", [key]);
    },

    /** Drops everything older than the window, for all keys. */
    async prune(windowSeconds: number, now = new Date()): Promise<void> {
      await db.query("DELETE FROM login_attempts WHERE at <= $1", [new Date(now.getTime() - windowSeconds * 1000)]);
    },
  };
}

