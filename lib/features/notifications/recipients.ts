import "server-only";
/** Recipients of alerts and scheduled reports: checked when named, and what became of their mail. */
import { ApiError } from "@/lib/contract/errors";
import { Recipients } from "@/lib/features/notifications/definition";
import { outboxRepo } from "@/lib/core/mail/outbox";
import type { Bounce, MailStatus } from "@/lib/core/mail/model";
import type { Sql } from "@/lib/core/store/sql";
import { usersRepo } from "@/lib/core/auth/users";

export type { Bounce, MailStatus };

/**
 * Users named as recipients must be users who can sign in. A scheduled report needs someone to send
 * to; an alert rule always tells its owner in the inbox, so it may name nobody else.
 */
export async function checkRecipients(db: Sql, recipients: Recipients, opts: { requireOne: boolean }): Promise<void> {
  if (opts.requireOne && recipients.users.length + recipients.emails.length === 0) throw ApiError.badRequest("name at least one recipient", [{ path: "recipients", message: "empty" }]);
  const users = usersRepo(db);
  for (const [i, id] of recipients.users.entries()) {
    const u = await users.findById(id);
    if (!u || u.disabled) throw ApiError.badRequest(`recipient ${id} is not an active user`, [{ path: `recipients.users.${i}`, message: "not an active user" }]);
  }
}

/**
 * Addresses split by the link their mail may carry: those of active users, who can sign in and follow
 * a link into the dashboard, and outside ones, which are no active user's.
 */
export async function splitByUser(db: Sql, addresses: readonly string[]): Promise<{ users: string[]; outside: string[] }> {
  const repo = usersRepo(db);
  const users: string[] = [];
  const outside: string[] = [];
  for (const a of addresses) {
    const u = await repo.findByEmail(a);
    (u && !u.disabled ? users : outside).push(a);
  }
  return { users, outside };
}

/**
 * What an alert's e-mail to an outside address says instead of a link: an alert watches a query that
 * is no saved report, so there is no report a share link could open that holds exactly what the
 * e-mail says (docs/security.md); the numbers are in the e-mail itself.
 */
export const ALERT_OUTSIDE_NOTE = "This e-mail carries no link to the dashboard: the numbers are above.";

/** A rule's or subscription's mail as its owner sees it: the latest sends and its recipients' bounces. */
export async function mailFate(db: Sql, kind: "alert" | "subscription", id: string, recipients: unknown): Promise<{ mail: MailStatus[]; bounces: Bounce[] }> {
  const outbox = outboxRepo(db, { enabled: true });
  const parsed = Recipients.safeParse(recipients);
  const users = usersRepo(db);
  const addresses = parsed.success ? [...parsed.data.emails] : [];
  for (const uid of parsed.success ? parsed.data.users : []) {
    const u = await users.findById(uid);
    if (u) addresses.push(u.email);
  }
  return { mail: await outbox.latestFor(kind, id, 10), bounces: await outbox.bounces(addresses) };
}
