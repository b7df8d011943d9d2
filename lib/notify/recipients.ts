import "server-only";
/** Recipients of alerts and scheduled reports: checked when named, and what became of their mail. */
import { ApiError } from "@/lib/contract/errors";
import { Recipients } from "@/lib/alerts/definition";
import { outboxRepo, type Bounce, type MailStatus } from "@/lib/mail/outbox";
import type { Sql } from "@/lib/store/sql";
import { usersRepo } from "@/lib/store/users";

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
