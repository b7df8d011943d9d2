/**
 * The relay burst, against the real service, a real PGlite store and a real SMTP server the real mail
 * worker sends to: an analyst who tries to make the dashboard mail outside addresses in bulk (a rule
 * naming many outside addresses with no cool-down, "Evaluate now" fired in a burst, rule after rule,
 * scheduled reports to outsiders) gets the mail policy's bounds, each refusal naming its limit, and the
 * SMTP server receives no more than the policy allows.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/core/auth/password";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { todayIn } from "@/lib/contract/dates";
import { ApiError } from "@/lib/contract/errors";
import { createAlertRule, listAlertRules } from "@/lib/features/notifications/alert-rules";
import { mailsInLastDay } from "@/lib/core/mail/counts";
import { MailWorker } from "@/lib/core/mail/worker";
import { DEFAULT_MONITOR_CONFIG } from "@/lib/features/monitor/definitions";
import { alertsRepo } from "@/lib/features/notifications/alerts-store";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import type { Store } from "@/lib/core/store/sql";
import { usersRepo } from "@/lib/core/auth/users";
import { createSubscription } from "@/lib/features/notifications/subscriptions";
import { listUsers } from "@/lib/features/users/admin";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { MAIL_POLICY_DEFAULTS, type MailPolicy } from "./policy";
import { evaluateNow, type NotifyDeps } from "./slots";
import { mailQueue } from "./mail-queue";
import { startTestSmtp, type TestSmtp } from "./testing/smtp";

const SECRET = "mail-policy-test-secret-mail-policy-test-secret-0123";
const POLICY: MailPolicy = { ...MAIL_POLICY_DEFAULTS, allowedDomains: ["partner.example"] };

let dir: string;
let store: Store;
let svc: TestService;
let gateway: ReportGateway;
let smtp: TestSmtp;
let worker: MailWorker;
let analyst: SessionUser;
let admin: SessionUser;

const FIRING = {
  target: { kind: "measure", measure: "attempts" },
  condition: { kind: "above", value: 0 },
  group_by: null,
  filters: {},
  window: "last7",
} as const;

const ruleInput = (name: string, emails: string[], cooldown: number) => ({
  name,
  definition: FIRING,
  schedule: { every: "day" as const, hour: 7 },
  recipients: { users: [], emails },
  cooldown_minutes: cooldown,
  paused: false,
});

const deps = (policy: MailPolicy): NotifyDeps => ({
  db: store,
  gateway,
  env: { REPORT_TIMEZONE: "UTC", NEXTAUTH_SECRET: SECRET, NEXTAUTH_URL: "http://localhost:3000" },
  mail: mailQueue(true, policy),
  waitMs: 30_000,
  policy,
  monitor: DEFAULT_MONITOR_CONFIG,
});

/** What a call's refusal was: its status and message, or null when it went through. */
async function outcome(p: Promise<unknown>): Promise<{ status: number; message: string } | null> {
  try {
    await p;
    return null;
  } catch (e) {
    if (e instanceof ApiError) return { status: e.status, message: e.message };
    throw e;
  }
}

/** Sends all that is queued; every message the SMTP server received so far. */
async function delivered() {
  for (;;) {
    const counts = await worker.tick();
    if (counts.sent + counts.failed + counts.retried === 0) break;
  }
  return smtp.settled();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mail-policy-"));
  store = await openTestPglite(dir, "mail policy test");
  const a = await usersRepo(store).create({ email: "analyst@corp.example", role: "analyst", passwordHash: await hashPassword("irrelevant-password") });
  analyst = { id: a.id, email: a.email, role: "analyst" };
  const b = await usersRepo(store).create({ email: "admin@corp.example", role: "admin", passwordHash: await hashPassword("irrelevant-password") });
  admin = { id: b.id, email: b.email, role: "admin" };
  svc = await startTestService({ data: { days: 14, ordersPerDay: 30, seed: 35, endDate: todayIn("UTC") }, env: { REPORT_RATE_LIMIT: "100000" } });
  gateway = gatewayFor(svc);
  smtp = await startTestSmtp();
  worker = new MailWorker({ db: store, config: { enabled: true, host: smtp.host, port: smtp.port, tls: "none", from: "alerts@corp.example" }, log: () => {} });
});

afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await svc?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the relay burst", () => {
  it("bounds what eight fast calls can make the server mail, and every refusal names its limit", async () => {
    const outsiders = Array.from({ length: 20 }, (_, i) => `victim${i}@outside.example`);
    const partners = Array.from({ length: 20 }, (_, i) => `p${i}@partner.example`);
    // A domain nobody signs in from and no admin allowed, twenty addresses, no cool-down…
    const relay = createAlertRule(store, analyst, ruleInput("Relay", outsiders, 0), DEFAULT_MONITOR_CONFIG, POLICY);
    const outside = await outcome(relay);
    // …an allowed domain but more recipients than a rule may name…
    const many = await outcome(createAlertRule(store, analyst, ruleInput("Many", partners, 60), DEFAULT_MONITOR_CONFIG, POLICY));
    // …no cool-down…
    const hot = await outcome(createAlertRule(store, analyst, ruleInput("Hot", partners.slice(0, 10), 0), DEFAULT_MONITOR_CONFIG, POLICY));
    // …what the policy lets through (ten partner addresses, the minimum cool-down)…
    await outcome(createAlertRule(store, analyst, ruleInput("Allowed", partners.slice(0, 10), 60), DEFAULT_MONITOR_CONFIG, POLICY));
    // …and "Evaluate now" eight times at once on the first rule made.
    const rule = (await alertsRepo(store).list(analyst.id))[0]!;
    const burst = await Promise.all(Array.from({ length: 8 }, () => outcome(evaluateNow(deps(POLICY), rule.id, analyst.id))));

    const mails = await delivered();
    const to = mails.flatMap((m) => m.to);
    expect(to.filter((t) => t.endsWith("@outside.example"))).toEqual([]);
    // One e-mail per allowed recipient, once: the rule fired on the first evaluation and the cool-down holds the rest.
    expect(to.sort()).toEqual(partners.slice(0, 10).sort());

    expect(outside?.status).toBe(400);
    expect(outside?.message).toContain("outside.example is not one of them");
    expect(outside?.message).toContain("MAIL_ALLOWED_DOMAINS");
    expect(many?.status).toBe(400);
    expect(many?.message).toContain("MAIL_MAX_RECIPIENTS");
    expect(hot?.status).toBe(400);
    expect(hot?.message).toContain(`at least ${POLICY.minCooldownMinutes} minutes (ALERT_MIN_COOLDOWN_MINUTES)`);
    const refused = burst.filter((b) => b !== null);
    expect(refused.length).toBe(8 - POLICY.runNowPerWindow);
    for (const r of refused) {
      expect(r.status).toBe(429);
      expect(r.message).toContain(`limited to ${POLICY.runNowPerWindow} per 15 minutes per user (RUN_NOW_PER_USER)`);
    }
  });

  it("checks outside addresses again at each send: a rule saved before the policy mails only where mail may go", async () => {
    const sentBefore = (await delivered()).length;
    // Stored as a rule made before the policy would be, past every check of the API.
    const old = await alertsRepo(store).create({
      ownerId: analyst.id,
      name: "From before",
      definition: FIRING,
      schedule: { every: "hour" },
      recipients: { users: [], emails: ["victim@outside.example", "colleague@corp.example"] },
      cooldownMinutes: 0,
      paused: false,
    });
    const record = await evaluateNow(deps(POLICY), old.id, admin.id);
    expect(record?.sent.emails).toBe(1);
    expect(record?.mailWithheld).toContain("not sent to victim@outside.example");
    expect(record?.mailWithheld).toContain("MAIL_ALLOWED_DOMAINS");
    expect((await delivered()).slice(sentBefore).flatMap((m) => m.to)).toEqual(["colleague@corp.example"]);
    // Its stored cool-down of 0 is read as the minimum: evaluated again, nothing more is told.
    const again = await evaluateNow(deps(POLICY), old.id, admin.id);
    expect(again?.notices).toEqual([]);
    await alertsRepo(store).remove(old.id);
  });

  it("caps rules per user, and scheduled reports to outsiders", async () => {
    const made = (await alertsRepo(store).list(analyst.id)).length;
    const results = [];
    for (let i = made; i < POLICY.maxRulesPerUser + 3; i++) results.push(await outcome(createAlertRule(store, analyst, ruleInput(`Rule ${i}`, [], 60), DEFAULT_MONITOR_CONFIG, POLICY)));
    expect((await alertsRepo(store).list(analyst.id)).length).toBe(POLICY.maxRulesPerUser);
    const over = results.filter((r) => r !== null);
    expect(over).toHaveLength(3);
    for (const r of over) {
      expect(r.status).toBe(403);
      expect(r.message).toContain(`the most one user may have (ALERT_RULES_PER_USER)`);
    }

    const report = await savedReportsRepo(store).create({ ownerId: analyst.id, name: "Weekly", page: "explore", params: "op=orders&range=last7&m=attempts", sharedWithTeam: false });
    const sub = (emails: string[]) =>
      createSubscription(store, gateway, analyst, { report_id: report.id, schedule: { every: "day", hour: 7 }, recipients: { users: [], emails }, paused: false }, { timeZone: "UTC", secret: SECRET, policy: POLICY });
    const toOutside = await outcome(sub(["victim@outside.example"]));
    expect(toOutside?.status).toBe(400);
    expect(toOutside?.message).toContain("outside.example is not one of them");
    // The users' own domain is allowed without any setting.
    expect(await outcome(sub(["colleague@corp.example"]))).toBeNull();
    const subs = [];
    for (let i = 1; i < POLICY.maxSubscriptionsPerUser + 1; i++) subs.push(await outcome(sub([`c${i}@corp.example`])));
    const overSubs = subs.filter((r) => r !== null);
    expect(overSubs).toHaveLength(1);
    expect(overSubs[0]!.status).toBe(403);
    expect(overSubs[0]!.message).toContain("SUBSCRIPTIONS_PER_USER");
  });

  it("bounds a user's mail per day, says so on the evaluation, and shows each user's mail to admins", async () => {
    // A user who already sent some today, with room for five more: five fit, ten more do not.
    const already = await mailsInLastDay(store, analyst.id);
    expect(already).toBeGreaterThan(0);
    const tight: MailPolicy = { ...POLICY, mailsPerUserPerDay: already + 5, runNowPerWindow: 100 };
    const sentBefore = (await delivered()).length;
    const rules = (await listAlertRules(store, analyst)).filter((r) => r.name.startsWith("Rule "));
    const first = rules[0]!;
    const second = rules[1]!;
    const five = Array.from({ length: 5 }, (_, i) => `five${i}@partner.example`);
    const ten = Array.from({ length: 10 }, (_, i) => `ten${i}@partner.example`);
    await alertsRepo(store).update(first.id, { ...first, recipients: { users: [], emails: five } });
    await alertsRepo(store).update(second.id, { ...second, recipients: { users: [], emails: ten } });
    const a = await evaluateNow(deps(tight), first.id, analyst.id);
    expect(a?.sent.emails).toBe(5);
    const b = await evaluateNow(deps(tight), second.id, analyst.id);
    expect(b?.sent.emails).toBe(0);
    expect(b?.mailWithheld).toContain("MAIL_PER_USER_PER_DAY");
    // The inbox is still told: only mail is bounded.
    expect(b?.sent.inbox).toBe(1);
    const mails = (await delivered()).slice(sentBefore);
    expect(mails.flatMap((m) => m.to).sort()).toEqual(five.sort());

    const users = await listUsers(store, null);
    expect(users.find((u) => u.id === analyst.id)?.mail_last_day).toBe(already + 5);
    expect(users.find((u) => u.id === admin.id)?.mail_last_day).toBe(0);
  });
});
