import "server-only";
/**
 * Who a scheduled report's issue goes to, and which link each reader gets: into the dashboard for
 * its users who may see the report, the subscription's share link for addresses that are no user's
 * (or no link, where the mail policy says so), and nothing for a user who may not see it.
 */
import { Recipients } from "@/lib/features/notifications/definition";
import type { SavedReport } from "@/lib/features/saved-reports/model";
import { canView } from "@/lib/features/saved-reports/access";
import type { Sql } from "@/lib/core/store/sql";
import type { Subscription } from "@/lib/features/notifications/model";
import { usersRepo } from "@/lib/core/auth/users";
import { sendableRecipients, type MailPolicy } from "@/lib/features/notifications/policy";
import type { SessionUser } from "@/lib/core/auth/authenticate";

/** Who an issue goes to, and which link each kind of reader gets. */
export type Audience = "users" | "outside";

/**
 * Addresses split by whose they are: a user's address is mailed the in-app link when that user is
 * active and may see the report, and not mailed at all otherwise (as a named user who may not see it
 * is not); an address that is no user's is outside.
 */
export async function splitAddresses(db: Sql, emails: readonly string[], report: SavedReport): Promise<{ inApp: string[]; outside: string[]; skipped: string[] }> {
  const users = usersRepo(db);
  const inApp: string[] = [];
  const outside: string[] = [];
  const skipped: string[] = [];
  for (const address of emails) {
    const u = await users.findByEmail(address);
    if (!u) outside.push(address);
    else if (mayOpen(u, report)) inApp.push(address);
    else skipped.push(address);
  }
  return { inApp, outside, skipped };
}

const mayOpen = (u: { id: string; email: string; role: SessionUser["role"]; disabled: boolean } | null, report: SavedReport) =>
  u !== null && !u.disabled && canView({ id: u.id, email: u.email, role: u.role }, report);

/**
 * A subscription's recipients by the link each gets. Named users who may see the report (and are
 * active) are told in the inbox and mailed the in-app link, as are addresses of such users; other
 * users' addresses are not mailed, and addresses that are no user's are outside. The mail policy's
 * domains are checked again at each send (named before the policy, or a domain since taken off the list).
 */
export async function audienceOf(db: Sql, sub: Subscription, report: SavedReport, policy: MailPolicy) {
  const recipients = Recipients.parse(sub.recipients);
  const users = usersRepo(db);
  const active: { id: string; email: string }[] = [];
  for (const id of recipients.users) {
    const u = await users.findById(id);
    // A user who may not see the report is not sent it.
    if (u && mayOpen(u, report)) active.push({ id: u.id, email: u.email });
  }
  const named = new Set(active.map((u) => u.email.toLowerCase()));
  const split = await splitAddresses(db, recipients.emails.filter((a) => !named.has(a.toLowerCase())), report);
  const inAppTo = [...new Set([...active.map((u) => u.email), ...split.inApp])];
  const allowed = await sendableRecipients(db, [...inAppTo, ...split.outside], policy);
  const ok = new Set(allowed.to);
  return { active, users: inAppTo.filter((a) => ok.has(a)), outside: split.outside.filter((a) => ok.has(a)), refused: allowed.refused };
}

/** The report's page in the dashboard: the link its users get, in the e-mail and the inbox. */
export const inAppPath = (report: Pick<SavedReport, "id" | "page">) => (report.page === "dashboard" ? `/dashboards/${report.id}` : `/reports/${report.id}`);
