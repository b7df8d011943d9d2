import "server-only";
/**
 * next-auth v4 configuration: e-mail and password against the dashboard's store, JWT sessions of
 * 12 hours carrying the user id and role. Every use of a session re-reads the user
 * (`currentSessionUser`), so disabling an account, changing its role or its password takes effect on
 * the next request.
 */
import { randomUUID } from "node:crypto";
import type { NextAuthOptions } from "next-auth";
import type { JWT } from "next-auth/jwt";
import CredentialsProvider from "next-auth/providers/credentials";
import { measure } from "@/lib/core/http/server-timing";
import { serverEnv } from "@/lib/core/env/env";
import { getStore } from "@/lib/core/store";
import { sessionsRepo } from "./sessions-store";
import { clientAddress } from "@/lib/core/http/client-address";
import { authenticate, revalidateSession, type SessionUser } from "./authenticate";
import { safeCallbackPath, throttledError } from "./messages";
import { SessionChecks } from "./session-checks";

export const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;

/**
 * Whether a session (its decrypted cookie) still holds, and its user as the store has them now:
 * null past the absolute 12 hours, after signing out (its id recorded as revoked), or when the user
 * is gone, disabled, or their sessions were voided after it began (password change). Asked on every
 * use of a session, by next-auth's jwt callback and by the API's session check (./session-token.ts);
 * the answer is always the store's as of now, kept in memory only while that is exact.
 */
export async function currentSessionUser(token: JWT): Promise<SessionUser | null> {
  const signedInAt = token.signedInAt ?? 0;
  // An absolute limit: next-auth slides the cookie's expiry each time /api/auth/session is read.
  if (Date.now() - signedInAt > SESSION_MAX_AGE_SECONDS * 1000) return null;
  // Signed out: the cookie may have been copied, but the session it names is over.
  const sid = token.sid;
  if (!sid) return null;
  // The user and the session's revocation in one query, kept while the store says nothing of them
  // changed (./session-checks.ts: with PGlite; PostgreSQL is read on every request).
  return measure("session-store", async () => sessionChecks().check(await getStore(), token.sub ?? "", signedInAt, sid));
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

export const authOptions: NextAuthOptions = {
  // A getter: the secret is read when a request needs it, never at import (builds run without env).
  get secret() {
    return serverEnv().NEXTAUTH_SECRET;
  },
  session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
  pages: { signIn: "/login", error: "/login" },
  providers: [
    CredentialsProvider({
      id: "credentials",
      name: "E-mail and password",
      credentials: {
        email: { label: "E-mail", type: "email" },
        password: { label: "Password", type: "password" },
      },
      async authorize(credentials, req) {
        const result = await authenticate(await getStore(), {
          email: credentials?.email,
          password: credentials?.password,
          address: clientAddress(req.headers, serverEnv().TRUSTED_PROXY_HOPS),
        });
        if (result.ok) return result.user;
        // next-auth passes a thrown message on as `?error=`; the sign-in page turns it into minutes.
        if (result.reason === "throttled") throw new Error(throttledError(result.retryAfterSeconds));
        return null;
      },
    }),
  ],
  callbacks: {
    // next-auth's own check parses the target with `new URL` and throws (a 500) on a malformed one;
    // every target goes through the one rule the sign-in page uses, and an unsafe one is home.
    redirect({ url, baseUrl }) {
      return `${baseUrl}${safeCallbackPath(url, "/", baseUrl)}`;
    },
    async jwt({ token, user }) {
      if (user) {
        return { ...token, sub: user.id, email: user.email, role: user.role, signedInAt: Date.now(), sid: randomUUID() };
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
      if (token?.sid) await sessionsRepo(await getStore()).revoke(token.sid, new Date((token.signedInAt ?? Date.now()) + SESSION_MAX_AGE_SECONDS * 1000));
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
