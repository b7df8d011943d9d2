import "server-only";
/**
 * Scheduled reports: a saved report or dashboard mailed daily, weekly or monthly. A subscription
 * that names addresses outside the dashboard's users makes a live share link of its own for them
 * (the link rules of saved reports: it expires, is listed under the report's links with a label
 * naming the subscription, counts its views, and is revoked with the subscription), whose token is
 * kept sealed so every e-mail carries the same link; users get the in-app link. Under the mail
 * policy's "numbers" no link is made and outside addresses get the numbers only. Owners see and
 * change theirs; admins see all.
 */
import { z } from "zod";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { ApiError } from "@/lib/contract/errors";
import { Recipients } from "@/lib/features/notifications/definition";
import { ScheduleSpec } from "@/lib/features/notifications/spec";
import { canEdit, canView, getVisibleReport } from "@/lib/features/saved-reports/access";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import type { SavedReport } from "@/lib/features/saved-reports/model";
import { createShareLink, type LinkFollowers } from "@/lib/features/sharing/links";
import { appendAudit, changedFields, inTransaction, userActor } from "@/lib/core/audit/log";
import { SHARE_LIMITS } from "@/lib/features/sharing/service";
import { shareLinksRepo } from "@/lib/features/sharing/links-store";
import type { Sql, Store } from "@/lib/core/store/sql";
import { subscriptionsRepo } from "@/lib/features/notifications/subscriptions-store";
import type { Subscription } from "@/lib/features/notifications/model";
import { usersRepo } from "@/lib/core/auth/users";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { seal } from "@/lib/features/sharing/seal";
import { splitAddresses } from "./issue-audience";
import { LABEL_MAX } from "@/lib/features/sharing/link-input";
import { describeSchedule } from "@/lib/features/notifications/spec";
import { checkRecipients, mailFate } from "@/lib/features/notifications/recipients";
import { checkMailPolicy, checkOwnedCount, type MailPolicy } from "@/lib/features/notifications/policy";
import { newOwner, refuseStopped, subscriptionStop } from "@/lib/features/notifications/rights";
import type { Bounce, MailStatus } from "@/lib/core/mail/model";

/** A report is mailed at most daily: an hourly e-mail would be an alert. */
export const SubscriptionSchedule = ScheduleSpec.refine((s) => s.every !== "hour", { error: "a scheduled report is sent daily, weekly or monthly" });

/**
 * What a scheduled report's e-mail can attach: its tables as CSV (a file per table) and as one Excel
 * workbook (a sheet per table), the report as it looks on screen as PDF. The e-mail carries them in
 * this order whatever order they were chosen in.
 */
export const ATTACHMENT_FORMATS = ["csv", "xlsx", "pdf"] as const;
export type AttachmentFormat = (typeof ATTACHMENT_FORMATS)[number];
export const AttachmentFormats = z
  .array(z.enum(ATTACHMENT_FORMATS))
  .min(1, { error: "choose at least one attachment format" })
  .refine((f) => new Set(f).size === f.length, { error: "each format once" });

export const SubscriptionInput = z.strictObject({
  report_id: z.uuid(),
  schedule: SubscriptionSchedule,
  recipients: Recipients,
  paused: z.boolean().default(false),
  /** The e-mail's attachments: the CSV (as before) unless said. */
  formats: AttachmentFormats.default(["csv"]),
});
export type SubscriptionInput = z.output<typeof SubscriptionInput>;
/** A field left out keeps its value (`paused` too, so no default here). */
export const SubscriptionPatch = SubscriptionInput.omit({ report_id: true })
  .extend({ paused: z.boolean(), formats: AttachmentFormats, /** Admins: give the subscription to another user. */ owner_id: z.uuid() })
  .partial();
export type SubscriptionPatch = z.output<typeof SubscriptionPatch>;

/** A subscription as its owner (or an admin) sees it: never the token. */
export type SubscriptionView = Omit<Subscription, "shareTokenSealed">;
export const subscriptionView = ({ shareTokenSealed: _t, ...rest }: Subscription): SubscriptionView => rest;

/** With what became of its latest e-mails and its recipients' bounces (lib/alerts mailFate). */
export type SubscriptionListItem = SubscriptionView & { mail: MailStatus[]; bounces: Bounce[] };


export async function listSubscriptions(db: Sql, user: SessionUser): Promise<SubscriptionListItem[]> {
  const rows = await subscriptionsRepo(db).list(user.role === "admin" ? null : user.id);
  return Promise.all(rows.map(async (s) => ({ ...subscriptionView(s), ...(await mailFate(db, "subscription", s.id, s.recipients)) })));
}

export async function ownSubscription(db: Sql, user: SessionUser, id: string): Promise<Subscription> {
  const s = await subscriptionsRepo(db).get(id);
  // Not yours answers as missing: ids are no way to probe for others' subscriptions.
  if (!s || (user.role !== "admin" && s.ownerId !== user.id)) throw new ApiError(404, "No such subscription");
  return s;
}

export async function createSubscription(
  db: Store,
  gateway: ReportGateway,
  user: SessionUser,
  given: Omit<SubscriptionInput, "formats"> & { formats?: AttachmentFormat[] },
  opts: { timeZone: string; secret: string; policy: MailPolicy },
): Promise<SubscriptionView> {
  const input: SubscriptionInput = { ...given, formats: given.formats ?? ["csv"] };
  const report = await getVisibleReport(db, user, input.report_id);
  if (report.page === "monitor") throw ApiError.badRequest("The Monitor is watched with an alert rule on a programme ratio, not mailed", [{ path: "report_id", message: "a monitor view" }]);
  await checkRecipients(db, input.recipients, { requireOne: true });
  await checkMailPolicy(db, input.recipients, opts.policy);
  return db.transaction(async (tx) => {
    await checkOwnedCount(tx, user.id, "subscription", opts.policy);
    const link = await subscriptionLink(tx, gateway, user, report, input.recipients, { ...opts, schedule: input.schedule });
    const row = await subscriptionsRepo(tx).create({
      ownerId: user.id,
      reportId: report.id,
      schedule: input.schedule,
      recipients: input.recipients,
      paused: input.paused,
      shareLinkId: link?.id ?? null,
      shareTokenSealed: link?.sealed ?? null,
      formats: input.formats,
    });
    await appendAudit(tx, { action: "subscription.created", actor: userActor(user), subject: { kind: "subscription", id: row.id, label: report.name }, detail: { report_id: report.id, share_link: link?.id ?? null, paused: input.paused, formats: input.formats } });
    return subscriptionView(row);
  });
}

/**
 * A subscription's share link, made under the rules of any share link: only a user who may share the
 * report (its owner or an admin) gets one, and only its outside addresses (those that are no user's)
 * are mailed it. Someone who may only see the report can have it mailed to dashboard users, whose
 * e-mail links into the dashboard; outside addresses would need the share link, so they are refused.
 * Under the policy's "numbers" no link is made: outside addresses get the numbers only.
 */
async function subscriptionLink(
  tx: Sql,
  gateway: ReportGateway,
  owner: SessionUser,
  report: SavedReport,
  recipients: Recipients,
  opts: { timeZone: string; secret: string; policy: MailPolicy; schedule: ScheduleSpec },
): Promise<{ id: string; sealed: string } | null> {
  if (opts.policy.outsideLinks !== "share") return null;
  if (!canEdit(owner, report)) {
    const { outside } = await splitAddresses(tx, recipients.emails, report);
    if (outside.length === 0) return null;
    throw new ApiError(
      403,
      "Only the report's owner or an admin may share it, and a scheduled report to outside addresses carries a share link; name dashboard users only, or ask the owner to subscribe them",
      [{ path: "recipients.emails", message: "needs the right to share the report" }],
    );
  }
  const label = subscriptionLinkLabel(opts.schedule, opts.timeZone);
  const { token, link } = await createShareLink(tx, gateway, opts.timeZone, owner, report, { mode: "live", expiresInDays: SHARE_LIMITS.maxDays, label });
  return { id: link.id, sealed: seal(token, opts.secret) };
}

/** The label of a subscription's link in the report's list of links: the scheduled report that made it. */
export function subscriptionLinkLabel(schedule: ScheduleSpec, timeZone: string): string {
  const full = `Scheduled report: ${describeSchedule(schedule, timeZone)}`;
  return full.length <= LABEL_MAX ? full : `${full.slice(0, LABEL_MAX - 1)}…`;
}

export async function updateSubscription(
  db: Store,
  user: SessionUser,
  id: string,
  patch: SubscriptionPatch,
  opts: { policy: MailPolicy; gateway: ReportGateway; timeZone: string; secret: string },
): Promise<SubscriptionView> {
  let s = await ownSubscription(db, user, id);
  const recipients = patch.recipients ?? Recipients.parse(s.recipients);
  if (patch.recipients) {
    await checkRecipients(db, recipients, { requireOne: true });
    await checkMailPolicy(db, recipients, opts.policy);
  }
  if (patch.owner_id !== undefined && patch.owner_id !== s.ownerId) {
    // The new owner's own link, under their rights; the old one is revoked with the handover.
    const to = await newOwner(db, user, patch.owner_id);
    const report = await savedReportsRepo(db).get(s.reportId);
    if (!report || !canView(to, report)) throw ApiError.badRequest(`${to.email} may not see the report “${s.reportName}”`, [{ path: "owner_id", message: "may not see the report" }]);
    const current = s;
    await db.transaction(async (tx) => {
      await checkOwnedCount(tx, to.id, "subscription", opts.policy);
      if (current.shareLinkId) await shareLinksRepo(tx).revoke(current.shareLinkId);
      const schedule = patch.schedule ?? ScheduleSpec.parse(current.schedule);
      await subscriptionsRepo(tx).reassign(current.id, to.id, await subscriptionLink(tx, opts.gateway, to, report, recipients, { ...opts, schedule }));
      await appendAudit(tx, { action: "subscription.changed", actor: userActor(user), subject: { kind: "subscription", id: current.id, label: current.reportName }, detail: { from_owner: current.ownerId, owner: to.id, share_link_revoked: current.shareLinkId } });
    });
    s = (await subscriptionsRepo(db).get(s.id))!;
  }
  if (patch.recipients && !s.shareLinkId) {
    // One made without a link (under the "numbers" policy, or by a user who may not share) gets one
    // when the policy and its owner's rights now give one.
    const report = await savedReportsRepo(db).get(s.reportId);
    const owner = await usersRepo(db).findById(s.ownerId);
    if (report && owner) {
      const current = s;
      await db.transaction(async (tx) => {
        const schedule = patch.schedule ?? ScheduleSpec.parse(current.schedule);
        const link = await subscriptionLink(tx, opts.gateway, { id: owner.id, email: owner.email, role: owner.role }, report, recipients, { ...opts, schedule });
        if (link) await subscriptionsRepo(tx).attachLink(current.id, link);
      });
      s = (await subscriptionsRepo(db).get(s.id))!;
    }
  }
  const paused = patch.paused ?? s.paused;
  // Resuming sends with its owner's rights as they are now.
  if (!paused && s.paused) refuseStopped(await subscriptionStop(db, s), "scheduled report");
  const current = s;
  const row = await inTransaction(db, async (tx) => {
    const updated = await subscriptionsRepo(tx).update(current.id, { schedule: patch.schedule ?? current.schedule, recipients, paused, formats: patch.formats ?? current.formats });
    const fields = changedFields({ ...patch, owner_id: undefined });
    if (fields.length > 0) await appendAudit(tx, { action: "subscription.changed", actor: userActor(user), subject: { kind: "subscription", id: current.id, label: current.reportName }, detail: { fields } });
    return updated;
  });
  return subscriptionView(row!);
}

/** Deletes the subscription and revokes its link at once, together. */
export async function deleteSubscription(db: Store, user: SessionUser, id: string): Promise<{ deleted: string }> {
  const s = await ownSubscription(db, user, id);
  await db.transaction(async (tx) => {
    if (s.shareLinkId) await shareLinksRepo(tx).revoke(s.shareLinkId);
    await subscriptionsRepo(tx).remove(s.id);
    await appendAudit(tx, { action: "subscription.deleted", actor: userActor(user), subject: { kind: "subscription", id: s.id, label: s.reportName }, detail: { share_link_revoked: s.shareLinkId } });
  });
  return { deleted: s.id };
}

/** The subscriptions that mail a share link follow it when it is rotated: each holds the new token, sealed. */
export function subscriptionsFollowingLink(secret: string): LinkFollowers {
  return async (tx, linkId, token) => {
    const subscriptions = subscriptionsRepo(tx);
    const following = await subscriptions.idsUsingLink(linkId);
    for (const id of following) await subscriptions.setSealedToken(id, seal(token, secret));
    return following;
  };
}
