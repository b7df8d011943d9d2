/**
 * E-mails queued per owner in the last 24 hours, counted in the outbox: the daily bound on a user's
 * automation (lib/features/notifications/policy.ts) and the admins' user list. Kept apart from the outbox's
 * sending (server-only, with the mail transport) so that `npm run users` can list users.
 */
import type { Sql } from "@/lib/core/store/sql";

/** E-mails queued by a user's rules and subscriptions in the last 24 hours. */
export async function mailsInLastDay(db: Sql, ownerId: string): Promise<number> {
  const rows = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM mail_outbox WHERE owner_id = $1 AND created_at > now() - interval '1 day'", [ownerId]);
  return rows[0]?.n ?? 0;
}

/** Every user's e-mails in the last 24 hours, for the admins' user list. */
export async function mailsInLastDayByUser(db: Sql): Promise<Map<string, number>> {
  const rows = await db.query<{ owner_id: string; n: number }>(
    "SELECT owner_id, count(*)::int AS n FROM mail_outbox WHERE owner_id IS NOT NULL AND created_at > now() - interval '1 day' GROUP BY owner_id",
  );
  return new Map(rows.map((r) => [r.owner_id, r.n]));
}
