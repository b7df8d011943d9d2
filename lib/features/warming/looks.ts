import "server-only";
/**
 * What signed-in people looked at recently: the dashboards and saved reports (as their settings,
 * with relative dates) and the Monitor each person opened. The background warmer asks their questions again for today,
 * so the first look of the morning is answered from the store. A person keeps at most
 * LOOKS_PER_PERSON looks, the most recently used; one person opening many dashboards pushes out
 * only their own older looks, never anyone else's.
 */
import { createHash } from "node:crypto";
import type { Sql, Store } from "@/lib/core/store/sql";
import type { ServerEnv } from "@/lib/core/env/env";
import { canonicalParams } from "@/lib/features/saved-reports/input";

/** A dashboard, a saved Explore or Cohorts report (as its page is named), or the Monitor. */
export type LookKind = "dashboard" | "explore" | "cohorts" | "monitor";

export interface Look {
  kind: LookKind;
  params: string;
}

/** Looks kept per person: a working day's dashboards, at most. */
export const LOOKS_PER_PERSON = 10;

/** A look used again within this long is not written again: a waiting page asks every 2 seconds. */
const REWRITE_AFTER_MS = 15 * 60_000;

const lookKey = (look: Look) => createHash("sha256").update(`${look.kind}\n${look.params}`).digest("base64url");

// Any constant will do; it serializes one person's notes, so their bound holds under concurrent looks.
const LOOKS_LOCK = 728_612_520;

export function recentLooksRepo(store: Store) {
  return {
    /** Notes that `userId` looked at `look` at `now`, and drops their looks beyond LOOKS_PER_PERSON. */
    async note(userId: string, look: Look, now = new Date()): Promise<void> {
      await store.transaction(async (tx: Sql) => {
        await tx.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [LOOKS_LOCK, userId]);
        const written = await tx.query<{ user_id: string }>(
          `INSERT INTO recent_looks (user_id, look_key, kind, params, used_at) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (user_id, look_key) DO UPDATE SET used_at = EXCLUDED.used_at
             WHERE recent_looks.used_at < $6
           RETURNING user_id`,
          [userId, lookKey(look), look.kind, look.params, now, new Date(now.getTime() - REWRITE_AFTER_MS)],
        );
        if (written.length === 0) return;
        await tx.query(
          `DELETE FROM recent_looks WHERE user_id = $1 AND look_key NOT IN (
             SELECT look_key FROM recent_looks WHERE user_id = $1 ORDER BY used_at DESC, look_key LIMIT $2)`,
          [userId, LOOKS_PER_PERSON],
        );
      });
    },

    /** The looks of everyone not disabled used at or after `since`, the most recent first; each look once. */
    async usedSince(since: Date): Promise<Look[]> {
      const rows = await store.query<{ kind: LookKind; params: string }>(
        `SELECT l.kind, l.params FROM recent_looks l JOIN users u ON u.id = l.user_id AND NOT u.disabled
           WHERE l.used_at >= $1
           GROUP BY l.kind, l.params ORDER BY max(l.used_at) DESC, l.kind, l.params`,
        [since],
      );
      return rows.map((r) => ({ kind: r.kind, params: r.params }));
    },

    /** One person's looks, the most recent first (what the bound keeps). */
    async of(userId: string): Promise<Look[]> {
      const rows = await store.query<{ kind: LookKind; params: string }>(
        "SELECT kind, params FROM recent_looks WHERE user_id = $1 ORDER BY used_at DESC, look_key",
        [userId],
      );
      return rows.map((r) => ({ kind: r.kind, params: r.params }));
    },
  };
}

/** What this process noted lately, by person and look, so a page that polls is not written again. */
const noted = new Map<string, number>();
const NOTED_KEPT = 10_000;

/**
 * Notes a look a signed-in person was just answered, in its canonical spelling (so one dashboard is
 * one look however its URL was written), unless nothing is warmed (SHARE_WARM_DAYS=0) or this
 * process noted it within REWRITE_AFTER_MS. Never fails the look: settings that cannot be read, or a
 * store that cannot be written, cost tomorrow's head start, not today's answer.
 */
export async function noteLook(
  store: Store,
  env: Pick<ServerEnv, "SHARE_WARM_DAYS" | "REPORT_TIMEZONE">,
  userId: string,
  look: Look,
  now = Date.now(),
): Promise<void> {
  if (env.SHARE_WARM_DAYS === 0) return;
  try {
    const canonical: Look = { kind: look.kind, params: canonicalParams(look.kind, look.params, env.REPORT_TIMEZONE) };
    const key = `${userId}\n${lookKey(canonical)}`;
    const last = noted.get(key);
    if (last !== undefined && now - last < REWRITE_AFTER_MS) return;
    await recentLooksRepo(store).note(userId, canonical, new Date(now));
    noted.delete(key);
    noted.set(key, now);
    if (noted.size > NOTED_KEPT) noted.delete(noted.keys().next().value!);
  } catch (e) {
    console.error(JSON.stringify({ level: "warn", msg: "look not noted", kind: look.kind, error: e instanceof Error ? e.message : String(e) }));
  }
}
