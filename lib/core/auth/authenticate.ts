/**
 * E-mail and password sign-in, kept apart from next-auth so it can be tested directly. Every failure
 * looks the same to the caller whether the account exists, is disabled, or the password is wrong;
 * an unknown account still costs one scrypt verification so timing doesn't tell them apart either.
 */
import { dummyHash, hashPassword, needsRehash, verifyPassword } from "./password";
import { appendAudit, inTransaction } from "@/lib/core/audit/log";
import type { SessionUser } from "./roles";
import type { Sql } from "@/lib/core/store/sql";
import { auditRepo, type SignInFailure } from "@/lib/core/audit/store";
import { throttleRepo, type AttemptLimit } from "@/lib/core/http/throttle";
import { NO_PASSWORD, normalizeEmail, usersRepo } from "./users";
import { passwordRefusal, type SsoSettings } from "./sso-settings";

export type { SessionUser } from "./roles";

export interface ThrottlePolicy {
  windowSeconds: number;
  /** Failures for one account from one address. */
  maxPerAccountPerAddress: number;
  /** Failures from one address, across accounts (password spraying). */
  maxPerAddress: number;
  /** Failures for one account from anywhere: the ceiling that stops a distributed guess. */
  maxPerAccount: number;
}

/**
 * In any 15 minutes: 5 failures per account from one address, 20 per address, and 50 per account
 * from everywhere together. Guessing someone's e-mail from one address locks out only that address;
 * locking the account out for everyone takes 50 failures, which takes at least 10 addresses.
 */
export const LOGIN_THROTTLE: ThrottlePolicy = { windowSeconds: 15 * 60, maxPerAccountPerAddress: 5, maxPerAddress: 20, maxPerAccount: 50 };

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

export async function authenticate(
  db: Sql,
  credentials: Credentials,
  options: {
    now?: Date;
    policy?: ThrottlePolicy;
    /** Company sign-in's settings when it is configured: which passwords it leaves on (`passwordRefusal`). */
    sso?: Pick<SsoSettings, "ssoOnly" | "breakGlass"> | null;
  } = {},
): Promise<AuthResult> {
  const now = options.now ?? new Date();
  const policy = options.policy ?? LOGIN_THROTTLE;
  const email = typeof credentials.email === "string" ? normalizeEmail(credentials.email) : "";
  const password = typeof credentials.password === "string" ? credentials.password : "";
  const address = credentials.address ?? null;
  // The audit log (admins only) says why sign-ins failed; the caller never learns more than "invalid".
  // Anyone can fail a sign-in, so failures are counted per address and window, each reason apart,
  // with the e-mails typed, and become one entry per address and window (lib/core/audit/store.ts): the
  // log's growth is bounded however many arrive, malformed and throttled ones included.
  const failed = (why: SignInFailure) =>
    auditRepo(db).countFailedSignIn({ address, email: email === "" ? null : email.slice(0, MAX_EMAIL), why, now, windowSeconds: policy.windowSeconds });
  if (email === "" || email.length > MAX_EMAIL || password === "" || password.length > MAX_PASSWORD) {
    await failed("malformed");
    return { ok: false, reason: "invalid" };
  }

  // Keyed by the e-mail as typed, not by the account, so throttling says nothing about existence.
  // The attempt counts before the password is checked, so parallel guesses cannot outrun the limit.
  const limits: AttemptLimit[] = [{ key: `account:${email}`, max: policy.maxPerAccount }];
  if (credentials.address) {
    limits.push({ key: `account:${email}|address:${credentials.address}`, max: policy.maxPerAccountPerAddress });
    limits.push({ key: `address:${credentials.address}`, max: policy.maxPerAddress });
  }
  const throttle = throttleRepo(db);
  const attempt = await throttle.attempt(limits, policy.windowSeconds, now);
  if (!attempt.allowed) {
    await failed("throttled");
    return { ok: false, reason: "throttled", retryAfterSeconds: attempt.retryAfterSeconds };
  }

  const users = usersRepo(db);
  const user = await users.findByEmail(email);
  // An account made by company sign-in has no password; it costs what an unknown account costs.
  const stored = user && user.passwordHash !== NO_PASSWORD ? user.passwordHash : await dummyHash();
  const valid = await verifyPassword(password, stored);
  if (!user || !valid || user.disabled) {
    await failed(!user ? "unknown_account" : !valid ? "wrong_password" : "disabled");
    return { ok: false, reason: "invalid" };
  }
  // Only company sign-in (OIDC_SSO_ONLY), or an account that signs in through the identity provider:
  // a right password is refused like a wrong one, so the answer never tells which e-mails are
  // break-glass or company accounts; the audit log says why.
  const refusal = passwordRefusal(user, options.sso ?? null);
  if (refusal) {
    await failed(refusal);
    return { ok: false, reason: "invalid" };
  }

  // A success is not a failure, and it forgives this address its typos on this account. The
  // account's failures from elsewhere stay: they are someone else's guesses.
  await attempt.forget();
  if (credentials.address) await throttle.clear(`account:${email}|address:${credentials.address}`);
  await inTransaction(db, async (tx) => {
    await usersRepo(tx).recordLogin(user.id, now);
    await appendAudit(tx, { action: "sign_in.succeeded", actor: { kind: "user", id: user.id, email: user.email, address }, subject: { kind: "user", id: user.id, label: user.email } });
  });
  if (needsRehash(user.passwordHash)) await users.rehash(user.id, await hashPassword(password));
  return { ok: true, user: { id: user.id, email: user.email, role: user.role } };
}

/** A session's user as the re-check reads them, with whether the account is linked to an identity (`passwordRefusal`). */
export type SessionAccount = SessionUser & { company: boolean };

/**
 * The session re-check: the user as the store has it now, or null when the account is gone,
 * disabled, or its sessions were voided at or after `signedInAt` (password change, disable: a session
 * signed in within the same millisecond is voided too); given the session's id, also null when that
 * session was signed out (read in the same query).
 */
export async function revalidateSession(db: Sql, userId: string, signedInAt: number, sessionId?: string): Promise<SessionAccount | null> {
  const users = usersRepo(db);
  const found = sessionId === undefined ? { user: await users.findById(userId), sessionRevoked: false } : await users.findForSession(userId, sessionId);
  if (!found || found.sessionRevoked) return null;
  const user = found.user;
  if (!user || user.disabled) return null;
  if (user.sessionsValidAfter && signedInAt <= user.sessionsValidAfter.getTime()) return null;
  return { id: user.id, email: user.email, role: user.role, company: user.company };
}

