/**
 * What alert rules and scheduled reports may do with mail. Sending mail outside is a privilege of
 * the dashboard, not of each user: outside addresses must be at a domain the users themselves sign
 * in from, or one the operator allowed; recipients, rules and subscriptions per user are capped;
 * "Evaluate now" is rate limited per user; a cool-down has a minimum; and each user's rules and
 * subscriptions together queue a bounded number of e-mails in any 24 hours. Every refusal names the
 * limit and the setting that changes it (docs/security.md). Free of server-only code: the users
 * command-line tool lists each user's mail too.
 */
import { ApiError } from "@/lib/contract/errors";
import type { ServerEnv } from "@/lib/core/env/env-schema";
import { mailsInLastDay } from "@/lib/core/mail/counts";
import type { Sql, Store } from "@/lib/core/store/sql";
import { throttleRepo } from "@/lib/core/http/throttle";
import { usersRepo } from "@/lib/core/auth/users";

export interface MailPolicy {
  /** Outside domains an admin allowed beyond the users' own (lower case). */
  allowedDomains: readonly string[];
  /** Recipients (users and addresses together) of one rule or subscription. */
  maxRecipients: number;
  maxRulesPerUser: number;
  maxSubscriptionsPerUser: number;
  minCooldownMinutes: number;
  /** "Evaluate now" calls per user in any `runNowWindowSeconds`. */
  runNowPerWindow: number;
  runNowWindowSeconds: number;
  /** E-mails (one per recipient) a user's rules and subscriptions queue in any 24 hours. */
  mailsPerUserPerDay: number;
  /** "Send now" presses on scheduled reports per user in any `sendNowWindowSeconds`. */
  sendNowPerWindow: number;
  sendNowWindowSeconds: number;
  /**
   * What a scheduled report's e-mail to an address that is no user's carries: the subscription's
   * share link ("share"), or no link and only the numbers ("numbers"). Alerts never send outside
   * addresses a link (docs/security.md).
   */
  outsideLinks: OutsideLinks;
}

export const OUTSIDE_LINKS = ["share", "numbers"] as const;
export type OutsideLinks = (typeof OUTSIDE_LINKS)[number];

export const MAIL_POLICY_DEFAULTS: MailPolicy = {
  allowedDomains: [],
  maxRecipients: 10,
  maxRulesPerUser: 20,
  maxSubscriptionsPerUser: 10,
  minCooldownMinutes: 60,
  runNowPerWindow: 5,
  runNowWindowSeconds: 900,
  mailsPerUserPerDay: 200,
  sendNowPerWindow: 5,
  sendNowWindowSeconds: 3600,
  outsideLinks: "share",
};

export function mailPolicyFrom(
  env: Pick<ServerEnv, "MAIL_ALLOWED_DOMAINS" | "MAIL_MAX_RECIPIENTS" | "ALERT_RULES_PER_USER" | "SUBSCRIPTIONS_PER_USER" | "ALERT_MIN_COOLDOWN_MINUTES" | "RUN_NOW_PER_USER" | "MAIL_PER_USER_PER_DAY"> &
    Partial<Pick<ServerEnv, "MAIL_OUTSIDE_LINKS">>,
): MailPolicy {
  return {
    ...MAIL_POLICY_DEFAULTS,
    allowedDomains: env.MAIL_ALLOWED_DOMAINS,
    maxRecipients: env.MAIL_MAX_RECIPIENTS,
    maxRulesPerUser: env.ALERT_RULES_PER_USER,
    maxSubscriptionsPerUser: env.SUBSCRIPTIONS_PER_USER,
    minCooldownMinutes: env.ALERT_MIN_COOLDOWN_MINUTES,
    runNowPerWindow: env.RUN_NOW_PER_USER,
    mailsPerUserPerDay: env.MAIL_PER_USER_PER_DAY,
    outsideLinks: env.MAIL_OUTSIDE_LINKS ?? MAIL_POLICY_DEFAULTS.outsideLinks,
  };
}

const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1).trim().toLowerCase();

/** The domains mail may go to: those of active users' own addresses, and the allowed ones. */
export async function mailDomains(db: Sql, policy: MailPolicy): Promise<Set<string>> {
  const users = await usersRepo(db).list();
  return new Set([...users.filter((u) => !u.disabled).map((u) => domainOf(u.email)), ...policy.allowedDomains]);
}

/** Refuses too many recipients, or an outside address at a domain mail may not go to. */
export async function checkMailPolicy(db: Sql, recipients: { users: readonly string[]; emails: readonly string[] }, policy: MailPolicy): Promise<void> {
  if (recipients.emails.length > 0) {
    const domains = await mailDomains(db, policy);
    for (const [i, address] of recipients.emails.entries()) {
      const domain = domainOf(address);
      if (!domains.has(domain)) {
        throw ApiError.badRequest(
          `mail may go only to addresses at ${[...domains].sort().join(", ") || "no domain"} (the users' own domains and those an admin allowed with MAIL_ALLOWED_DOMAINS); ${domain} is not one of them`,
          [{ path: `recipients.emails.${i}`, message: `${domain} is not a domain mail may go to` }],
        );
      }
    }
  }
  const count = recipients.users.length + recipients.emails.length;
  if (count > policy.maxRecipients) {
    throw ApiError.badRequest(`at most ${policy.maxRecipients} recipients (users and addresses together) per rule or scheduled report (MAIL_MAX_RECIPIENTS); this names ${count}`, [
      { path: "recipients", message: `at most ${policy.maxRecipients} recipients` },
    ]);
  }
}

/**
 * The addresses of `to` mail may go to now, and a note on those it may not (named before the policy,
 * or before an admin took their domain off the list): checked again at every send.
 */
export async function sendableRecipients(db: Sql, to: readonly string[], policy: MailPolicy): Promise<{ to: string[]; refused: string | null }> {
  const domains = await mailDomains(db, policy);
  const ok = to.filter((a) => domains.has(domainOf(a)));
  const out = to.filter((a) => !domains.has(domainOf(a)));
  return {
    to: ok,
    refused: out.length > 0 ? `not sent to ${out.join(", ")}: mail may go only to the users' own domains and those an admin allowed (MAIL_ALLOWED_DOMAINS)` : null,
  };
}

/** Refuses a cool-down shorter than the minimum. */
export function checkCooldown(minutes: number, policy: MailPolicy): void {
  if (minutes < policy.minCooldownMinutes) {
    throw ApiError.badRequest(`the cool-down must be at least ${policy.minCooldownMinutes} minutes (ALERT_MIN_COOLDOWN_MINUTES)`, [
      { path: "cooldown_minutes", message: `at least ${policy.minCooldownMinutes} minutes` },
    ]);
  }
}

/** The cool-down a rule is evaluated with: its own, but never under the minimum (rules made before it). */
export const effectiveCooldown = (minutes: number, policy: MailPolicy) => Math.max(minutes, policy.minCooldownMinutes);

/**
 * Refuses one more rule or subscription for `ownerId` past the cap. Call inside the transaction that
 * creates it: the owner's row is locked, so two at once cannot both pass at the last place.
 */
export async function checkOwnedCount(tx: Sql, ownerId: string, kind: "alert" | "subscription", policy: MailPolicy): Promise<void> {
  await tx.query("SELECT id FROM users WHERE id = $1 FOR UPDATE", [ownerId]);
  const table = kind === "alert" ? "alert_rules" : "subscriptions";
  const rows = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE owner_id = $1`, [ownerId]);
  const n = rows[0]?.n ?? 0;
  const max = kind === "alert" ? policy.maxRulesPerUser : policy.maxSubscriptionsPerUser;
  if (n >= max) {
    const what = kind === "alert" ? "alert rules" : "scheduled reports";
    const setting = kind === "alert" ? "ALERT_RULES_PER_USER" : "SUBSCRIPTIONS_PER_USER";
    throw new ApiError(403, `You have ${n} ${what}, the most one user may have (${setting}); delete one first`);
  }
}

/**
 * Counts one press against the user's allowance under `key`; a 429 with Retry-After past it. One
 * at a time per user (the user's row is locked), so a burst gets exactly the allowance through, not none.
 */
async function takeAllowance(db: Store, userId: string, key: string, max: number, windowSeconds: number, refusal: (retryAfter: number) => string): Promise<void> {
  const attempt = await db.transaction(async (tx) => {
    await tx.query("SELECT id FROM users WHERE id = $1 FOR UPDATE", [userId]);
    return throttleRepo(tx).attempt([{ key: `${key}:${userId}`, max }], windowSeconds);
  });
  if (!attempt.allowed) {
    throw new ApiError(429, refusal(attempt.retryAfterSeconds), undefined, { "Retry-After": String(attempt.retryAfterSeconds) }, { retry_after: attempt.retryAfterSeconds });
  }
}

/** Counts an "Evaluate now" against the user; a 429 with Retry-After past the limit. */
export async function takeRunNow(db: Store, userId: string, policy: MailPolicy): Promise<void> {
  const minutes = Math.round(policy.runNowWindowSeconds / 60);
  await takeAllowance(db, userId, "run-now", policy.runNowPerWindow, policy.runNowWindowSeconds, (s) => `"Evaluate now" is limited to ${policy.runNowPerWindow} per ${minutes} minutes per user (RUN_NOW_PER_USER); try again in ${s} s`);
}

/**
 * Counts a "Send now" of a scheduled report against the user who pressed it; a 429 with Retry-After
 * and the time the next press frees up past the limit.
 */
export async function takeSendNow(db: Store, userId: string, policy: MailPolicy, now = new Date()): Promise<void> {
  const minutes = Math.round(policy.sendNowWindowSeconds / 60);
  const per = minutes === 60 ? "hour" : `${minutes} minutes`;
  await takeAllowance(db, userId, "send-now", policy.sendNowPerWindow, policy.sendNowWindowSeconds, (s) => {
    const at = new Date(now.getTime() + s * 1000).toISOString().slice(11, 16);
    return `"Send now" is limited to ${policy.sendNowPerWindow} per ${per} per user; the next one frees up in ${s} s (at ${at} UTC)`;
  });
}

/** Mail a user's automation could not queue: the daily bound was reached. */
export class MailLimitError extends Error {
  constructor(
    readonly sent: number,
    readonly limit: number,
    wanted: number,
  ) {
    super(`mail withheld: its owner's rules and scheduled reports queued ${sent} e-mails in the last 24 hours, and ${wanted} more would pass the ${limit} a user may send a day (MAIL_PER_USER_PER_DAY)`);
    this.name = "MailLimitError";
  }
}

/** Throws MailLimitError when `wanted` more e-mails would take the owner past the daily bound. */
export async function checkDailyMail(db: Sql, ownerId: string, wanted: number, policy: MailPolicy): Promise<void> {
  const sent = await mailsInLastDay(db, ownerId);
  if (sent + wanted > policy.mailsPerUserPerDay) throw new MailLimitError(sent, policy.mailsPerUserPerDay, wanted);
}
