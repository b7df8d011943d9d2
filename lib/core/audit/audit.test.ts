/**
 * The audit log as the product writes it, over a real PGlite store, the real service and the real
 * report gateway: sign-ins (success and failure), an admin creating and disabling a user, a share link
 * created (a password-protected snapshot), rotated and revoked; each found with who, when, what and
 * address, and no password, token or hash anywhere in the log. Also the page's query and CSV.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { authenticate, type SessionUser } from "@/lib/core/auth/authenticate";
import { hashPassword } from "@/lib/core/auth/password";
import { todayIn } from "@/lib/contract/dates";
import { hashToken } from "@/lib/features/sharing/tokens";
import { issueShareLink, revokeShareLink, rotateShareLink, ShareLinkInput } from "@/lib/features/sharing/links";
import { auditRepo, type AuditEntry } from "@/lib/core/audit/store";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import { shareLinksRepo } from "@/lib/features/sharing/links-store";
import type { Store } from "@/lib/core/store/sql";
import { usersRepo } from "@/lib/core/auth/users";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { createUser, updateUser } from "@/lib/features/users/admin";
import { createAlertRule, deleteAlertRule, updateAlertRule } from "@/lib/features/notifications/alert-rules";
import { MAIL_POLICY_DEFAULTS } from "@/lib/features/notifications/policy";
import { DEFAULT_MONITOR_CONFIG } from "@/lib/features/monitor/definitions";
import { createSubscription, deleteSubscription, updateSubscription, subscriptionsFollowingLink } from "@/lib/features/notifications/subscriptions";
import { appendRoutingAudit } from "./log";
import { auditCsv, parseAuditQuery, readAuditLog, startOfDayIn } from "@/lib/features/audit/query";

let dir: string;
let store: Store;
let svc: TestService;
let gateway: ReportGateway;
let admin: SessionUser;

const ADMIN_PASSWORD = "admin-password-for-audit-1";
const WRONG_PASSWORD = "Wrong-Horse-Battery-Staple-42";
const LINK_PASSWORD = "link-password-never-logged-7";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "audit-"));
  store = await openTestPglite(dir, "audit test");
  const u = await usersRepo(store).create({ email: "boss@test.local", role: "admin", passwordHash: await hashPassword(ADMIN_PASSWORD) });
  admin = { id: u.id, email: u.email, role: "admin" };
  svc = await startTestService({ data: { days: 20, ordersPerDay: 10, seed: 37, endDate: todayIn("UTC") }, env: { REPORT_RATE_LIMIT: "100000" } });
  gateway = gatewayFor(svc);
});

afterAll(async () => {
  await svc?.stop();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function all(): Promise<AuditEntry[]> {
  return (await auditRepo(store).list({}, { limit: 500 })).entries;
}

function one(entries: AuditEntry[], action: string): AuditEntry {
  const found = entries.filter((e) => e.action === action);
  expect(found, action).toHaveLength(1);
  return found[0]!;
}

describe("the audit log as the product writes it", () => {
  const secrets: string[] = [WRONG_PASSWORD, ADMIN_PASSWORD, LINK_PASSWORD];

  it("records sign-ins, user changes and share links with who, when, what and address, and no secret", async () => {
    const started = Date.now();
    expect(await authenticate(store, { email: "Boss@test.local", password: WRONG_PASSWORD, address: "203.0.113.9" })).toEqual({ ok: false, reason: "invalid" });
    expect(await authenticate(store, { email: "nobody@test.local", password: WRONG_PASSWORD, address: "203.0.113.10" })).toEqual({ ok: false, reason: "invalid" });
    expect(await authenticate(store, { email: "boss@test.local", password: ADMIN_PASSWORD, address: "198.51.100.4" })).toMatchObject({ ok: true });

    const acting = { ...admin, address: "198.51.100.4" };
    const { user: ana, password: anaPassword } = await createUser(store, acting, { email: "ana@test.local", role: "analyst" }, null);
    secrets.push(anaPassword);
    await updateUser(store, acting, ana.id, { disabled: true }, null);
    await updateUser(store, acting, ana.id, { role: "viewer" }, null);

    const report = await savedReportsRepo(store).create({ ownerId: admin.id, name: "Approvals by gateway", page: "explore", params: "range=last7&by=date&m=attempts,approvals", sharedWithTeam: false });
    const issued = await issueShareLink(store, gateway, "UTC", acting, report.id, ShareLinkInput.parse({ mode: "snapshot", label: "Board pack", password: LINK_PASSWORD }), "http://dash.test/");
    const rotated = await rotateShareLink(store, acting, report.id, issued.link.id, "http://dash.test/", subscriptionsFollowingLink("audit-test-secret"));
    await revokeShareLink(store, acting, report.id, issued.link.id);
    await revokeShareLink(store, acting, report.id, issued.link.id); // already revoked: nothing changes, nothing recorded
    const stored = (await shareLinksRepo(store).get(issued.link.id))!;
    secrets.push(issued.token, rotated.token, hashToken(issued.token), hashToken(rotated.token), stored.passwordHash!);

    const entries = await all();
    for (const e of entries) {
      expect(e.at.getTime()).toBeGreaterThanOrEqual(started - 1000);
      expect(e.at.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    }

    // Failed sign-ins are counted per address; reading the log writes each address's count.
    const failures = entries.filter((e) => e.action === "sign_in.failed");
    expect(failures.map((e) => [e.actorKind, e.actorId, e.actorEmail, e.actorAddress, e.subjectId, e.detail.failures, e.detail.wrong_password, e.detail.unknown_account])).toEqual([
      ["anonymous", null, "nobody@test.local", "203.0.113.10", null, 1, 0, 1],
      ["anonymous", null, "boss@test.local", "203.0.113.9", null, 1, 1, 0],
    ]);
    expect(one(entries, "sign_in.succeeded")).toMatchObject({ actorKind: "user", actorId: admin.id, actorEmail: "boss@test.local", actorAddress: "198.51.100.4" });

    const who = { actorKind: "user", actorId: admin.id, actorEmail: "boss@test.local", actorAddress: "198.51.100.4" };
    expect(one(entries, "user.created")).toMatchObject({ ...who, subjectKind: "user", subjectId: ana.id, subjectLabel: "ana@test.local", detail: { role: "analyst" } });
    expect(one(entries, "user.disabled")).toMatchObject({ ...who, subjectId: ana.id });
    expect(one(entries, "user.role_changed")).toMatchObject({ ...who, subjectId: ana.id, detail: { from_role: "analyst", role: "viewer" } });
    const linkSubject = { subjectKind: "share_link", subjectId: issued.link.id, subjectLabel: "Board pack" };
    expect(one(entries, "share_link.created")).toMatchObject({ ...who, ...linkSubject, detail: { report_id: report.id, report: "Approvals by gateway", mode: "snapshot", password_protected: true } });
    expect(one(entries, "share_link.rotated")).toMatchObject({ ...who, ...linkSubject });
    expect(one(entries, "share_link.revoked")).toMatchObject({ ...who, ...linkSubject });
    expect(entries.map((e) => e.action)).toEqual([
      "sign_in.failed", "sign_in.failed",
      "share_link.revoked", "share_link.rotated", "share_link.created", "user.role_changed", "user.disabled", "user.created",
      "sign_in.succeeded",
    ]);

    // Every column of every row, as the database holds it.
    const raw = JSON.stringify(await store.query("SELECT * FROM audit_log"));
    for (const s of secrets) expect(raw, "a secret in the audit log").not.toContain(s);
    expect(raw).not.toMatch(/scrypt/i);
  });

  it("a change that fails leaves no entry: a duplicate user is refused and not recorded", async () => {
    const before = (await all()).length;
    await expect(createUser(store, admin, { email: "ana@test.local", role: "viewer" }, null)).rejects.toThrow(/already exists/);
    expect((await all()).length).toBe(before);
  });

  it("answers the page's filters and exports the matching entries as CSV, times in the reporting time zone", async () => {
    const q = (s: string) => parseAuditQuery(new URLSearchParams(s), "Europe/Berlin");
    const today = todayIn("Europe/Berlin");
    const users = await readAuditLog(store, q(`kind=user&from=${today}&to=${today}`), "Europe/Berlin", 400);
    expect(users.entries.map((e) => e.action)).toEqual(["user.role_changed", "user.disabled", "user.created"]);
    expect(users).toMatchObject({ matching: 3, retention_days: 400, next: null });
    expect(users.entries[0]!.at_local).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d Europe\/Berlin$/);
    expect((await readAuditLog(store, q("kind=sign_in.failed&actor=nobody"), "UTC", 400)).matching).toBe(1);
    expect((await readAuditLog(store, q("to=2000-01-01"), "UTC", 400)).matching).toBe(0);
    const paged = await readAuditLog(store, q("limit=4"), "UTC", 400);
    expect(paged.entries).toHaveLength(4);
    expect((await readAuditLog(store, q(`limit=4&before=${paged.next}`), "UTC", 400)).entries[0]!.id).not.toBe(paged.entries[0]!.id);

    const csv = await auditCsv(store, q("kind=share_link"), "Europe/Berlin");
    const lines = csv.trim().split("\r\n");
    expect(lines[0]).toBe("Time,Time zone,Action,Action code,Actor,Actor kind,Address,Subject,Details,Reason");
    expect(lines.slice(1).map((l) => l.split(",")[3])).toEqual(["share_link.revoked", "share_link.rotated", "share_link.created"]);
    expect(lines[1]).toContain("Europe/Berlin,Share link revoked,share_link.revoked,boss@test.local,user,198.51.100.4,share link Board pack");

    for (const bad of ["kind=everything", "from=yesterday", "from=2026-02-02&to=2026-02-01", "limit=0", "before=abc"]) {
      expect(() => q(bad), bad).toThrow();
    }
  });

  it("records alert rules and scheduled reports created, changed and deleted, each with its owner's link", async () => {
    const acting = { ...admin, address: "198.51.100.5" };
    const since = (await all())[0]!.id;
    const rule = await createAlertRule(
      store,
      acting,
      {
        name: "Attempts above zero",
        definition: { target: { kind: "measure", measure: "attempts" }, condition: { kind: "above", value: 0 }, group_by: null, filters: {}, window: "last7" },
        schedule: { every: "hour" },
        recipients: { users: [], emails: [] },
        cooldown_minutes: 60,
        paused: false,
      },
      DEFAULT_MONITOR_CONFIG,
      MAIL_POLICY_DEFAULTS,
    );
    await updateAlertRule(store, acting, rule.id, { paused: true, name: "Attempts, paused" }, DEFAULT_MONITOR_CONFIG, MAIL_POLICY_DEFAULTS);
    await deleteAlertRule(store, acting, rule.id);

    const report = await savedReportsRepo(store).create({ ownerId: admin.id, name: "Weekly attempts", page: "explore", params: "range=last7&by=date&m=attempts", sharedWithTeam: false });
    const opts = { timeZone: "UTC", secret: "audit-test-seal-secret-0123456789abcdef", policy: MAIL_POLICY_DEFAULTS };
    const sub = await createSubscription(store, gateway, acting, { report_id: report.id, schedule: { every: "day", hour: 6 }, recipients: { users: [admin.id], emails: [] }, paused: false }, opts);
    await updateSubscription(store, acting, sub.id, { paused: true }, { ...opts, gateway });
    await deleteSubscription(store, acting, sub.id);

    const entries = (await all()).filter((e) => BigInt(e.id) > BigInt(since));
    const who = { actorKind: "user", actorId: admin.id, actorEmail: "boss@test.local", actorAddress: "198.51.100.5" };
    expect(entries.map((e) => e.action)).toEqual([
      "subscription.deleted", "subscription.changed", "subscription.created", "share_link.created",
      "alert_rule.deleted", "alert_rule.changed", "alert_rule.created",
    ]);
    for (const e of entries) expect(e).toMatchObject(who);
    expect(entries[6]).toMatchObject({ subjectKind: "alert_rule", subjectId: rule.id, subjectLabel: "Attempts above zero" });
    expect(entries[5]).toMatchObject({ subjectId: rule.id, subjectLabel: "Attempts, paused", detail: { fields: ["name", "paused"] } });
    expect(entries[4]).toMatchObject({ subjectId: rule.id });
    const link = entries[3]!;
    expect(entries[2]).toMatchObject({ subjectKind: "subscription", subjectId: sub.id, subjectLabel: "Weekly attempts", detail: { report_id: report.id, share_link: link.subjectId } });
    expect(entries[1]).toMatchObject({ subjectId: sub.id, detail: { fields: ["paused"] } });
    expect(entries[0]).toMatchObject({ subjectId: sub.id, detail: { share_link_revoked: link.subjectId } });
  });

  it("records routing steps with their version and reason, and refuses a step without a reason", async () => {
    const actor = { kind: "user" as const, id: admin.id, email: admin.email, address: "198.51.100.6" };
    await appendRoutingAudit(store, { event: "proposed", actor, version: "3", reason: "BIN 414720 approves better at MID 16", detail: { rules_changed: 1 } });
    await expect(appendRoutingAudit(store, { event: "applied", actor, version: "3", reason: "  " })).rejects.toThrow(/needs a reason/);
    const [latest] = (await auditRepo(store).list({ actions: ["routing."] })).entries;
    expect(latest).toMatchObject({ action: "routing.proposed", subjectKind: "routing_version", subjectId: "3", reason: "BIN 414720 approves better at MID 16", detail: { rules_changed: 1 }, actorAddress: "198.51.100.6" });
    expect((await auditRepo(store).list({ actions: ["routing."] })).entries).toHaveLength(1);
  });

  it("takes a day's bounds in the reporting time zone, across a daylight-saving change", () => {
    expect(startOfDayIn("2026-03-29", "Europe/Berlin").toISOString()).toBe("2026-03-28T23:00:00.000Z");
    expect(startOfDayIn("2026-03-30", "Europe/Berlin").toISOString()).toBe("2026-03-29T22:00:00.000Z");
    expect(startOfDayIn("2026-07-01", "America/Los_Angeles").toISOString()).toBe("2026-07-01T07:00:00.000Z");
    expect(startOfDayIn("2026-07-01", "UTC").toISOString()).toBe("2026-07-01T00:00:00.000Z");
  });
});
