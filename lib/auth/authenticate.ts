/**
 * E-mail and password sign-in, kept apart from next-auth so it can be tested directly. Every failure
 * looks the same to the caller whether the account exists, is disabled, or the password is wrong;
 * an unknown account still costs one scrypt verification so timing doesn't tell them apart either.
 */
import { dummyHash, hashPassword, needsRehash, verifyPassword } from "./password";
import type { Role } from "./roles";
import type { Sql } from "../store/sql";
import { throttleRepo } from "../store/throttle";
import { normalizeEmail, usersRepo } from "../store/users";

export interface SessionUser {
  id: string;
  email: string;
  role: Role;
}

export interface ThrottlePolicy {
  windowSeconds: number;
  maxPerAccount: number;
  maxPerAddress: number;
}

/** At most 5 failures per account and 20 per client address in any 15 minutes. */
export const LOGIN_THROTTLE: ThrottlePolicy = { windowSeconds: 15 * 60, maxPerAccount: 5, maxPerAddress: 20 };

export type AuthResult =
  | { ok: true; user: SessionUser }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "throttled"; retryAfterSeconds: number };

export interface Credentials {
  email: unknown;
  password: unknown;
  /** The client's address, when known; without one only the per-account limit applies. */
  address?: string | null;
}

const MAX_EMAIL = 320;
const MAX_PASSWORD = 1024;

/** Seconds until fewer than `max` failures remain in the window, or 0 when not throttled. */
function retryAfter(failures: Date[], max: number, windowSeconds: number, now: Date): number {
  if (failures.length < max) return 0;
  // Once the failure at this index leaves the window, max-1 remain and one more attempt is allowed.
  const pivot = failures[failures.length - max]!;
  return Math.max(1, Math.ceil((pivot.getTime() + windowSeconds * 1000 - now.getTime()) / 1000));
}

export async function authenticate(
  db: Sql,
  credentials: Credentials,
  options: { now?: Date; policy?: ThrottlePolicy } = {},
): Promise<AuthResult> {
  const now = options.now ?? new Date();
  const policy = options.policy ?? LOGIN_THROTTLE;
  const email = typeof credentials.email === "string" ? normalizeEmail(credentials.email) : "";
  const password = typeof credentials.password === "string" ? credentials.password : "";
  if (email === "" || email.length > MAX_EMAIL || password === "" || password.length > MAX_PASSWORD) {
    return { ok: false, reason: "invalid" };
  }

  const throttle = throttleRepo(db);
  const accountKey = `account:${email}`;
  const addressKey = credentials.address ? `address:${credentials.address}` : null;
  const wait = Math.max(
    retryAfter(await throttle.recentFailures(accountKey, policy.windowSeconds, now), policy.maxPerAccount, policy.windowSeconds, now),
    addressKey
      ? retryAfter(await throttle.recentFailures(addressKey, policy.windowSeconds, now), policy.maxPerAddress, policy.windowSeconds, now)
      : 0,
  );
  // Keyed by the e-mail as typed, not by the account, so throttling says nothing about existence.
  if (wait > 0) return { ok: false, reason: "throttled", retryAfterSeconds: wait };

  const users = usersRepo(db);
  const user = await users.findByEmail(email);
  const valid = await verifyPassword(password, user?.passwordHash ?? (await dummyHash()));
  if (!user || !valid || user.disabled) {
    await throttle.recordFailure(accountKey, now, policy.windowSeconds);
    if (addressKey) await throttle.recordFailure(addressKey, now, policy.windowSeconds);
    return { ok: false, reason: "invalid" };
  }

  // The address counter is left alone: one valid account must not reset a spraying address.
  await throttle.clear(accountKey);
  await users.recordLogin(user.id, now);
  if (needsRehash(user.passwordHash)) await users.rehash(user.id, await hashPassword(password));
  return { ok: true, user: { id: user.id, email: user.email, role: user.role } };
}

/**
 * The session re-check: the user as the store has it now, or null when the account is gone,
 * disabled, or its sessions were voided after `signedInAt` (password change, disable).
 */
export async function revalidateSession(db: Sql, userId: string, signedInAt: number): Promise<SessionUser | null> {
  const user = await usersRepo(db).findById(userId);
  if (!user || user.disabled) return null;
  if (user.sessionsValidAfter && signedInAt < user.sessionsValidAfter.getTime()) return null;
  return { id: user.id, email: user.email, role: user.role };
}

/**
 * The client address for the per-address throttles: from `x-forwarded-for`, the entry `trustedHops`
 * from the right, or else `x-real-ip`; null when neither is set.
 *
 * A reverse proxy appends the address it saw to `x-forwarded-for`, so entries to the left of what
 * the proxies in front of the dashboard wrote are whatever the client sent, and trusting the first
 * entry would let anyone pick their own throttle key. With one proxy (`TRUSTED_PROXY_HOPS=1`, the
 * default) the last entry is the client. Reached directly, Next.js fills the header from the socket
 * only when the request has none, so a client can still choose it: deploy behind a proxy.
 */
export function clientAddress(
  headers: Record<string, string | string[] | undefined> | Headers | undefined,
  trustedHops = 1,
): string | null {
  if (!headers) return null;
  const get = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const v = headers[name];
    return Array.isArray(v) ? v.join(",") : v;
  };
  const chain = (get("x-forwarded-for") ?? "").split(",").map((e) => e.trim()).filter((e) => e !== "");
  const address = chain[Math.max(0, chain.length - trustedHops)] ?? get("x-real-ip")?.trim();
  return address ? address.slice(0, 100) : null;
}
