/**
 * Company sign-in (OpenID Connect) as the environment configures it, and the one rule that turns a
 * person's groups at the identity provider into the dashboard's role and routing permission. Free of
 * server code so the environment schema, tests and tools can use it.
 */
import { isRole, ROLES, type Role } from "./roles";

/** What the identity provider said about a person, from the verified ID token. */
export interface SsoIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  /** The `email_verified` claim; null when the IdP does not send it. */
  emailVerified: boolean | null;
  claims: Record<string, unknown>;
}

/** Why company sign-in refused a person the IdP vouched for; each has its own words on /login/refused. */
export const SSO_REFUSALS = ["no_group", "no_email", "email_unverified", "email_taken", "disabled"] as const;
export type SsoRefusal = (typeof SSO_REFUSALS)[number];

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

const RANK: Record<Role, number> = { viewer: 1, analyst: 2, admin: 3 };

/**
 * The role and routing permission of a person in `groups` (the role claim's value): the highest
 * role any mapped group grants, and the routing permission when any mapped group grants it. null
 * when no mapped group grants a role: such a person is refused, never given a default.
 */
export function grantFor(groups: unknown, map: RoleMap): { role: Role; routing: boolean } | null {
  const names = typeof groups === "string" ? [groups] : Array.isArray(groups) ? groups.filter((g): g is string => typeof g === "string") : [];
  let role: Role | null = null;
  let routing = false;
  for (const name of names) {
    const grant = map.get(name);
    if (!grant) continue;
    if (grant.role && (role === null || RANK[grant.role] > RANK[role])) role = grant.role;
    routing ||= grant.routing;
  }
  return role === null ? null : { role, routing };
}

/** The issuer without a trailing slash, as discovery is joined onto it. */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
}
