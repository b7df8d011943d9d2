/**
 * Automation acts with its owner's rights at the moment it runs: against the real service, a real
 * PGlite store, the real scheduler wired as the server wires it (scheduledItems → runSlot) and a real
 * SMTP server the real mail worker sends to. A disabled owner's due rule and scheduled report send
 * nothing and show as paused for that reason, until an admin reassigns and resumes them; a demoted
 * owner's stop too; a subscription to a report its owner later un-shares stops mailing; and a user
 * who may see a report but not share it cannot subscribe outside addresses to it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/core/auth/password";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { todayIn } from "@/lib/contract/dates";
import { ApiError } from "@/lib/contract/errors";
import { createAlertRule, updateAlertRule } from "@/lib/features/notifications/alert-rules";
import { MailWorker } from "@/lib/core/mail/worker";
import { DEFAULT_MONITOR_CONFIG } from "@/lib/features/monitor/definitions";
import { updateSavedReport } from "@/lib/features/saved-reports";
import { Scheduler } from "@/lib/features/notifications/scheduler";
import { revokeShareLink } from "@/lib/features/sharing/links";
import { alertsRepo } from "@/lib/features/notifications/alerts-store";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import type { Store } from "@/lib/core/store/sql";
import { subscriptionsRepo } from "@/lib/features/notifications/subscriptions-store";
import { usersRepo } from "@/lib/core/auth/users";
import { createSubscription, updateSubscription } from "@/lib/features/notifications/subscriptions";
import { updateUser } from "@/lib/features/users/admin";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { pauseStopped } from "./rights";
import { MAIL_POLICY_DEFAULTS } from "./policy";
import { runSlot, scheduledItems, type NotifyDeps } from "./slots";
import { mailQueue } from "./mail-queue";
import { startTestSmtp, type ReceivedMail, type TestSmtp } from "./testing/smtp";

const SECRET = "owner-rights-test-secret-owner-rights-test-secret-01";
const POLICY = MAIL_POLICY_DEFAULTS;
const DAY = 86_400_000;

let dir: string;
let store: Store;
let svc: TestService;
let gateway: ReportGateway;
let smtp: TestSmtp;
let worker: MailWorker;
const people: Record<"admin" | "ann" | "bob" | "cat" | "dan", SessionUser> = {} as never;

const FIRING = { target: { kind: "measure", measure: "attempts" }, condition: { kind: "above", value: 0 }, group_by: null, filters: {}, window: "last7" } as const;

let deps: NotifyDeps;

/**
 * The instant every tick counts from, fixed before any test writes. A tick reads this plus its
 * `aheadMs`, never the moving clock: then "a day later" is the same slot in every test, whatever
 * the hour the suite runs at (with the live clock, a later test's day-ahead tick could land on the
 * next date and run an earlier test's daily subscription again), and a tick with no lead never
 * reaches an item a test made or changed after the file began.
 */
let base: number;

/** One scheduler tick as the server runs it, with the clock `aheadMs` ahead of `base` (a later slot). */
async function tick(aheadMs = 0) {
  const scheduler = new Scheduler({
    db: store,
    workerId: "owner-rights-test",
    timeZone: "UTC",
    items: () => scheduledItems(store),
    run: (item, slot, ctx) => runSlot(deps, item, ctx.late, slot),
    now: () => new Date(base + aheadMs),
    log: () => {},
  });
  return scheduler.tick();
}

/** Sends all that is queued; the messages that arrived with it. */
async function delivered(): Promise<ReceivedMail[]> {
  const before = (await smtp.settled()).length;
  for (;;) {
    const counts = await worker.tick();
    if (counts.sent + counts.failed + counts.retried === 0) break;
  }
  return (await smtp.settled()).slice(before);
}

/** Makes an item's slots since two days ago due (the scheduler counts slots from its last change). */
async function madeTwoDaysAgo(table: "alert_rules" | "subscriptions", id: string) {
  await store.query(`UPDATE ${table} SET created_at = now() - interval '2 days', updated_at = now() - interval '2 days' WHERE id = $1`, [id]);
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("not refused");
}

beforeAll(async () => {
  base = Date.now();
  dir = mkdtempSync(join(tmpdir(), "owner-rights-"));
  store = await openTestPglite(dir, "owner rights test");
  for (const [name, role] of [["admin", "admin"], ["ann", "analyst"], ["bob", "analyst"], ["cat", "analyst"], ["dan", "analyst"]] as const) {
    const u = await usersRepo(store).create({ email: `${name}@corp.example`, role, passwordHash: await hashPassword("irrelevant-password") });
    people[name] = { id: u.id, email: u.email, role };
  }
  svc = await startTestService({ data: { days: 14, ordersPerDay: 30, seed: 36, endDate: todayIn("UTC") }, env: { REPORT_RATE_LIMIT: "100000" } });
  gateway = gatewayFor(svc);
  smtp = await startTestSmtp();
  worker = new MailWorker({ db: store, config: { enabled: true, host: smtp.host, port: smtp.port, tls: "none", from: "alerts@corp.example" }, log: () => {} });
  deps = {
    db: store,
    gateway,
    env: { REPORT_TIMEZONE: "UTC", NEXTAUTH_SECRET: SECRET, NEXTAUTH_URL: "http://localhost:3000" },
    mail: mailQueue(true, POLICY),
    waitMs: 30_000,
    policy: POLICY,
    monitor: DEFAULT_MONITOR_CONFIG,
  };
});

afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await svc?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const subscribe = (user: SessionUser, reportId: string, recipients: { users: string[]; emails: string[] }) =>
  createSubscription(store, gateway, user, { report_id: reportId, schedule: { every: "day", hour: 0 }, recipients, paused: false }, { timeZone: "UTC", secret: SECRET, policy: POLICY });

describe("automation with its owner's rights", () => {
  it("a disabled owner's due rule and scheduled report send nothing, paused for that reason, until an admin reassigns them", async () => {
    const { admin, ann } = people;
    const report = await savedReportsRepo(store).create({ ownerId: ann.id, name: "Ann's week", page: "explore", params: "op=orders&range=last7&m=attempts", sharedWithTeam: false });
    const sub = await subscribe(ann, report.id, { users: [], emails: ["boss@corp.example"] });
    const rule = await createAlertRule(
      store,
      ann,
      { name: "Ann's attempts", definition: FIRING, schedule: { every: "hour" }, recipients: { users: [], emails: ["ops@corp.example"] }, cooldown_minutes: 60, paused: false },
      DEFAULT_MONITOR_CONFIG,
      POLICY,
    );
    await madeTwoDaysAgo("subscriptions", sub.id);
    await madeTwoDaysAgo("alert_rules", rule.id);

    await updateUser(store, admin, ann.id, { disabled: true }, null, pauseStopped);
    await tick();
    expect((await delivered()).flatMap((m) => m.to)).toEqual([]);
    expect(await alertsRepo(store).get(rule.id)).toMatchObject({ paused: true, pausedReason: "owner_disabled" });
    expect(await subscriptionsRepo(store).get(sub.id)).toMatchObject({ paused: true, pausedReason: "owner_disabled" });

    // Resuming without a new owner is refused, saying why.
    const resume = await refusal(updateAlertRule(store, admin, rule.id, { paused: false }, DEFAULT_MONITOR_CONFIG, POLICY));
    expect(resume.status).toBe(400);
    expect(resume.message).toContain("paused because its owner was disabled; an admin can reassign it");

    // Reassigned to an active analyst (the rule) and to the admin (the report: only they may share it), and resumed.
    const opts = { policy: POLICY, gateway, timeZone: "UTC", secret: SECRET };
    const bobCannotShare = await refusal(updateSubscription(store, admin, sub.id, { owner_id: people.bob.id }, opts));
    expect(bobCannotShare.message).toContain("may not see the report");
    await updateAlertRule(store, admin, rule.id, { owner_id: people.bob.id, paused: false }, DEFAULT_MONITOR_CONFIG, POLICY);
    await updateSubscription(store, admin, sub.id, { owner_id: admin.id, paused: false }, opts);
    expect(await alertsRepo(store).get(rule.id)).toMatchObject({ ownerId: people.bob.id, paused: false, pausedReason: null });
    expect(await subscriptionsRepo(store).get(sub.id)).toMatchObject({ ownerId: admin.id, paused: false, pausedReason: null });
    await tick(DAY);
    expect((await delivered()).flatMap((m) => m.to).sort()).toEqual(["boss@corp.example", "ops@corp.example"]);
  });

  it("a demoted owner's rule stops at once", async () => {
    const { admin, dan } = people;
    const rule = await createAlertRule(
      store,
      dan,
      { name: "Dan's attempts", definition: FIRING, schedule: { every: "hour" }, recipients: { users: [], emails: ["dan-ops@corp.example"] }, cooldown_minutes: 60, paused: false },
      DEFAULT_MONITOR_CONFIG,
      POLICY,
    );
    await madeTwoDaysAgo("alert_rules", rule.id);
    await updateUser(store, admin, dan.id, { role: "viewer" }, null, pauseStopped);
    expect(await alertsRepo(store).get(rule.id)).toMatchObject({ paused: true, pausedReason: "owner_role" });
    await tick();
    expect((await delivered()).flatMap((m) => m.to)).toEqual([]);
  });

  it("a subscription to a report its owner un-shares stops mailing; one who may not share cannot subscribe outsiders", async () => {
    const { bob, cat } = people;
    const report = await savedReportsRepo(store).create({ ownerId: cat.id, name: "Team week", page: "explore", params: "op=orders&range=last7&m=attempts", sharedWithTeam: true });
    // Bob may see Cat's report but not share it: no outside addresses…
    const outsiders = await refusal(subscribe(bob, report.id, { users: [], emails: ["friend@corp.example"] }));
    expect(outsiders.status).toBe(403);
    expect(outsiders.message).toContain("Only the report's owner or an admin may share it");
    // …but himself, linked into the dashboard (no share link is made for him).
    const sub = await subscribe(bob, report.id, { users: [bob.id], emails: [] });
    expect(sub.shareLinkId).toBeNull();
    await madeTwoDaysAgo("subscriptions", sub.id);
    await tick();
    const first = await delivered();
    expect(first.flatMap((m) => m.to)).toEqual([bob.email]);
    expect(first[0]!.parsed.text).toContain(`http://localhost:3000/reports/${report.id}`);

    await updateSavedReport(store, cat, report.id, { shared_with_team: false }, "UTC");
    await tick(DAY);
    expect((await delivered()).flatMap((m) => m.to)).toEqual([]);
    expect(await subscriptionsRepo(store).get(sub.id)).toMatchObject({ paused: true, pausedReason: "report_unshared" });
  });

  it("a subscription whose share link is revoked under the report's links stops mailing", async () => {
    const { cat } = people;
    const report = await savedReportsRepo(store).create({ ownerId: cat.id, name: "Cat's own week", page: "explore", params: "op=orders&range=last7&m=attempts", sharedWithTeam: false });
    const sub = await subscribe(cat, report.id, { users: [], emails: ["cfo@corp.example"] });
    expect(sub.shareLinkId).not.toBeNull();
    await madeTwoDaysAgo("subscriptions", sub.id);
    await tick();
    expect((await delivered()).flatMap((m) => m.to)).toEqual(["cfo@corp.example"]);

    await revokeShareLink(store, cat, report.id, sub.shareLinkId!);
    await tick(DAY);
    expect((await delivered()).flatMap((m) => m.to)).toEqual([]);
    expect(await subscriptionsRepo(store).get(sub.id)).toMatchObject({ paused: true, pausedReason: "report_unshared" });
    // Resuming is refused while the link stays revoked.
    const resume = await refusal(updateSubscription(store, cat, sub.id, { paused: false }, { policy: POLICY, gateway, timeZone: "UTC", secret: SECRET }));
    expect(resume.message).toContain("its share link was revoked or expired");
  });
});
