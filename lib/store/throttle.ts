/**
 * Failed sign-in bookkeeping for throttling: one row per failure under a key such as
 * "account:<email>" or "address:<ip>", counted over a sliding window.
 */
import type { Sql } from "./sql";

export function throttleRepo(db: Sql) {
  return {
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

export type ThrottleRepo = ReturnType<typeof throttleRepo>;
