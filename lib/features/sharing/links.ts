/**
 * Share links of a saved report, for its owner or an admin: list, create (with a frozen snapshot when
 * asked), rotate and revoke. A link belongs to its report: one named under another report is not
 * found, whoever asks. The token is returned once, at creation or rotation; only its hash is kept.
 * Creating, rotating and revoking are each written to the audit log with the change (never the token).
 */
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { appendAudit, inTransaction, userActor } from "@/lib/core/audit/log";
import { hashPassword } from "@/lib/core/auth/password";
import { ApiError } from "@/lib/contract/errors";
import { isRangePreset } from "@/lib/report/state/range";
import { coverageDays, coverageRequest } from "@/lib/report/periods/coverage";
import { canEdit, getEditableReport } from "@/lib/features/saved-reports/access";
import { usersRepo } from "@/lib/core/auth/users";
import type { SavedReport } from "@/lib/features/saved-reports/model";
import { publicLink, shareLinksRepo, type ShareLinkWithSecrets, type Snapshot } from "@/lib/features/sharing/links-store";
import type { ListedLink, ShareLink, ShareMode } from "./model";
import type { Sql } from "@/lib/core/store/sql";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { reportQuery, runThroughGateway, SHARE_LIMITS } from "./service";
import { hashToken, newShareToken } from "./tokens";
import { snapshotDashboard } from "./dashboard";
import { expiresAt, expiryHours, LABEL_MAX, LinkLabel, MAX_EXPIRY, tokenTail, type ShareLinkInput } from "./link-input";

export { ShareLinkInput } from "./link-input";

/** The bounds the panel that makes links shows and checks before sending. */
export const LINK_FORM_LIMITS = { labelMax: LABEL_MAX, maxHours: MAX_EXPIRY.hours, maxDays: MAX_EXPIRY.days } as const;

/** A link as its owner sees it, with the one-time token and the page it opens. */
export interface IssuedLink {
  link: ShareLink;
  token: string;
  url: string;
}

function shareUrl(token: string, base: string): string {
  return new URL(`/share/${token}`, base).toString();
}


export async function listShareLinks(db: Sql, user: SessionUser, reportId: string): Promise<{ links: ListedLink[]; limits: typeof LINK_FORM_LIMITS }> {
  const report = await getEditableReport(db, user, reportId);
  const sharers = new Map<string, boolean>();
  const mayShare = async (id: string) => {
    if (!sharers.has(id)) {
      const u = await usersRepo(db).findById(id);
      sharers.set(id, u !== null && canEdit({ id: u.id, email: u.email, role: u.role }, report));
    }
    return sharers.get(id)!;
  };
  const links: ListedLink[] = [];
  for (const l of await shareLinksRepo(db).listForReport(report.id)) links.push({ ...publicLink(l), paused: l.revokedAt === null && !(await mayShare(l.createdBy)) });
  return { links, limits: LINK_FORM_LIMITS };
}

/** Creates a link from the API's input; `base` is the dashboard's URL the link's page lives under. */
export async function issueShareLink(
  db: Sql,
  gateway: ReportGateway,
  timeZone: string,
  user: SessionUser,
  reportId: string,
  input: ShareLinkInput,
  base: string,
): Promise<IssuedLink> {
  const report = await getEditableReport(db, user, reportId);
  const { token, link } = await createShareLink(db, gateway, timeZone, user, report, {
    mode: input.mode,
    ...(input.label !== undefined ? { label: input.label } : {}),
    ...(input.expires_in_days !== undefined ? { expiresInDays: input.expires_in_days } : {}),
    ...(input.expires_in_hours !== undefined ? { expiresInHours: input.expires_in_hours } : {}),
    ...(input.password !== undefined ? { password: input.password } : {}),
    ...(input.allowed_presets !== undefined ? { allowedPresets: input.allowed_presets } : {}),
  });
  return { link: publicLink(link), token, url: shareUrl(token, base) };
}

/** The report's link by id, for its owner or an admin. */
async function editableLink(db: Sql, user: SessionUser, reportId: string, linkId: string): Promise<ShareLinkWithSecrets> {
  const report = await getEditableReport(db, user, reportId);
  const link = await shareLinksRepo(db).get(linkId);
  if (!link || link.reportId !== report.id) throw new ApiError(404, "No such share link");
  return link;
}

/** A link as the audit log names it: its label, else the token's last characters (never the token). */
function linkSubject(link: Pick<ShareLinkWithSecrets, "id" | "label" | "tokenTail">) {
  return { kind: "share_link", id: link.id, label: link.label ?? (link.tokenTail ? `…${link.tokenTail}` : null) };
}

/**
 * Whatever holds a copy of a link's token and must follow it to the new one, in the rotation's
 * transaction; returns the ids of what followed, for the audit. Passed in by the caller (the
 * subscriptions that mail the link belong to notifications, which builds on sharing).
 */
export type LinkFollowers = (tx: Sql, linkId: string, token: string) => Promise<string[]>;

/**
 * A new token for the link; the old one stops working at once. A scheduled report that mails the link
 * follows it (`followers`: its token is sealed again) in the same transaction, so its next e-mail
 * carries the new link and never the dead one. Rotating cuts off copies forwarded beyond the
 * subscription's recipients, not the recipients: to stop mailing them, change or delete the
 * subscription (revoking its link pauses it).
 */
export async function rotateShareLink(db: Sql, user: SessionUser, reportId: string, linkId: string, base: string, followers: LinkFollowers): Promise<IssuedLink> {
  const link = await editableLink(db, user, reportId, linkId);
  if (link.revokedAt) throw new ApiError(400, "A revoked link cannot be rotated; create a new one");
  const token = newShareToken();
  const links = shareLinksRepo(db);
  await inTransaction(db, async (tx) => {
    await shareLinksRepo(tx).rotate(link.id, hashToken(token), tokenTail(token));
    const following = await followers(tx, link.id, token);
    await appendAudit(tx, {
      action: "share_link.rotated",
      actor: userActor(user),
      subject: linkSubject(link),
      detail: { report_id: reportId, ...(following.length > 0 ? { subscriptions_following: following } : {}) },
    });
  });
  return { link: publicLink((await links.get(link.id))!), token, url: shareUrl(token, base) };
}

/** Revokes the link at once; revoking twice keeps the first time. */
export async function revokeShareLink(db: Sql, user: SessionUser, reportId: string, linkId: string): Promise<{ link: ShareLink }> {
  const link = await editableLink(db, user, reportId, linkId);
  const links = shareLinksRepo(db);
  if (!link.revokedAt) {
    await inTransaction(db, async (tx) => {
      await shareLinksRepo(tx).revoke(link.id);
      await appendAudit(tx, { action: "share_link.revoked", actor: userActor(user), subject: linkSubject(link), detail: { report_id: reportId } });
    });
  }
  return { link: publicLink((await links.get(link.id))!) };
}

export interface CreateLinkInput {
  /** The owner's note for the list; null or absent for none. */
  label?: string | null;
  expiresInDays?: number;
  /** Instead of days, for links that should not outlive a meeting or a shift. */
  expiresInHours?: number;
  password?: string;
  mode: ShareMode;
  allowedPresets?: string[];
}

export async function createShareLink(
  db: Sql,
  gateway: ReportGateway,
  timeZone: string,
  user: SessionUser,
  report: SavedReport,
  input: CreateLinkInput,
): Promise<{ token: string; link: ShareLinkWithSecrets }> {
  if (input.expiresInHours !== undefined && input.expiresInDays !== undefined) {
    throw ApiError.badRequest("give the expiry in hours or in days, not both", [{ path: "expires_in_hours", message: "hours or days" }]);
  }
  const days = input.expiresInDays ?? SHARE_LIMITS.defaultDays;
  if (!Number.isInteger(days) || days < 1 || days > SHARE_LIMITS.maxDays) {
    throw ApiError.badRequest(`expires_in_days must be a whole number from 1 to ${SHARE_LIMITS.maxDays}`, [{ path: "expires_in_days", message: "out of range" }]);
  }
  const hours = input.expiresInHours;
  if (hours !== undefined && (!Number.isInteger(hours) || hours < 1 || hours > MAX_EXPIRY.hours)) {
    throw ApiError.badRequest(`expires_in_hours must be a whole number from 1 to ${MAX_EXPIRY.hours}`, [{ path: "expires_in_hours", message: "out of range" }]);
  }
  const label = input.label === undefined || input.label === null ? null : ApiError.parse(LinkLabel, input.label);
  if (report.page === "monitor" && (input.mode === "snapshot" || (input.allowedPresets ?? []).length > 0)) {
    throw ApiError.badRequest("A monitor link is always live, for this month and the two before: no snapshot, no presets", [{ path: "mode", message: "live only" }]);
  }
  const presets = input.allowedPresets ?? [];
  const bad = presets.find((p) => !isRangePreset(p));
  if (bad !== undefined) throw ApiError.badRequest(`unknown preset "${bad}"`, [{ path: "allowed_presets", message: `unknown preset "${bad}"` }]);
  if (input.mode === "snapshot" && presets.length > 0) {
    throw ApiError.badRequest("a snapshot is frozen: it cannot switch presets", [{ path: "allowed_presets", message: "only for live links" }]);
  }
  let snapshot: Snapshot | null = null;
  if (input.mode === "snapshot" && report.page === "dashboard") {
    snapshot = await snapshotDashboard(gateway, report, user.id, timeZone);
  } else if (input.mode === "snapshot") {
    const { op, query, comparison } = reportQuery(report, timeZone);
    const still = () => new ApiError(503, "The report is still queued upstream; try creating the snapshot again in a minute");
    const run = await runThroughGateway(gateway, op, query, 60_000, user.id);
    if (!("done" in run)) throw still();
    snapshot = { fetched_at: run.done.fetched_at, start_date: query.start_date, end_date: query.end_date, data: run.done.data };
    if (comparison) {
      // Frozen together: a snapshot compares what both periods were when it was taken.
      const cmp = await runThroughGateway(gateway, op, comparison, 60_000, user.id);
      if (!("done" in cmp)) throw still();
      snapshot.comparison = { start_date: comparison.start_date, end_date: comparison.end_date, data: cmp.done.data };
      // Which compared days held data, when the comparison's own answer cannot say: asked now, as the live page asks it.
      const coverage = coverageRequest(op, comparison);
      if (coverage) {
        const cov = await runThroughGateway(gateway, op, coverage, 60_000, user.id);
        if (!("done" in cov)) throw still();
        snapshot.comparison.data_days = coverageDays(cov.done.data, { start: comparison.start_date, end: comparison.end_date });
      }
    }
  }
  const token = newShareToken();
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  const link = await inTransaction(db, async (tx) => {
    const made = await shareLinksRepo(tx).create({
      reportId: report.id,
      tokenHash: hashToken(token),
      tokenTail: tokenTail(token),
      label,
      createdBy: user.id,
      expiresAt: expiresAt(expiryHours({ expiresInHours: hours, expiresInDays: days }), new Date()),
      passwordHash,
      mode: input.mode,
      allowedPresets: presets,
      snapshot,
    });
    await appendAudit(tx, {
      action: "share_link.created",
      actor: userActor(user),
      subject: linkSubject(made),
      detail: { report_id: report.id, report: report.name, mode: made.mode, expires_at: made.expiresAt, password_protected: passwordHash !== null },
    });
    return made;
  });
  return { token, link };
}
