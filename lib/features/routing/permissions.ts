import "server-only";
/**
 * Who may read and change live routing (docs/routing.md "Workspace"). Who may approve another
 * editor's change under the two-person rule is ./approval.ts.
 */
import { ApiError } from "@/lib/contract/errors";
import { usersRepo } from "@/lib/core/auth/users";
import { hasRole, type Role } from "@/lib/core/auth/roles";
import type { Store } from "@/lib/core/store/sql";
import { NO_WRITE_CREDENTIAL, type RoutingClients } from "./upstream";

export interface RoutingUser {
  id: string;
  email: string;
  role: Role;
  /** The routing permission (users admin). */
  routing: boolean;
}

/**
 * Admins, and analysts holding the routing permission, change routing; every analyst reads it.
 * Viewers see no routing (it shows which MIDs take which cards) and a routing permission does not
 * lift them: it is granted beside a role that can read.
 */
export function canReadRouting(user: Pick<RoutingUser, "role">): boolean {
  return hasRole(user.role, "analyst");
}

export function canEditRouting(user: Pick<RoutingUser, "role" | "routing">): boolean {
  return user.role === "admin" || (user.routing && canReadRouting(user));
}

/** Why `user` may not change routing here, in their words; null when they may. */
export function readOnlyReason(user: Pick<RoutingUser, "role" | "routing">, writeCredential: boolean): string | null {
  if (!canEditRouting(user)) return "You can read the routing configuration but not change it: that needs the admin role or the routing permission, which an admin grants on the Users page.";
  if (!writeCredential) return NO_WRITE_CREDENTIAL;
  return null;
}

/** The session user with their routing permission, read now (it may have changed since sign-in); 403 for those who may not read. */
export async function routingUser(store: Store, session: { id: string; email: string; role: Role }): Promise<RoutingUser> {
  const stored = await usersRepo(store).findById(session.id);
  const user: RoutingUser = { id: session.id, email: session.email, role: session.role, routing: stored?.routing === true };
  if (!canReadRouting(user)) throw new ApiError(403, `The routing workspace needs the analyst role or higher; you are signed in as ${user.role}`);
  return user;
}

export function requireEdit(user: RoutingUser): void {
  if (!canEditRouting(user)) {
    throw new ApiError(403, "Changing routing needs the admin role or the routing permission; an admin can grant the permission on the Users page");
  }
}

/** A 503 when the dashboard holds no routing credential to apply changes with. */
export function requireCredential(clients: RoutingClients): void {
  if (!clients.write) throw new ApiError(503, NO_WRITE_CREDENTIAL);
}
