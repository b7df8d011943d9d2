/**
 * Share links from the visitor's side: resolving a token (throttled), checking a link's password,
 * counting views, and running the linked report through the gateway. Pure of Next: the share routes
 * and the share page call these with the store and the report gateway. Managing links is links.ts.
 */
import { todayIn } from "@/lib/contract/dates";
import type { ReportQuery, Operation } from "@/lib/contract";
import { ApiError } from "@/lib/contract/errors";
import { verifyPassword } from "@/lib/core/auth/password";
import { cohortRequest, parseCohort } from "@/lib/report/state/cohort";
import { comparisonRequest, exploreRequest, parseExplore } from "@/lib/report/state/explore";
import { type RangePreset } from "@/lib/report/state/range";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import type { SavedReport } from "@/lib/features/saved-reports/model";
import { shareLinksRepo, type ShareLinkWithSecrets } from "@/lib/features/sharing/links-store";
import type { Sql } from "@/lib/core/store/sql";
import { throttleRepo } from "@/lib/core/http/throttle";
import { usersRepo } from "@/lib/core/auth/users";
import { canEdit } from "@/lib/features/saved-reports/access";
import type { JobResult, JobView, ReportGateway } from "@/lib/core/upstream/gateway";
import { hashAddress, hashToken, isTokenShaped, verifyUnlock } from "./tokens";

/**
 * Failures (unknown tokens, wrong passwords) per visitor address, and wrong passwords per link from
 * everywhere, in any 15 minutes. Attempts count before they are checked (lib/core/http/throttle.ts).
 */
export const SHARE_LIMITS = { defaultDays: 30, maxDays: 365, failuresPerAddress: 20, failuresPerLink: 50, windowSeconds: 900 } as const;

/**
 * The report's definition as requests, today, optionally with an allowed preset instead of its range:
 * the report's, and the comparison's when the report compares (the same request over other days).
 */
export function reportQuery(
  report: Pick<SavedReport, "page" | "params">,
  timeZone: string,
  preset?: RangePreset,
): { op: Operation; query: ReportQuery; comparison: ReportQuery | null } {
  const today = todayIn(timeZone);
  if (report.page === "cohorts") {
    const state = parseCohort(report.params).state;
    const spec = cohortRequest(preset ? { ...state, range: { preset } } : state, today);
    return { op: spec.op, query: spec.request, comparison: null };
  }
  const saved = parseExplore(report.params).state;
  const state = preset ? { ...saved, range: { preset } } : saved;
  const spec = exploreRequest(state, today);
  return { op: spec.op, query: spec.request, comparison: comparisonRequest(state, today)?.request ?? null };
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

export type ShareResolution =
  | { kind: "ok"; link: ShareLinkWithSecrets; report: SavedReport; tokenHash: string }
  | { kind: "locked"; link: ShareLinkWithSecrets; tokenHash: string }
  | { kind: "expired" | "revoked" }
  /** The sharer's role may no longer share the report: not served until an admin revokes it or the role is given back. */
  | { kind: "paused" }
  | { kind: "unknown" }
  | { kind: "throttled" };

/**
 * What a visitor's token opens. A real token is never throttled: it holds 256 random bits, so no
 * budget is needed to stop anyone guessing one, and no one's guesses can close it for others.
 * Unknown tokens count against the visitor's address when there is one (a trusted proxy names it);
 * past the limit an unknown token answers "throttled". With no address (TRUSTED_PROXY_HOPS=0) there
 * is nothing the guesser alone owns to count against, and an unknown token is simply unknown.
 */
export async function resolveShare(
  db: Sql,
  token: string,
  address: string | null,
  secret: string,
  unlockCookie: (tokenHash: string) => string | undefined,
): Promise<ShareResolution> {
  const tokenHash = hashToken(token);
  const link = isTokenShaped(token) ? await shareLinksRepo(db).findByTokenHash(tokenHash) : null;
  if (!link) {
    if (address === null) return { kind: "unknown" };
    const attempt = await throttleRepo(db).attempt([{ key: addressKey(address, secret), max: SHARE_LIMITS.failuresPerAddress }], SHARE_LIMITS.windowSeconds);
    return { kind: attempt.allowed ? "unknown" : "throttled" };
  }
  if (link.revokedAt) return { kind: "revoked" };
  if (Date.parse(link.expiresAt) <= Date.now()) return { kind: "expired" };
  const report = await savedReportsRepo(db).get(link.reportId);
  if (!report) return { kind: "revoked" };
  // A link speaks for the user who made it (and the report for its owner): once either is disabled
  // or removed, it stops serving, as their own sessions did. Enabling them again revives it.
  const sharer = await usersRepo(db).findById(link.createdBy);
  if (!sharer || sharer.disabled || !(await isActiveUser(db, report.ownerId))) return { kind: "revoked" };
  // A sharer whose role may no longer share the report (an analyst made a viewer, an admin made an
  // analyst of someone else's report) cannot revoke the link any more: it is paused, not served, until
  // an admin revokes it or the role is given back. Checked before the password: a paused link asks for none.
  if (!canEdit({ id: sharer.id, email: sharer.email, role: sharer.role }, report)) return { kind: "paused" };
  if (link.passwordHash && !verifyUnlock(unlockCookie(tokenHash), tokenHash, secret)) return { kind: "locked", link, tokenHash };
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
 * Checks a share password. The attempt counts against the link (from everywhere) and, when there is
 * one, the visitor's address before the password is verified; a right one is taken back. "throttled"
 * when either limit is spent.
 */
export async function checkSharePassword(
  db: Sql,
  link: ShareLinkWithSecrets,
  password: string,
  address: string | null,
  secret: string,
): Promise<"ok" | "wrong" | "throttled"> {
  const attempt = await throttleRepo(db).attempt(
    [
      ...(address !== null ? [{ key: addressKey(address, secret), max: SHARE_LIMITS.failuresPerAddress }] : []),
      { key: `share-link:${link.id}`, max: SHARE_LIMITS.failuresPerLink },
    ],
    SHARE_LIMITS.windowSeconds,
  );
  if (!attempt.allowed) return "throttled";
  if (link.passwordHash === null || !(await verifyPassword(password, link.passwordHash))) return "wrong";
  await attempt.forget();
  return "ok";
}

/** Counts a view; visitors without an address (no trusted proxy) count as one unknown visitor. */
export async function recordShareView(db: Sql, linkId: string, address: string | null, secret: string): Promise<void> {
  await shareLinksRepo(db).recordView(linkId, hashAddress(address ?? "unknown", secret));
}
