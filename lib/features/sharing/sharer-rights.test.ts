/**
 * A share link after its maker's rights or its token change, over a real PGlite store, the real
 * service and report gateway, and a real SMTP server the real mail worker sends to: a scheduled
 * report follows its link when the link is rotated (its next e-mail carries the live link, never the
 * dead one), and a link whose maker may no longer share the report is paused (not served, no password
 * asked, listed as paused) until an admin revokes it or the role is given back.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/core/auth/password";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { usersRepo } from "@/lib/core/auth/users";
import { todayIn } from "@/lib/contract/dates";
import { ApiError } from "@/lib/contract/errors";
import { MailWorker } from "@/lib/core/mail/worker";
import { DEFAULT_MONITOR_CONFIG } from "@/lib/features/monitor/definitions";
import { MAIL_POLICY_DEFAULTS } from "@/lib/features/notifications/policy";
import { sendSubscriptionNow, type NotifyDeps } from "@/lib/features/notifications/slots";
import { mailQueue } from "@/lib/features/notifications/mail-queue";
import { createSubscription, subscriptionsFollowingLink } from "@/lib/features/notifications/subscriptions";
import { startTestSmtp, type ReceivedMail, type TestSmtp } from "@/lib/features/notifications/testing/smtp";
import { auditRepo } from "@/lib/core/audit/store";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import type { Store } from "@/lib/core/store/sql";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { updateUser } from "@/lib/features/users/admin";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { createShareLink, listShareLinks, revokeShareLink, rotateShareLink } from "./links";
import { resolveShare } from "./service";

const SECRET = "sharer-rights-test-secret-sharer-rights-test-secret-01";
const BASE_URL = "http://localhost:3000";
const VISITOR = "198.51.100.23";
const POLICY = { ...MAIL_POLICY_DEFAULTS, sendNowPerWindow: 20, sendNowWindowSeconds: 3600 };
const noCookie = () => undefined;

let dir: string;
let store: Store;
let svc: TestService;
let gateway: ReportGateway;
let smtp: TestSmtp;
let worker: MailWorker;
let admin: SessionUser;

const deps = (): NotifyDeps => ({
  db: store,
  gateway,
  env: { REPORT_TIMEZONE: "UTC", NEXTAUTH_SECRET: SECRET, NEXTAUTH_URL: BASE_URL },
  mail: mailQueue(true, POLICY),
  waitMs: 30_000,
  policy: POLICY,
  monitor: DEFAULT_MONITOR_CONFIG,
});

async function person(name: string, role: SessionUser["role"]): Promise<SessionUser> {
  const u = await usersRepo(store).create({ email: `${name}-${Date.now()}@corp.example`, role, passwordHash: await hashPassword("irrelevant-password") });
  return { id: u.id, email: u.email, role };
}

const newReport = (owner: SessionUser, name: string) =>
  savedReportsRepo(store).create({ ownerId: owner.id, name, page: "explore", params: "op=orders&range=last7&by=gateway_alias&m=attempts,revenue", sharedWithTeam: false });

/** Sends all that is queued; the messages that arrived with it. */
async function delivered(): Promise<ReceivedMail[]> {
  const before = (await smtp.settled()).length;
  for (;;) {
    const counts = await worker.tick();
    if (counts.sent + counts.failed + counts.retried === 0) break;
  }
  return (await smtp.settled()).slice(before);
}

const shareTokens = (text: string) => [...text.matchAll(new RegExp(`${BASE_URL}/share/([A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])`, "g"))].map((m) => m[1]!);

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
  dir = mkdtempSync(join(tmpdir(), "sharer-rights-"));
  store = await openTestPglite(dir, "sharer rights test");
  admin = await person("admin", "admin");
  svc = await startTestService({ data: { days: 14, ordersPerDay: 20, seed: 43, endDate: todayIn("UTC") }, env: { REPORT_RATE_LIMIT: "100000" } });
  gateway = gatewayFor(svc);
  smtp = await startTestSmtp();
  worker = new MailWorker({ db: store, config: { enabled: true, host: smtp.host, port: smtp.port, tls: "none", from: "reports@corp.example" }, log: () => {} });
});

afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await svc?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a scheduled report's link, rotated by its owner", () => {
  it("is followed: the next e-mail carries the new link, which opens the report, and the rotation names the subscription", async () => {
    const ann = await person("ann", "analyst");
    const report = await newReport(ann, "Ann's partners");
    const sub = await createSubscription(store, gateway, ann, { report_id: report.id, schedule: { every: "week", weekday: 1, hour: 8 }, recipients: { users: [], emails: ["partner@corp.example"] }, paused: false }, { timeZone: "UTC", secret: SECRET, policy: POLICY });
    expect(sub.shareLinkId).not.toBeNull();

    await sendSubscriptionNow(deps(), ann, sub.id);
    const [first] = shareTokens((await delivered()).find((m) => m.to.includes("partner@corp.example"))!.parsed.text ?? "");
    expect((await resolveShare(store, first!, VISITOR, SECRET, noCookie)).kind).toBe("ok");

    // Ann rotates the link from the report's list (it is the subscription's labelled link).
    const rotated = await rotateShareLink(store, ann, report.id, sub.shareLinkId!, BASE_URL, subscriptionsFollowingLink(SECRET));
    expect((await resolveShare(store, first!, VISITOR, SECRET, noCookie)).kind).toBe("unknown");

    await sendSubscriptionNow(deps(), ann, sub.id);
    const mail = (await delivered()).find((m) => m.to.includes("partner@corp.example"))!;
    const carried = [...shareTokens(mail.parsed.text ?? ""), ...shareTokens(mail.parsed.html || "")];
    expect(carried.length).toBeGreaterThan(0);
    expect(new Set(carried)).toEqual(new Set([rotated.token]));
    const opened = await resolveShare(store, rotated.token, VISITOR, SECRET, noCookie);
    expect(opened.kind === "ok" && opened.link.id).toBe(sub.shareLinkId);

    // One entry for the rotation, naming the scheduled report that now mails the new link (never the token).
    const { entries } = await auditRepo(store).list({ actions: ["share_link.rotated"], subject: sub.shareLinkId! });
    expect(entries).toHaveLength(1);
    expect(entries[0]!.detail).toMatchObject({ report_id: report.id, subscriptions_following: [sub.id] });
    expect(JSON.stringify(entries[0])).not.toContain(rotated.token);
  });

  it("rotated by an admin, is followed just the same", async () => {
    const bea = await person("bea", "analyst");
    const report = await newReport(bea, "Bea's partners");
    const sub = await createSubscription(store, gateway, bea, { report_id: report.id, schedule: { every: "day", hour: 7 }, recipients: { users: [], emails: ["bank@corp.example"] }, paused: false }, { timeZone: "UTC", secret: SECRET, policy: POLICY });
    const rotated = await rotateShareLink(store, admin, report.id, sub.shareLinkId!, BASE_URL, subscriptionsFollowingLink(SECRET));
    await sendSubscriptionNow(deps(), bea, sub.id);
    const mail = (await delivered()).find((m) => m.to.includes("bank@corp.example"))!;
    expect(shareTokens(mail.parsed.text ?? "")).toEqual([rotated.token]);
  });
});

describe("a link whose maker may no longer share the report", () => {
  it("is paused once the analyst who made it is made a viewer: not served, no password asked, listed as paused; an admin revokes it", async () => {
    const cal = await person("cal", "analyst");
    const report = await newReport(cal, "Cal's gateways");
    const open = await createShareLink(store, gateway, "UTC", cal, report, { mode: "live", label: "For the bank" });
    const locked = await createShareLink(store, gateway, "UTC", cal, report, { mode: "live", label: "Board", password: "correct horse battery" });
    expect((await resolveShare(store, open.token, VISITOR, SECRET, noCookie)).kind).toBe("ok");
    expect((await resolveShare(store, locked.token, VISITOR, SECRET, noCookie)).kind).toBe("locked");

    await updateUser(store, admin, cal.id, { role: "viewer" }, null);
    const demoted: SessionUser = { ...cal, role: "viewer" };
    expect((await resolveShare(store, open.token, VISITOR, SECRET, noCookie)).kind).toBe("paused");
    expect((await resolveShare(store, locked.token, VISITOR, SECRET, noCookie)).kind).toBe("paused");

    // Cal may no longer manage the links (a viewer shares nothing); an admin sees them paused and revokes one.
    expect((await refusal(revokeShareLink(store, demoted, report.id, open.link.id))).status).toBe(403);
    const listed = (await listShareLinks(store, admin, report.id)).links;
    expect(listed.map((l) => [l.label, l.paused])).toEqual(
      expect.arrayContaining([
        ["For the bank", true],
        ["Board", true],
      ]),
    );
    await revokeShareLink(store, admin, report.id, open.link.id);
    expect((await resolveShare(store, open.token, VISITOR, SECRET, noCookie)).kind).toBe("revoked");
    const after = (await listShareLinks(store, admin, report.id)).links;
    expect(after.find((l) => l.id === open.link.id)).toMatchObject({ paused: false, revokedAt: expect.any(String) });
    const { entries } = await auditRepo(store).list({ actions: ["share_link.revoked"], subject: open.link.id });
    expect(entries.map((e) => e.actorEmail)).toEqual([admin.email]);

    // Given the role back, Cal's link that no one revoked serves again.
    await updateUser(store, admin, cal.id, { role: "analyst" }, null);
    expect((await resolveShare(store, locked.token, VISITOR, SECRET, noCookie)).kind).toBe("locked");
    expect((await listShareLinks(store, cal, report.id)).links.find((l) => l.id === locked.link.id)?.paused).toBe(false);
  });

  it("is paused once the admin who shared someone else's report is made an analyst, while the owner's own links serve", async () => {
    const dora = await person("dora", "admin");
    const eve = await person("eve", "analyst");
    const report = await newReport(eve, "Eve's report");
    const byAdmin = await createShareLink(store, gateway, "UTC", dora, report, { mode: "live" });
    const byOwner = await createShareLink(store, gateway, "UTC", eve, report, { mode: "live" });
    await updateUser(store, admin, dora.id, { role: "analyst" }, null);
    expect((await resolveShare(store, byAdmin.token, VISITOR, SECRET, noCookie)).kind).toBe("paused");
    expect((await resolveShare(store, byOwner.token, VISITOR, SECRET, noCookie)).kind).toBe("ok");
    // The report's owner may revoke it too: it is a link to her report.
    await revokeShareLink(store, eve, report.id, byAdmin.link.id);
    expect((await resolveShare(store, byAdmin.token, VISITOR, SECRET, noCookie)).kind).toBe("revoked");
  });
});
