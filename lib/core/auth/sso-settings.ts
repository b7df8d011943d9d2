/**
 * Company sign-in (OpenID Connect): what the identity provider said about a person, and the one rule
 * that turns their groups into the dashboard's role and routing permission (the settings themselves
 * are read with the environment, lib/core/env/sso.ts). Free of server code.
 */
import type { RoleMap, SsoSettings } from "@/lib/core/env/sso";
import type { Role } from "./roles";

export type { RoleMap, SsoSettings } from "@/lib/core/env/sso";

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

/** Why a password may not sign this account in (or keep a password session going); null when it may. */
export type PasswordRefusal = "sso_only" | "company_account";

/**
 * The one rule for passwords once company sign-in is configured (`sso` non-null), asked at sign-in
 * and again on every use of a password session, so a session outlives no change of the settings:
 * with OIDC_SSO_ONLY no password signs in but a break-glass account's; without it, an account linked
 * to an identity still signs in only through the identity provider, so removal there removes access
 * here too, unless it is a break-glass account. Without company sign-in every password counts.
 */
export function passwordRefusal(account: { email: string; company: boolean }, sso: Pick<SsoSettings, "ssoOnly" | "breakGlass"> | null): PasswordRefusal | null {
  if (!sso || sso.breakGlass.includes(account.email)) return null;
  if (sso.ssoOnly) return "sso_only";
  return account.company ? "company_account" : null;
}
