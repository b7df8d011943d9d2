/** Roles and their order; free of server code so client components and tools can use it. */
export const ROLES = ["admin", "analyst", "viewer"] as const;
export type Role = (typeof ROLES)[number];

// admin ⊇ analyst ⊇ viewer: a higher rank may do everything a lower one may.
const RANK: Record<Role, number> = { viewer: 1, analyst: 2, admin: 3 };

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/**
 * Whether `role` satisfies `required`: a single role is a minimum in the hierarchy
 * ("analyst" admits analyst and admin); a list admits exactly the roles it names.
 */
export function hasRole(role: Role, required: Role | readonly Role[]): boolean {
  if (typeof required === "string") return RANK[role] >= RANK[required];
  return required.includes(role);
}

/** The signed-in user a session carries. */
export interface SessionUser {
  id: string;
  email: string;
  role: Role;
}
