/**
 * The two-person rule against one person holding several accounts (docs/routing.md "Who may
 * approve"). An account is a second person only if its proposer cannot act as it:
 *
 * - Credentials: nobody but its holder may know both accounts' passwords. A password set on the
 *   Users page (a new account, a reset) is shown to the admin who set it, and users cannot change
 *   their own, so that admin can sign in as the account until someone else sets another. The
 *   proposer and the approver must share no such person: neither set the other's password, and no
 *   third admin set both.
 * - Standing: the approver's password, role, routing permission and enabled state must all be
 *   older than the change (users.standing_since), so nothing done after proposing (granting the
 *   permission, re-enabling an account, resetting a password, a new account) makes an approver.
 * - Withdrawal: any change to an editor's rights, state or password, and the proposer losing the
 *   right to change routing, withdraws the pending changes it concerns, with the reason in the
 *   audit log; the users CLI, which does not withdraw, is still caught by the standing check.
 */
import type { User } from "@/lib/core/auth/users";
import { usersRepo } from "@/lib/core/auth/users";
import { hasRole, type Role } from "@/lib/core/auth/roles";
import { ApiError } from "@/lib/contract/errors";
import { routingChangesRepo } from "@/lib/features/routing/changes-store";
import type { RoutingChange } from "@/lib/features/routing/model";
import type { Sql } from "@/lib/core/store/sql";
import { recordChange } from "./record";

/** May change routing: an admin, or an analyst (or higher) with the routing permission; never a disabled account. */
export function isEditor(u: { role: Role; routing: boolean; disabled: boolean }): boolean {
  return !u.disabled && (u.role === "admin" || (u.routing && hasRole(u.role, "analyst")));
}

/** Everyone who can sign in as `u`: its holder and the admin who last set its password on the Users page. */
function controllers(u: Pick<User, "id" | "passwordSetBy">): Set<string> {
  return new Set([u.id, ...(u.passwordSetBy ? [u.passwordSetBy] : [])]);
}

/**
 * Why `approver` may not approve `change` under the two-person rule, in their words; null when they
 * may. `proposer` is the proposer's account as it is now (null: it no longer exists).
 */
export function approvalRefusal(change: Pick<RoutingChange, "proposed_at" | "proposed_by">, proposer: User | null, approver: User): string | null {
  if (!proposer) return "The account that proposed this change no longer exists, so nobody can approve it; propose it again";
  if (approver.id === proposer.id) return "You proposed this change; under the two-person rule another editor must approve it";
  if (!isEditor(approver)) return "Approving needs the admin role or the routing permission on an enabled account";
  if (approver.standingSince.getTime() >= new Date(change.proposed_at).getTime()) {
    return (
      "Your account's password, role, routing permission or enabled state changed after this change was proposed, so under the two-person rule " +
      "you may not approve it: an approver's standing must predate the change. Ask its proposer to propose it again"
    );
  }
  const shared = [...controllers(approver)].filter((id) => controllers(proposer).has(id));
  if (shared.length > 0) {
    const who =
      approver.passwordSetBy === proposer.id
        ? `${proposer.email} set your password`
        : proposer.passwordSetBy === approver.id
          ? `you set ${proposer.email}'s password`
          : `the same admin set both your password and ${proposer.email}'s`;
    return (
      `Under the two-person rule you may not approve this change: ${who}, so one person can sign in as both accounts. ` +
      "Another admin resetting the password (or the users CLI) makes the accounts separate again"
    );
  }
  return null;
}

/** Throws the 403 when `approver` may not approve `change` (read now, in `db`). */
export async function requireApprover(db: Sql, change: RoutingChange, approverId: string): Promise<void> {
  const users = usersRepo(db);
  const [proposer, approver] = await Promise.all([change.proposed_by.id ? users.findById(change.proposed_by.id) : null, users.findById(approverId)]);
  if (!approver) throw new ApiError(403, "Approving needs the admin role or the routing permission");
  const refusal = approvalRefusal(change, proposer, approver);
  if (refusal) throw new ApiError(403, refusal);
}

/**
 * After `subject`'s rights, state or password changed (`before` as they were, `what` in words, by
 * `actor`), in the same transaction: withdraws the pending changes this alters who may approve,
 * each with the reason in the audit log. Those are every pending change of another proposer when
 * the subject was or is an editor (their standing is now newer than the change, so an approver is
 * gone or one was made), and the subject's own when they may no longer change routing or their
 * password was set by someone else. Returns the changes withdrawn.
 */
export async function withdrawAffected(
  tx: Sql,
  subjectId: string,
  change: { actor: { id: string; email: string; role: Role; address?: string | null }; before: User; what: string },
): Promise<RoutingChange[]> {
  if (change.what === "") return [];
  const after = await usersRepo(tx).findById(subjectId);
  if (!after) return [];
  const wasOrIsEditor = isEditor(change.before) || isEditor(after);
  const ownLost = !isEditor(after) || change.what === "password reset";
  const repo = routingChangesRepo(tx);
  const affected = (await repo.pending()).filter((c) => (c.proposed_by.id === subjectId ? ownLost : wasOrIsEditor));
  const withdrawn: RoutingChange[] = [];
  for (const c of affected) {
    const own = c.proposed_by.id === subjectId;
    const reason = own
      ? `Withdrawn: its proposer ${after.email} had their ${change.what} by ${change.actor.email}, ${isEditor(after) ? "which changes who may approve it" : "and may no longer change routing"}`
      : `Withdrawn: ${after.email} had their ${change.what} by ${change.actor.email}, which changes who may approve it; propose it again to have it reviewed`;
    const done = await recordChange(tx, change.actor, (changes) => changes.withdrawn(c.id, { id: change.actor.id, email: change.actor.email }, reason), () => ({
      event: "withdrawn",
      version: String(c.base_version),
      reason,
      detail: { change_id: c.id, base_version: c.base_version, proposed_by: c.proposed_by.email, user: after.email },
    }));
    if (done) withdrawn.push(done);
  }
  return withdrawn;
}

/** Withdraws `change` at approval time because its proposer may no longer change routing (the users CLI changed them, which withdraws nothing itself). */
export async function withdrawForProposer(tx: Sql, change: RoutingChange, by: { id: string; email: string; role: Role }, proposerEmail: string): Promise<RoutingChange | null> {
  const reason = `Withdrawn: its proposer ${proposerEmail} may no longer change routing`;
  return recordChange(tx, by, (changes) => changes.withdrawn(change.id, { id: by.id, email: by.email }, reason), () => ({
    event: "withdrawn",
    version: String(change.base_version),
    reason,
    detail: { change_id: change.id, base_version: change.base_version, proposed_by: change.proposed_by.email },
  }));
}
