/**
 * Company sign-in's settings as the environment gives them (OIDC_*): the role map's grammar and the
 * settings the sign-in reads. Role names are spelled here as lib/core/auth/roles.ts spells them (a
 * test keeps the two lists equal), so the environment needs nothing of the auth mechanism.
 */

/** The roles a group may grant: lib/core/auth/roles.ts ROLES. */
export const MAPPABLE_ROLES = ["admin", "analyst", "viewer"] as const;
type Role = (typeof MAPPABLE_ROLES)[number];

const isRole = (v: string): v is Role => (MAPPABLE_ROLES as readonly string[]).includes(v);
const ROLES = MAPPABLE_ROLES;

/** What one group of the identity provider grants: a role, the routing permission, or both. */
export interface GroupGrant {
  role: Role | null;
  routing: boolean;
}

/** Group name (as the role claim carries it) → what it grants. */
export type RoleMap = ReadonlyMap<string, GroupGrant>;

export interface SsoSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated, always with `openid`. */
  scopes: string;
  /** The provider's name on the sign-in button. */
  name: string;
  /** The ID token claim that lists the person's groups (a string or an array of strings). */
  roleClaim: string;
  roleMap: RoleMap;
  /** The longest an SSO session lasts, however often it is used. */
  sessionMaxAgeSeconds: number;
  /** Whether a first SSO sign-in may take over a password account with the same verified e-mail. */
  linkByEmail: boolean;
  /** Password sign-in is off except for `breakGlass`. */
  ssoOnly: boolean;
  /** Normalised e-mails that may still sign in with a password when `ssoOnly`. */
  breakGlass: readonly string[];
}

/** A group's value in OIDC_ROLE_MAP: `admin`, `analyst`, `viewer`, `routing`, or a role and `+routing`. */
export function parseGrant(value: string): GroupGrant | null {
  const parts = value.split("+").map((p) => p.trim().toLowerCase());
  let role: Role | null = null;
  let routing = false;
  for (const p of parts) {
    if (p === "routing" && !routing) routing = true;
    else if (isRole(p) && role === null) role = p;
    else return null;
  }
  return role === null && !routing ? null : { role, routing };
}

/** OIDC_ROLE_MAP: a JSON object of group → grant. Throws an Error that says what is wrong (never echoing values beyond the group's name). */
export function parseRoleMap(json: string): RoleMap {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Error('OIDC_ROLE_MAP must be a JSON object of group → role, e.g. {"bi-admins":"admin","finance":"analyst","routing-team":"analyst+routing"}');
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new Error("OIDC_ROLE_MAP must be a JSON object of group → role");
  const map = new Map<string, GroupGrant>();
  for (const [group, value] of Object.entries(raw as Record<string, unknown>)) {
    const grant = typeof value === "string" ? parseGrant(value) : null;
    if (group.trim() === "" || !grant) {
      throw new Error(`OIDC_ROLE_MAP: group "${group.slice(0, 100)}" must map to one of ${ROLES.join(", ")}, routing, or a role and +routing (e.g. analyst+routing)`);
    }
    map.set(group, grant);
  }
  if (![...map.values()].some((g) => g.role !== null)) throw new Error("OIDC_ROLE_MAP must map at least one group to a role");
  return map;
}

