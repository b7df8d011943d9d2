import "server-only";
/**
 * next-auth v4 configuration: e-mail and password against the dashboard's store and, when OIDC_ISSUER
 * is set, company sign-in with OpenID Connect; JWT sessions carrying the user id and role, of at most
 * 12 hours after a password sign-in and OIDC_SESSION_MAX_AGE_SECONDS (default one hour) after company
 * sign-in. Every use of a session re-reads the user (`currentSessionUser`), so disabling an account,
 * changing its role or its password takes effect on the next request.
 */
import { randomUUID } from "node:crypto";
import { headers } from "next/headers";
import type { NextAuthOptions, User } from "next-auth";
import type { JWT } from "next-auth/jwt";
import CredentialsProvider from "next-auth/providers/credentials";
import type { OAuthConfig, Provider } from "next-auth/providers/index";
import { measure } from "@/lib/core/http/server-timing";
import { serverEnv } from "@/lib/core/env/env";
import { ssoSettingsOf } from "@/lib/core/env/env-schema";
import { getStore } from "@/lib/core/store";
import { auditRepo } from "@/lib/core/audit/store";
import { sessionsRepo } from "./sessions-store";
import { clientAddress } from "@/lib/core/http/client-address";
import { authenticate, LOGIN_THROTTLE, revalidateSession, type SessionUser } from "./authenticate";
import { safeCallbackPath, throttledError } from "./messages";
import { SessionChecks } from "./session-checks";
import { discoveryUrl, passwordRefusal, type SsoIdentity, type SsoRefusal, type SsoSettings } from "./sso-settings";

export const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;

/** next-auth's id of the company sign-in provider (its callback is /api/auth/callback/oidc). */
export const SSO_PROVIDER_ID = "oidc";

/** The company sign-in settings of this deployment, or null when it has none. */
export function ssoSettings(): SsoSettings | null {
  return ssoSettingsOf(serverEnv());
}

/** How long a session may last at most: by how it signed in. */
function maxAgeSeconds(token: JWT): number {
  if (token.method !== "sso") return SESSION_MAX_AGE_SECONDS;
  return ssoSettings()?.sessionMaxAgeSeconds ?? 0;
}

/**
 * Whether a session (its decrypted cookie) still holds at `now`, and its user as the store has them
 * now: null past its absolute lifetime (12 hours, or OIDC_SESSION_MAX_AGE_SECONDS after company
 * sign-in), after signing out (its id recorded as revoked), when the user is gone, disabled, or their
 * sessions were voided after it began (password change), and for a password session that company
 * sign-in's settings no longer let a password make (`passwordRefusal`: OIDC_SSO_ONLY turned on, the
 * e-mail taken off OIDC_BREAK_GLASS, the account linked to an identity). Asked on every use of a
 * session, by next-auth's jwt callback and by the API's session check (./session-token.ts); the
 * answer is always the store's and the settings' as of now, kept in memory only while that is exact.
 */
export async function currentSessionUser(token: JWT, now = Date.now()): Promise<SessionUser | null> {
  const signedInAt = token.signedInAt ?? 0;
  // An absolute limit: next-auth slides the cookie's expiry each time /api/auth/session is read.
  // A company sign-in's is shorter, and is how a person removed at the IdP loses access (with SSO
  // turned off, such a session is simply over).
  if (now - signedInAt > maxAgeSeconds(token) * 1000) return null;
  // Signed out: the cookie may have been copied, but the session it names is over.
  const sid = token.sid;
  if (!sid) return null;
  // The user and the session's revocation in one query, kept while the store says nothing of them
  // changed (./session-checks.ts: with PGlite; PostgreSQL is read on every request).
  const account = await measure("session-store", async () => sessionChecks().check(await getStore(), token.sub ?? "", signedInAt, sid));
  if (!account) return null;
  // The settings are read per request, after the store's answer: kept answers never outlive a change of them.
  if (token.method !== "sso" && passwordRefusal(account, ssoSettings()) !== null) return null;
  return { id: account.id, email: account.email, role: account.role };
}

const checksKey = Symbol.for("payments-analytics.session-checks");
type WithChecks = typeof globalThis & { [checksKey]?: SessionChecks };

/** 1,000 signed-in sessions' users: well under a megabyte. */
export const SESSION_CHECKS_KEPT = 1000;

/** The process's one (on globalThis, so separately bundled routes share it and listen once). */
function sessionChecks(): SessionChecks {
  const g = globalThis as WithChecks;
  return (g[checksKey] ??= new SessionChecks(revalidateSession, SESSION_CHECKS_KEPT));
}

class SessionRevokedError extends Error {
  constructor() {
    super("session no longer valid (expired, user disabled or removed, or password changed)");
    this.name = "SessionRevokedError";
  }
}

function errorName(metadata: unknown): string | undefined {
  if (metadata instanceof Error) return metadata.name;
  const inner = (metadata as { error?: unknown } | null)?.error;
  return inner instanceof Error ? inner.name : undefined;
}

function errorMessage(metadata: unknown): string {
  if (metadata instanceof Error) return metadata.message;
  const m = metadata as { message?: unknown; error?: { message?: unknown } } | null;
  return String(m?.message ?? m?.error?.message ?? "");
}

/**
 * Company sign-in's decision for a person the IdP vouched for (lib/features/users/sso.ts): the account and
 * its role, or why not. Handed in by the auth route, since it follows rights changes into features.
 */
export type SsoSignIn = (
  identity: SsoIdentity,
  settings: SsoSettings,
  context: { address: string | null },
) => Promise<{ ok: true; user: SessionUser } | { ok: false; reason: SsoRefusal }>;

/**
 * The client's address as the password sign-in reads it (TRUSTED_PROXY_HOPS), from the request
 * next-auth is serving (its callbacks are not handed the request); null outside one.
 */
async function requestAddress(): Promise<string | null> {
  try {
    return clientAddress(await headers(), serverEnv().TRUSTED_PROXY_HOPS);
  } catch {
    return null;
  }
}

/**
 * A company sign-in the signIn callback refuses itself (no profile, an issuer that is not the
 * configured one): counted in the failed sign-ins' tally, as every refusal of company sign-in is
 * (lib/features/users/sso.ts), so repeating one cannot grow the audit log.
 */
async function countCallbackRefusal(address: string | null, profile: Record<string, unknown> | undefined): Promise<void> {
  const email = typeof profile?.email === "string" && profile.email !== "" ? profile.email.trim().toLowerCase() : null;
  await auditRepo(await getStore()).countFailedSignIn({ address, email, why: "sso_callback", now: new Date(), windowSeconds: LOGIN_THROTTLE.windowSeconds });
}

/** A user that company sign-in has resolved to an account (set by the signIn callback). */
type ResolvedUser = User & { ssoResolved?: true };

function ssoProvider(sso: SsoSettings): OAuthConfig<Record<string, unknown>> {
  return {
    id: SSO_PROVIDER_ID,
    name: sso.name,
    type: "oauth",
    wellKnown: discoveryUrl(sso.issuer),
    clientId: sso.clientId,
    clientSecret: sso.clientSecret,
    authorization: { params: { scope: sso.scopes } },
    // The profile is the ID token's verified claims (openid-client checks its issuer, audience,
    // signature and nonce); PKCE and state are checked against next-auth's cookies.
    idToken: true,
    checks: ["pkce", "state", "nonce"],
    // A placeholder until the signIn callback finds the account: the jwt callback refuses a user it did not resolve.
    profile: (p) => ({ id: String(p.sub ?? ""), email: typeof p.email === "string" ? p.email : "", role: "viewer" }),
  };
}

function identityOf(profile: Record<string, unknown>, issuer: string): SsoIdentity {
  return {
    issuer,
    subject: String(profile.sub ?? ""),
    email: typeof profile.email === "string" && profile.email !== "" ? profile.email : null,
    emailVerified: typeof profile.email_verified === "boolean" ? profile.email_verified : null,
    claims: profile,
  };
}

const sameIssuer = (a: unknown, b: string) => typeof a === "string" && a.replace(/\/+$/, "") === b.replace(/\/+$/, "");

/** The options with company sign-in's decision handed in (the auth route); without it, company sign-in is not offered. */
export function authOptionsWith(deps: { ssoSignIn?: SsoSignIn } = {}): NextAuthOptions {
  return {
    // A getter: the secret is read when a request needs it, never at import (builds run without env).
    get secret() {
      return serverEnv().NEXTAUTH_SECRET;
    },
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    pages: { signIn: "/login", error: "/login" },
    // A getter too: read per request, from the environment.
    get providers(): Provider[] {
      const sso = deps.ssoSignIn ? ssoSettings() : null;
      const providers: Provider[] = [
        CredentialsProvider({
          id: "credentials",
          name: "E-mail and password",
          credentials: {
            email: { label: "E-mail", type: "email" },
            password: { label: "Password", type: "password" },
          },
          async authorize(credentials, req) {
            const result = await authenticate(
              await getStore(),
              {
                email: credentials?.email,
                password: credentials?.password,
                address: clientAddress(req.headers, serverEnv().TRUSTED_PROXY_HOPS),
              },
              { sso },
            );
            if (result.ok) return result.user;
            // next-auth passes a thrown message on as `?error=`; the sign-in page turns it into minutes.
            if (result.reason === "throttled") throw new Error(throttledError(result.retryAfterSeconds));
            return null;
          },
        }),
      ];
      if (sso) providers.push(ssoProvider(sso));
      return providers;
    },
    callbacks: {
      // next-auth's own check parses the target with `new URL` and throws (a 500) on a malformed one;
      // every target goes through the one rule the sign-in page uses, and an unsafe one is home.
      redirect({ url, baseUrl }) {
        return `${baseUrl}${safeCallbackPath(url, "/", baseUrl)}`;
      },
      async signIn({ user, account, profile }) {
        if (account?.provider !== SSO_PROVIDER_ID) return true;
        const address = await requestAddress();
        const sso = ssoSettings();
        const claims = profile as Record<string, unknown> | undefined;
        // openid-client compared the ID token's issuer with the discovered one; that must be the configured one.
        if (!sso || !deps.ssoSignIn || !claims || !sameIssuer(claims.iss, sso.issuer)) {
          await countCallbackRefusal(address, claims);
          return false;
        }
        const outcome = await deps.ssoSignIn(identityOf(claims, sso.issuer), sso, { address });
        if (!outcome.ok) return `${serverEnv().NEXTAUTH_URL}/login/refused?reason=${outcome.reason}`;
        // next-auth hands this same object to the jwt callback: the session is the account's, not the IdP's subject's.
        const resolved = user as ResolvedUser;
        resolved.id = outcome.user.id;
        resolved.email = outcome.user.email;
        resolved.role = outcome.user.role;
        resolved.ssoResolved = true;
        return true;
      },
      async jwt({ token, user, account }) {
        if (user) {
          const sso = account?.provider === SSO_PROVIDER_ID;
          if (sso && (user as ResolvedUser).ssoResolved !== true) throw new SessionRevokedError();
          return { ...token, sub: user.id, email: user.email, role: user.role, signedInAt: Date.now(), sid: randomUUID(), method: sso ? "sso" : "password" };
        }
        const current = await currentSessionUser(token);
        // Throwing makes next-auth answer "no session" (and clear the cookie where it can).
        if (!current) throw new SessionRevokedError();
        return { ...token, email: current.email, role: current.role };
      },
      session({ session, token }) {
        return { ...session, user: { id: token.sub ?? "", email: token.email ?? "", role: token.role ?? "viewer" } };
      },
    },
    events: {
      async signOut({ token }) {
        if (token?.sid) await sessionsRepo(await getStore()).revoke(token.sid, new Date((token.signedInAt ?? Date.now()) + maxAgeSeconds(token) * 1000));
      },
    },
    logger: {
      error(code, metadata) {
        if (code === "JWT_SESSION_ERROR" && errorName(metadata) === "SessionRevokedError") return;
        // Code and message only: metadata can hold request details.
        console.error(JSON.stringify({ level: "error", msg: "next-auth", code, error: errorMessage(metadata) }));
      },
      warn(code) {
        console.warn(JSON.stringify({ level: "warn", msg: "next-auth", code }));
      },
      debug() {},
    },
  };
}
