/**
 * Saved reports and share links: who may do what, link creation (with a frozen snapshot when asked),
 * and resolving a visitor's token. Pure of Next: the route handlers and the share page call these
 * with the store, the report gateway and the session user.
 */
import { todayIn } from "@/lib/contract/dates";
import type { ReportQuery, Operation } from "@/lib/contract";
import { ApiError } from "@/lib/contract/errors";
import { hashPassword, verifyPassword } from "@/lib/auth/password";
import type { SessionUser } from "@/lib/auth/session";
import {
  cohortRequest,
  exploreRequest,
  isRangePreset,
  parseCohort,
  parseExplore,
  type RangePreset,
} from "@/lib/report-state";
import { SAVED_PAGES, savedReportsRepo, type SavedPage, type SavedReport } from "@/lib/store/saved-reports";
import { shareLinksRepo, type ShareLinkWithSecrets, type ShareMode, type Snapshot } from "@/lib/store/share-links";
import type { Sql } from "@/lib/store/sql";
import { throttleRepo } from "@/lib/store/throttle";
import { usersRepo } from "@/lib/store/users";
import type { JobResult, JobView, ReportGateway } from "@/lib/upstream/gateway";
import { hashAddress, hashToken, isTokenShaped, newShareToken, verifyUnlock } from "./tokens";

/**
 * Failures (unknown tokens, wrong passwords) per visitor address, and wrong passwords per link from
 * everywhere, in any 15 minutes. Attempts count before they are checked (lib/store/throttle.ts).
 */
export const SHARE_LIMITS = { defaultDays: 30, maxDays: 365, failuresPerAddress: 20, failuresPerLink: 50, windowSeconds: 900 } as const;

export function canEdit(user: SessionUser, report: SavedReport): boolean {
  return user.role === "admin" || (user.role === "analyst" && report.ownerId === user.id);
}
export function canView(user: SessionUser, report: SavedReport): boolean {
  return user.role === "admin" || report.ownerId === user.id || report.sharedWithTeam;
}

export async function getVisibleReport(db: Sql, user: SessionUser, id: string): Promise<SavedReport> {
  const report = await savedReportsRepo(db).get(id);
  // Same answer for "missing" and "not yours": ids are not a way to probe for reports.
  if (!report || !canView(user, report)) throw new ApiError(404, "No such saved report");
  return report;
}

export async function getEditableReport(db: Sql, user: SessionUser, id: string): Promise<SavedReport> {
  const report = await getVisibleReport(db, user, id);
  if (!canEdit(user, report)) throw new ApiError(403, "Only the report's owner or an admin can change it");
  return report;
}

/** The report's definition as a request, today, optionally with an allowed preset instead of its range. */
export function reportQuery(report: Pick<SavedReport, "page" | "params">, timeZone: string, preset?: RangePreset): { op: Operation; query: ReportQuery } {
  const today = todayIn(timeZone);
  if (report.page === "cohorts") {
    const state = parseCohort(report.params).state;
    const spec = cohortRequest(preset ? { ...state, range: { preset } } : state, today);
    return { op: spec.op, query: spec.request };
  }
  const state = parseExplore(report.params).state;
  const spec = exploreRequest(preset ? { ...state, range: { preset } } : state, today);
  return { op: spec.op, query: spec.request };
}

/** A report run through the gateway: its answer, or the job still running (with its wait estimate). */
export type GatewayRun = { done: JobResult } | { waiting: JobView | null };

/**
 * Runs a report through the gateway (cache, queue) for `owner`, waiting up to `waitMs`. Share-link
 * visitors all queue as one owner (SHARE_OWNER), beside each user.
 */
export async function runThroughGateway(gateway: ReportGateway, op: Operation, query: ReportQuery, waitMs: number, owner: string): Promise<GatewayRun> {
  const out = gateway.submit(op, query, owner);
  if ("cached" in out) return { done: out.cached };
  const job = await gateway.settle(out.job.id, waitMs);
  if (job?.status.state === "done") return { done: job.status.result };
  if (job?.status.state === "failed") throw new ApiError(503, `${job.status.error.message} ${job.status.error.action}`);
  return { waiting: job };
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
  const presets = input.allowedPresets ?? [];
  const bad = presets.find((p) => !isRangePreset(p));
  if (bad !== undefined) throw ApiError.badRequest(`unknown preset "${bad}"`, [{ path: "allowed_presets", message: `unknown preset "${bad}"` }]);
  if (input.mode === "snapshot" && presets.length > 0) {
    throw ApiError.badRequest("a snapshot is frozen: it cannot switch presets", [{ path: "allowed_presets", message: "only for live links" }]);
  }
  let snapshot: Snapshot | null = null;
  if (input.mode === "snapshot") {
    const { op, query } = reportQuery(report, timeZone);
    const run = await runThroughGateway(gateway, op, query, 60_000, user.id);
    if (!("done" in run)) throw new ApiError(503, "The report is still queued upstream; try creating the snapshot again in a minute");
    snapshot = { fetched_at: run.done.fetched_at, start_date: query.start_date, end_date: query.end_date, data: run.done.data };
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

export type ShareResolution =
  | { kind: "ok"; link: ShareLinkWithSecrets; report: SavedReport; tokenHash: string }
  | { kind: "locked"; link: ShareLinkWithSecrets; tokenHash: string }
  | { kind: "expired" | "revoked" }
  | { kind: "unknown" }
  | { kind: "throttled" };

/**
 * What a visitor's token opens. Unknown tokens and wrong passwords count against the visitor's
 * address; past the limit every answer is "throttled", whether or not the link exists. A lookup
 * counts before it is made and is taken back when the token is a real link, so parallel guesses
 * cannot outrun the limit while a flood from one address leaves other visitors alone.
 */
export async function resolveShare(
  db: Sql,
  token: string,
  address: string,
  secret: string,
  unlockCookie: (tokenHash: string) => string | undefined,
): Promise<ShareResolution> {
  const attempt = await throttleRepo(db).attempt([{ key: addressKey(address, secret), max: SHARE_LIMITS.failuresPerAddress }], SHARE_LIMITS.windowSeconds);
  if (!attempt.allowed) return { kind: "throttled" };
  const tokenHash = hashToken(token);
  const link = isTokenShaped(token) ? await shareLinksRepo(db).findByTokenHash(tokenHash) : null;
  if (!link) return { kind: "unknown" };
  await attempt.forget();
  if (link.revokedAt) return { kind: "revoked" };
  if (Date.parse(link.expiresAt) <= Date.now()) return { kind: "expired" };
  if (link.passwordHash && !verifyUnlock(unlockCookie(tokenHash), tokenHash, secret)) return { kind: "locked", link, tokenHash };
  const report = await savedReportsRepo(db).get(link.reportId);
  if (!report) return { kind: "revoked" };
  // A link speaks for the user who made it (and the report for its owner): once either is disabled
  // or removed, it stops serving, as their own sessions did. Enabling them again revives it.
  if (!(await isActiveUser(db, link.createdBy)) || !(await isActiveUser(db, report.ownerId))) return { kind: "revoked" };
  return { kind: "ok", link, report, tokenHash };
}

async function isActiveUser(db: Sql, id: string): Promise<boolean> {
  const user = await usersRepo(db).findById(id);
  return user !== null && !user.disabled;
}

function addressKey(address: string, secret: string): string {
  return `share:${hashAddress(address, secret)}`;
}

/**
 * Checks a share password. The attempt counts against the visitor's address and against the link
 * before the password is verified; a right one is taken back. "throttled" when either limit is spent.
 */
export async function checkSharePassword(
  db: Sql,
  link: ShareLinkWithSecrets,
  password: string,
  address: string,
  secret: string,
): Promise<"ok" | "wrong" | "throttled"> {
  const attempt = await throttleRepo(db).attempt(
    [
      { key: addressKey(address, secret), max: SHARE_LIMITS.failuresPerAddress },
      { key: `share-link:${link.id}`, max: SHARE_LIMITS.failuresPerLink },
    ],
    SHARE_LIMITS.windowSeconds,
  );
  if (!attempt.allowed) return "throttled";
  if (link.passwordHash === null || !(await verifyPassword(password, link.passwordHash))) return "wrong";
  await attempt.forget();
  return "ok";
}

export async function recordShareView(db: Sql, linkId: string, address: string, secret: string): Promise<void> {
  await shareLinksRepo(db).recordView(linkId, hashAddress(address, secret));
}

export function parseSavedPage(v: unknown): SavedPage | null {
  return SAVED_PAGES.find((p) => p === v) ?? null;
}
