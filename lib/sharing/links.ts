/**
 * Share links of a saved report, for its owner or an admin: list, create (with a frozen snapshot when
 * asked), rotate and revoke. A link belongs to its report: one named under another report is not
 * found, whoever asks. The token is returned once, at creation or rotation; only its hash is kept.
 */
import { z } from "zod";
import type { SessionUser } from "@/lib/auth/authenticate";
import { hashPassword } from "@/lib/auth/password";
import { ApiError } from "@/lib/contract/errors";
import { isRangePreset } from "@/lib/report-state";
import { getEditableReport } from "@/lib/saved-reports/permissions";
import type { SavedReport } from "@/lib/store/saved-reports";
import { publicLink, SHARE_MODES, shareLinksRepo, type ShareLink, type ShareLinkWithSecrets, type ShareMode, type Snapshot } from "@/lib/store/share-links";
import type { Sql } from "@/lib/store/sql";
import type { ReportGateway } from "@/lib/upstream/gateway";
import { reportQuery, runThroughGateway, SHARE_LIMITS } from "./service";
import { hashToken, newShareToken } from "./tokens";
import { snapshotDashboard } from "./dashboard";

export const ShareLinkInput = z.strictObject({
  expires_in_days: z.int().min(1).max(SHARE_LIMITS.maxDays).optional(),
  password: z.string().min(8, { error: "a link password needs at least 8 characters" }).max(200).optional(),
  mode: z.enum(SHARE_MODES).default("live"),
  allowed_presets: z.array(z.string()).max(20).optional(),
});
export type ShareLinkInput = z.output<typeof ShareLinkInput>;

/** A link as its owner sees it, with the one-time token and the page it opens. */
export interface IssuedLink {
  link: ShareLink;
  token: string;
  url: string;
}

function shareUrl(token: string, base: string): string {
  return new URL(`/share/${token}`, base).toString();
}

export async function listShareLinks(db: Sql, user: SessionUser, reportId: string): Promise<{ links: ShareLink[] }> {
  const report = await getEditableReport(db, user, reportId);
  return { links: (await shareLinksRepo(db).listForReport(report.id)).map(publicLink) };
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
    ...(input.expires_in_days !== undefined ? { expiresInDays: input.expires_in_days } : {}),
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

/** A new token for the link; the old one stops working at once. */
export async function rotateShareLink(db: Sql, user: SessionUser, reportId: string, linkId: string, base: string): Promise<IssuedLink> {
  const link = await editableLink(db, user, reportId, linkId);
  if (link.revokedAt) throw new ApiError(400, "A revoked link cannot be rotated; create a new one");
  const token = newShareToken();
  const links = shareLinksRepo(db);
  await links.rotate(link.id, hashToken(token));
  return { link: publicLink((await links.get(link.id))!), token, url: shareUrl(token, base) };
}

/** Revokes the link at once; revoking twice keeps the first time. */
export async function revokeShareLink(db: Sql, user: SessionUser, reportId: string, linkId: string): Promise<{ link: ShareLink }> {
  const link = await editableLink(db, user, reportId, linkId);
  const links = shareLinksRepo(db);
  await links.revoke(link.id);
  return { link: publicLink((await links.get(link.id))!) };
}

export interface CreateLinkInput {
  expiresInDays?: number;
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
  const days = input.expiresInDays ?? SHARE_LIMITS.defaultDays;
  if (!Number.isInteger(days) || days < 1 || days > SHARE_LIMITS.maxDays) {
    throw ApiError.badRequest(`expires_in_days must be a whole number from 1 to ${SHARE_LIMITS.maxDays}`, [{ path: "expires_in_days", message: "out of range" }]);
  }
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
    }
  }
  const token = newShareToken();
  const link = await shareLinksRepo(db).create({
    reportId: report.id,
    tokenHash: hashToken(token),
    createdBy: user.id,
    expiresAt: new Date(Date.now() + days * 86_400_000),
    passwordHash: input.password ? await hashPassword(input.password) : null,
    mode: input.mode,
    allowedPresets: presets,
    snapshot,
  });
  return { token, link };
}
