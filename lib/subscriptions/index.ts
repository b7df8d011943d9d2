import "server-only";
/**
 * Scheduled reports (issue 19): a saved report or dashboard mailed daily, weekly or monthly. Each
 * subscription makes a live share link of its own (the link rules of saved reports: it expires, can
 * be seen under the report's links, and is revoked with the subscription), whose token is kept sealed
 * so every e-mail carries the same link. Owners see and change theirs; admins see all.
 */
import { z } from "zod";
import type { SessionUser } from "@/lib/auth/authenticate";
import { ApiError } from "@/lib/contract/errors";
import { Recipients } from "@/lib/alerts/definition";
import { ScheduleSpec } from "@/lib/schedule/spec";
import { getVisibleReport } from "@/lib/saved-reports/permissions";
import { createShareLink } from "@/lib/sharing/links";
import { SHARE_LIMITS } from "@/lib/sharing/service";
import { shareLinksRepo } from "@/lib/store/share-links";
import type { Sql, Store } from "@/lib/store/sql";
import { subscriptionsRepo, type SubscriptionRow } from "@/lib/store/subscriptions";
import type { ReportGateway } from "@/lib/upstream/gateway";
import { seal } from "./seal";
import { checkRecipients, mailFate } from "@/lib/notify/recipients";
import { checkMailPolicy, checkOwnedCount, type MailPolicy } from "@/lib/notify/policy";
import type { Bounce, MailStatus } from "@/lib/mail/outbox";

/** A report is mailed at most daily: an hourly e-mail would be an alert. */
export const SubscriptionSchedule = ScheduleSpec.refine((s) => s.every !== "hour", { error: "a scheduled report is sent daily, weekly or monthly" });

export const SubscriptionInput = z.strictObject({
  report_id: z.uuid(),
  schedule: SubscriptionSchedule,
  recipients: Recipients,
  paused: z.boolean().default(false),
});
export type SubscriptionInput = z.output<typeof SubscriptionInput>;
/** A field left out keeps its value (`paused` too, so no default here). */
export const SubscriptionPatch = SubscriptionInput.omit({ report_id: true }).extend({ paused: z.boolean() }).partial();
export type SubscriptionPatch = z.output<typeof SubscriptionPatch>;

/** A subscription as its owner (or an admin) sees it: never the token. */
export type SubscriptionView = Omit<SubscriptionRow, "shareTokenSealed">;
export const subscriptionView = ({ shareTokenSealed: _t, ...rest }: SubscriptionRow): SubscriptionView => rest;

/** With what became of its latest e-mails and its recipients' bounces (lib/alerts mailFate). */
export type SubscriptionListItem = SubscriptionView & { mail: MailStatus[]; bounces: Bounce[] };


export async function listSubscriptions(db: Sql, user: SessionUser): Promise<SubscriptionListItem[]> {
  const rows = await subscriptionsRepo(db).list(user.role === "admin" ? null : user.id);
  return Promise.all(rows.map(async (s) => ({ ...subscriptionView(s), ...(await mailFate(db, "subscription", s.id, s.recipients)) })));
}

async function ownSubscription(db: Sql, user: SessionUser, id: string): Promise<SubscriptionRow> {
  const s = await subscriptionsRepo(db).get(id);
  // Not yours answers as missing: ids are no way to probe for others' subscriptions.
  if (!s || (user.role !== "admin" && s.ownerId !== user.id)) throw new ApiError(404, "No such subscription");
  return s;
}

export async function createSubscription(
  db: Store,
  gateway: ReportGateway,
  user: SessionUser,
  input: SubscriptionInput,
  opts: { timeZone: string; secret: string; policy: MailPolicy },
): Promise<SubscriptionView> {
  const report = await getVisibleReport(db, user, input.report_id);
  if (report.page === "monitor") throw ApiError.badRequest("The Monitor is watched with an alert rule on a programme ratio, not mailed", [{ path: "report_id", message: "a monitor view" }]);
  await checkRecipients(db, input.recipients, { requireOne: true });
  await checkMailPolicy(db, input.recipients, opts.policy);
  return db.transaction(async (tx) => {
    await checkOwnedCount(tx, user.id, "subscription", opts.policy);
    const { token, link } = await createShareLink(tx, gateway, opts.timeZone, user, report, { mode: "live", expiresInDays: SHARE_LIMITS.maxDays });
    const row = await subscriptionsRepo(tx).create({
      ownerId: user.id,
      reportId: report.id,
      schedule: input.schedule,
      recipients: input.recipients,
      paused: input.paused,
      shareLinkId: link.id,
      shareTokenSealed: seal(token, opts.secret),
    });
    return subscriptionView(row);
  });
}

export async function updateSubscription(db: Sql, user: SessionUser, id: string, patch: SubscriptionPatch, policy: MailPolicy): Promise<SubscriptionView> {
  const s = await ownSubscription(db, user, id);
  const recipients = patch.recipients ?? Recipients.parse(s.recipients);
  if (patch.recipients) {
    await checkRecipients(db, recipients, { requireOne: true });
    await checkMailPolicy(db, recipients, policy);
  }
  const row = await subscriptionsRepo(db).update(s.id, {
    schedule: patch.schedule ?? s.schedule,
    recipients,
    paused: patch.paused ?? s.paused,
  });
  return subscriptionView(row!);
}

/** Deletes the subscription and revokes its link at once, together. */
export async function deleteSubscription(db: Store, user: SessionUser, id: string): Promise<{ deleted: string }> {
  const s = await ownSubscription(db, user, id);
  await db.transaction(async (tx) => {
    if (s.shareLinkId) await shareLinksRepo(tx).revoke(s.shareLinkId);
    await subscriptionsRepo(tx).remove(s.id);
  });
  return { deleted: s.id };
}
