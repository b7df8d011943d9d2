import "server-only";
/**
 * The signed-in user for server components and route handlers, and the role checks. API routes call
 * `requireUser` (401/403 as the contract's error envelope); pages call `requirePageUser`, which
 * redirects to the sign-in page instead.
 */
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { connection } from "next/server";
import { cache } from "react";
import { ApiError } from "@/lib/contract/errors";
import type { SessionUser } from "./authenticate";
import { sessionUserFrom, type CookieSource } from "./session-token";
import { hasRole, type Role } from "./roles";

export type { Role } from "./roles";
export type { SessionUser } from "./authenticate";

/**
 * Once per request however many components ask (layout and page both do). The check is next-auth's
 * session with our callbacks, without its per-request cryptography (./session-token.ts).
 */
export const getSessionUser = cache(async (): Promise<SessionUser | null> => {
  // Marks the render as dynamic before anything reads the environment, so `next build` never does.
  await connection();
  return sessionUserFrom(await cookies());
});

/**
 * The cookies a route handler's request already carries. Next.js hands a route a NextRequest, which
 * parsed its `cookies` from the request's headers when it was made: the same headers, parsed the same
 * way, that `cookies()` of next/headers reads in a route handler, without that call's request-store
 * lookup, promise and proxies. Reading them through Next.js's
 * request proxy marks a route dynamic as `cookies()` did. A plain Request (tests) has none: null.
 */
function cookiesOf(request: Request | undefined): CookieSource | null {
  const jar = (request as { cookies?: Partial<CookieSource> } | undefined)?.cookies;
  return jar && typeof jar.getAll === "function" ? (jar as CookieSource) : null;
}

/**
 * The session's user, or throws `ApiError(401)` without a session and `ApiError(403)` when the role
 * is insufficient. A single role is a minimum (admin ⊇ analyst ⊇ viewer); a list admits exactly those.
 * A route handler passes its request, whose cookies are then read from it.
 */
export async function requireUser(minRole: Role | readonly Role[] = "viewer", request?: Request): Promise<SessionUser> {
  const jar = cookiesOf(request);
  const user = jar ? await sessionUserFrom(jar) : await getSessionUser();
  if (!user) throw new ApiError(401, "Sign in to use this API");
  if (!hasRole(user.role, minRole)) {
    const need = typeof minRole === "string" ? `${minRole} or higher` : minRole.join(" or ");
    throw new ApiError(403, `This needs the ${need} role; you are signed in as ${user.role}`);
  }
  return user;
}

/**
 * For pages: redirects to /login (back to `path` afterwards) without a session, and home, saying
 * which page it was (`?denied=`), when the role is insufficient.
 */
export async function requirePageUser(path: string, minRole: Role | readonly Role[] = "viewer"): Promise<SessionUser> {
  const user = await getSessionUser();
  if (!user) redirect(`/login?callbackUrl=${encodeURIComponent(path)}`);
  if (!hasRole(user.role, minRole)) redirect(`/?denied=${encodeURIComponent(path.split("?")[0]!)}`);
  return user;
}
