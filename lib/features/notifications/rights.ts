/**
 * Alert rules and scheduled reports act with their owner's rights at the moment they run, not those
 * the owner had when they made them. Before each slot (and when an admin disables or demotes a user,
 * and when an owner resumes one) the item is checked: an owner who was disabled, or whose role may
 * no longer own it, stops it; so does a report the owner may no longer see, or a share link that was
 * revoked, expired, or that the owner may no longer make. A stopped item is paused with the reason,
 * shown on it; an admin resumes it by reassigning it to a user who may own it.
 */
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { ApiError } from "@/lib/contract/errors";
import { canEdit, canView } from "@/lib/features/saved-reports/access";
import { alertsRepo } from "@/lib/features/notifications/alerts-store";
import type { AlertRule } from "@/lib/features/notifications/model";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import { shareLinksRepo } from "@/lib/features/sharing/links-store";
import type { Sql } from "@/lib/core/store/sql";
import { subscriptionsRepo } from "@/lib/features/notifications/subscriptions-store";
import type { Subscription } from "@/lib/features/notifications/model";
import { usersRepo } from "@/lib/core/auth/users";
import { hasRole } from "@/lib/core/auth/roles";

export const PAUSE_REASONS = ["owner_disabled", "owner_role", "report_unshared"] as const;
export type PauseReason = (typeof PAUSE_REASONS)[number];

export interface Stop {
  reason: PauseReason;
  /** In words, for refusals and logs. */
  why: string;
}

/** The owner as a session user when they may own automation (an active analyst or admin), else why not. */
async function activeOwner(db: Sql, ownerId: string): Promise<SessionUser | Stop> {
  const u = await usersRepo(db).findById(ownerId);
  if (!u || u.disabled) return { reason: "owner_disabled", why: "its owner was disabled" };
  if (!hasRole(u.role, "analyst")) return { reason: "owner_role", why: `its owner is now a ${u.role}, who may not own alert rules or scheduled reports` };
  return { id: u.id, email: u.email, role: u.role };
}

const isStop = (x: SessionUser | Stop): x is Stop => "reason" in x;

export async function ruleStop(db: Sql, rule: Pick<AlertRule, "ownerId">): Promise<Stop | null> {
  const owner = await activeOwner(db, rule.ownerId);
  return isStop(owner) ? owner : null;
}

export async function subscriptionStop(db: Sql, sub: Pick<Subscription, "ownerId" | "reportId" | "shareLinkId">): Promise<Stop | null> {
  const owner = await activeOwner(db, sub.ownerId);
  if (isStop(owner)) return owner;
  const report = await savedReportsRepo(db).get(sub.reportId);
  if (!report || !canView(owner, report)) return { reason: "report_unshared", why: "its owner may no longer see the report" };
  if (sub.shareLinkId) {
    const link = await shareLinksRepo(db).get(sub.shareLinkId);
    if (!link || link.revokedAt || Date.parse(link.expiresAt) <= Date.now()) return { reason: "report_unshared", why: "its share link was revoked or expired" };
    if (!canEdit(owner, report)) return { reason: "owner_role", why: "its owner may no longer share the report" };
  }
  return null;
}

/** Pauses, with the reason, each of the user's rules and subscriptions that must stop now. */
export async function pauseStopped(db: Sql, ownerId: string): Promise<number> {
  let n = 0;
  for (const r of await alertsRepo(db).list(ownerId)) {
    const stop = await ruleStop(db, r);
    if (stop && r.pausedReason !== stop.reason) {
      await alertsRepo(db).pauseFor(r.id, stop.reason);
      n++;
    }
  }
  for (const s of await subscriptionsRepo(db).list(ownerId)) {
    const stop = await subscriptionStop(db, s);
    if (stop && s.pausedReason !== stop.reason) {
      await subscriptionsRepo(db).pauseFor(s.id, stop.reason);
      n++;
    }
  }
  return n;
}

/** Refuses to resume (or run now) what must stay stopped, saying why and what to do. */
export function refuseStopped(stop: Stop | null, what: "alert rule" | "scheduled report"): void {
  if (!stop) return;
  const todo = stop.reason === "report_unshared" ? "subscribe again to a report its owner may see and share" : "an admin can reassign it to a user who may own it";
  throw ApiError.badRequest(`This ${what} is paused because ${stop.why}; ${todo}`, [{ path: "paused", message: stop.reason }]);
}

/** The new owner of a reassigned rule or subscription: an active analyst or admin. */
export async function newOwner(db: Sql, actor: SessionUser, ownerId: string): Promise<SessionUser> {
  if (actor.role !== "admin") throw new ApiError(403, "Only an admin can give an alert rule or scheduled report to another user");
  const owner = await activeOwner(db, ownerId);
  if (isStop(owner)) throw ApiError.badRequest("The new owner must be an active analyst or admin", [{ path: "owner_id", message: owner.reason }]);
  return owner;
}
