import "server-only";
/**
 * The session check behind every API route and page: the request's session cookie → its user as the
 * store has them now, or null. It is next-auth's `getServerSession` with our jwt and session callbacks
 * (./options.ts), minus the work that did not decide anything: re-deriving the key and decrypting the
 * cookie on every request, and encrypting a renewed cookie that a route handler or server component
 * does not send (next-auth renews it when the browser reads /api/auth/session).
 *
 * The decrypted cookie is kept per cookie value for a few minutes (./token-cache.ts). Whether the
 * session still holds is the store's answer on every request (`currentSessionUser`; with PGlite kept
 * until the store notifies a change, ./session-checks.ts): signing out, disabling the user, a role or
 * a password change take effect on the next request, as before.
 */
import { decode, type JWT } from "next-auth/jwt";
import { measure } from "@/lib/core/http/server-timing";
import { serverEnv } from "@/lib/core/env/env";
import { isRole } from "./roles";
import type { SessionUser } from "./authenticate";
import { currentSessionUser } from "./options";
import { TokenCache } from "./token-cache";

/** What the check reads the cookies from: `cookies()` of next/headers, or a request's cookies. */
export interface CookieSource {
  getAll(): { name: string; value: string }[];
}

/** next-auth's session cookie name: with the `__Secure-` prefix when the dashboard's URL is https. */
export function sessionCookieName(dashboardUrl: string): string {
  return dashboardUrl.startsWith("https://") ? "__Secure-next-auth.session-token" : "next-auth.session-token";
}

/**
 * The session token from the cookies, joined from its chunks as next-auth writes them when it is
 * too long for one cookie (`name.0`, `name.1`, …); "" when there is none. Reads exactly the cookies
 * next-auth's own SessionStore reads, in its order.
 */
export function sessionTokenFrom(cookies: CookieSource, name: string): string {
  const parts = cookies.getAll().filter((c) => c.name.startsWith(name));
  const suffix = (n: string) => parseInt(n.split(".").pop() ?? "0");
  return parts
    .sort((a, b) => suffix(a.name) - suffix(b.name))
    .map((c) => c.value)
    .join("");
}

const globalKey = Symbol.for("payments-analytics.session-tokens");
type WithTokens = typeof globalThis & { [globalKey]?: TokenCache<JWT> };

/** 1,000 sessions for up to 5 minutes each: a few hundred kilobytes at most. */
export const SESSION_TOKEN_CACHE = { maxEntries: 1000, ttlMs: 5 * 60_000 } as const;

/** The process's cache (on globalThis, so separately bundled routes share one). */
function tokenCache(): TokenCache<JWT> {
  const g = globalThis as WithTokens;
  return (g[globalKey] ??= new TokenCache<JWT>(SESSION_TOKEN_CACHE));
}

/** The signed-in user of these cookies, or null (no cookie, one that does not decrypt, or a session that is over). */
export async function sessionUserFrom(cookies: CookieSource): Promise<SessionUser | null> {
  const env = serverEnv();
  const raw = sessionTokenFrom(cookies, sessionCookieName(env.NEXTAUTH_URL));
  if (!raw) return null;
  const secret = env.NEXTAUTH_SECRET;
  const token = await measure("session-decode", () => tokenCache().decode(raw, (t) => decode({ token: t, secret }).catch(() => null)));
  if (!token) return null;
  const user = await currentSessionUser(token);
  // What next-auth's session callback made of it, and what getSessionUser required of that.
  if (!user || !user.id || !user.email || !isRole(user.role)) return null;
  return { id: user.id, email: user.email, role: user.role };
}
