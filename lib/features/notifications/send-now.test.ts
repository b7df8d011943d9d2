/**
 * "Send now" and the preview of a scheduled report, and what its e-mail links to, against the real
 * service, a real PGlite store, the real scheduler wiring and a real SMTP server the real mail worker
 * sends to. Send now goes through the scheduler's path (owner rights now, mail policy, outbox) without
 * moving the schedule, and is rate limited per user under a burst; the preview is the e-mail a send
 * produces, queuing none; dashboard users get the in-app link, outside addresses the subscription's
 * labelled share link (or, under the "numbers" policy, no link and the numbers).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/core/auth/password";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { todayIn } from "@/lib/contract/dates";
import { ApiError } from "@/lib/contract/errors";
import { MailWorker } from "@/lib/core/mail/worker";
import { DEFAULT_MONITOR_CONFIG } from "@/lib/features/monitor/definitions";
import { Scheduler } from "@/lib/features/notifications/scheduler";
import { listShareLinks, revokeShareLink } from "@/lib/features/sharing/links";
import { resolveShare } from "@/lib/features/sharing/service";
import { auditRepo } from "@/lib/core/audit/store";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { inboxRepo } from "@/lib/features/notifications/inbox-store";
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
import { MAIL_POLICY_DEFAULTS, type MailPolicy } from "./policy";
import { evaluateNow, previewSubscription, runSlot, scheduledItems, sendSubscriptionNow, type NotifyDeps } from "./slots";
import { mailQueue } from "./mail-queue";
import { createAlertRule } from "@/lib/features/notifications/alert-rules";
import { startTestSmtp, type ReceivedMail, type TestSmtp } from "./testing/smtp";
import { PdfError } from "@/lib/core/pdf/errors";
import { PDF_RETRY } from "./issue-attachments";

const SECRET = "send-now-test-secret-send-now-test-secret-send-now-01";
const BASE_URL = "http://localhost:3000";
const POLICY: MailPolicy = { ...MAIL_POLICY_DEFAULTS, sendNowPerWindow: 5, sendNowWindowSeconds: 3600 };
const NUMBERS: MailPolicy = { ...POLICY, outsideLinks: "numbers" };

let dir: string;
let store: Store;
let svc: TestService;
let gateway: ReportGateway;
let smtp: TestSmtp;
let worker: MailWorker;
const people: Record<"admin" | "ann" | "bob" | "cat" | "dee" | "vic", SessionUser> = {} as never;

const depsWith = (policy: MailPolicy): NotifyDeps => ({
  db: store,
  gateway,
  env: { REPORT_TIMEZONE: "UTC", NEXTAUTH_SECRET: SECRET, NEXTAUTH_URL: BASE_URL },
  mail: mailQueue(true, policy),
  waitMs: 30_000,
  policy,
  monitor: DEFAULT_MONITOR_CONFIG,
});

/** Sends all that is queued; the messages that arrived with it. */
async function delivered(): Promise<ReceivedMail[]> {
  const before = (await smtp.settled()).length;
  for (;;) {
    const counts = await worker.tick();
    if (counts.sent + counts.failed + counts.retried === 0) break;
  }
  return (await smtp.settled()).slice(before);
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

const outboxCount = async () => (await store.query<{ n: number }>("SELECT count(*)::int AS n FROM mail_outbox"))[0]!.n;

const subscribe = (user: SessionUser, reportId: string, recipients: { users: string[]; emails: string[] }, policy = POLICY) =>
  createSubscription(store, gateway, user, { report_id: reportId, schedule: { every: "week", weekday: 1, hour: 8 }, recipients, paused: false }, { timeZone: "UTC", secret: SECRET, policy });

const newReport = (owner: SessionUser, name: string, sharedWithTeam = false) =>
  savedReportsRepo(store).create({ ownerId: owner.id, name, page: "explore", params: "op=orders&range=last7&by=gateway_alias&m=attempts,revenue", sharedWithTeam });

const shareToken = (text: string) => new RegExp(`${BASE_URL}/share/([A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])`).exec(text)?.[1];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "send-now-"));
  store = await openTestPglite(dir, "send now test");
  for (const [name, role] of [["admin", "admin"], ["ann", "analyst"], ["bob", "analyst"], ["cat", "analyst"], ["dee", "analyst"], ["vic", "viewer"]] as const) {
    const u = await usersRepo(store).create({ email: `${name}@corp.example`, role, passwordHash: await hashPassword("irrelevant-password") });
    people[name] = { id: u.id, email: u.email, role };
  }
  svc = await startTestService({ data: { days: 14, ordersPerDay: 30, seed: 41, endDate: todayIn("UTC") }, env: { REPORT_RATE_LIMIT: "100000" } });
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

describe("Send now", () => {
  it("sends the next issue through the outbox at once, audit-logged, and leaves the schedule as it was", async () => {
    const { ann, bob } = people;
    const report = await newReport(ann, "Ann's gateways", true);
    const sub = await subscribe(ann, report.id, { users: [bob.id], emails: ["partner@corp.example"] });
    const before = (await subscriptionsRepo(store).get(sub.id))!;

    const sent = await sendSubscriptionNow(depsWith(POLICY), ann, sub.id);
    expect(sent).toEqual({ inbox: 1, emails: 2 });
    // Queued in the outbox, not yet sent: the worker sends it (its retries and states are the outbox's).
    const pending = await store.query<{ recipient: string; sent_at: Date | null }>("SELECT recipient, sent_at FROM mail_outbox WHERE source_id = $1 ORDER BY recipient", [sub.id]);
    expect(pending.map((r) => [r.recipient, r.sent_at])).toEqual([
      ["bob@corp.example", null],
      ["partner@corp.example", null],
    ]);
    const mails = await delivered();
    expect(mails.flatMap((m) => m.to).sort()).toEqual(["bob@corp.example", "partner@corp.example"]);

    // The schedule did not move: the subscription is unchanged and no slot was claimed.
    const after = (await subscriptionsRepo(store).get(sub.id))!;
    expect(after.updatedAt).toBe(before.updatedAt);
    expect((await store.query<{ n: number }>("SELECT count(*)::int AS n FROM schedule_claims WHERE item_id = $1", [sub.id]))[0]!.n).toBe(0);
    const items = await scheduledItems(store);
    expect(items.find((i) => i.id === sub.id)).toMatchObject({ paused: false, notBefore: new Date(before.updatedAt) });

    const { entries } = await auditRepo(store).list({ subject: sub.id });
    expect(entries.map((e) => e.action)).toContain("subscription.sent_now");
    expect(entries.find((e) => e.action === "subscription.sent_now")).toMatchObject({ actorEmail: ann.email, subjectLabel: "Ann's gateways", detail: { emails: 2, inbox: 1 } });
  });

  it("20 presses at once send exactly the allowance; the others are 429 saying when the next frees up", async () => {
    const { cat } = people;
    const report = await newReport(cat, "Cat's burst");
    const sub = await subscribe(cat, report.id, { users: [cat.id], emails: [] });
    const deps = depsWith(POLICY);
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => sendSubscriptionNow(deps, cat, sub.id)));
    const ok = outcomes.filter((o) => o.status === "fulfilled");
    const refused = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as unknown] : []));
    expect(ok).toHaveLength(5);
    expect(refused).toHaveLength(15);
    for (const e of refused) {
      expect(e).toBeInstanceOf(ApiError);
      const err = e as ApiError;
      expect(err.status).toBe(429);
      expect(err.message).toMatch(/^"Send now" is limited to 5 per hour per user; the next one frees up in \d+ s \(at \d{2}:\d{2} UTC\)$/);
      const retry = Number(err.headers?.["Retry-After"]);
      expect(retry).toBeGreaterThan(3000);
      expect(retry).toBeLessThanOrEqual(3600);
    }
    const rows = await store.query<{ recipient: string }>("SELECT recipient FROM mail_outbox WHERE source_id = $1", [sub.id]);
    expect(rows).toHaveLength(5);
    expect((await delivered()).filter((m) => m.to.includes(cat.email))).toHaveLength(5);
    // The allowance is the person's: one more press, later in the same hour, is refused too.
    expect((await refusal(sendSubscriptionNow(deps, cat, sub.id))).status).toBe(429);
  });

  it("checks the owner's rights at that moment, and answers another user's subscription as missing", async () => {
    const { admin, bob, ann } = people;
    const report = await newReport(bob, "Bob's week");
    const sub = await subscribe(bob, report.id, { users: [bob.id], emails: [] });
    expect((await refusal(sendSubscriptionNow(depsWith(POLICY), ann, sub.id))).status).toBe(404);
    await updateUser(store, admin, bob.id, { disabled: true }, null, pauseStopped);
    const stopped = await refusal(sendSubscriptionNow(depsWith(POLICY), admin, sub.id));
    expect(stopped.status).toBe(400);
    expect(stopped.message).toContain("paused because its owner was disabled");
    expect(await store.query("SELECT id FROM mail_outbox WHERE source_id = $1", [sub.id])).toEqual([]);
    await updateUser(store, admin, bob.id, { disabled: false }, null, pauseStopped);
  });
});

describe("the preview", () => {
  it("is the e-mail a send produces, per audience, queuing nothing and spending no allowance", async () => {
    const { dee, bob } = people;
    const report = await newReport(dee, "Dee's preview", true);
    const sub = await subscribe(dee, report.id, { users: [bob.id], emails: ["outside@corp.example"] });
    const deps = depsWith({ ...POLICY, sendNowPerWindow: 1 });
    const queued = await outboxCount();
    let preview = await previewSubscription(deps, dee, sub.id);
    // The report may still be on its way the first time: it answers where it waits, like any report.
    for (let i = 0; preview.kind === "pending" && i < 20; i++) preview = await previewSubscription(deps, dee, sub.id);
    if (preview.kind !== "ready") throw new Error("the preview stayed pending");
    expect(await outboxCount()).toBe(queued);
    expect(preview.mails.map((m) => [m.audience, m.to])).toEqual([
      ["users", ["bob@corp.example"]],
      ["outside", ["outside@corp.example"]],
    ]);
    expect(preview.inboxUsers).toBe(1);
    const [forUsers, forOutside] = preview.mails as [(typeof preview.mails)[0], (typeof preview.mails)[0]];
    expect(forUsers.subject).toMatch(/^Dee's preview: /);
    expect(forUsers.text).toContain(`Open the report: ${BASE_URL}/reports/${report.id}`);
    expect(forUsers.attachments).toEqual([{ filename: expect.stringMatching(/\.csv$/), contentType: "text/csv; charset=utf-8", bytes: expect.any(Number) }]);
    // The share token is not in the preview: only its last characters, as the list of links names it.
    expect(shareToken(forOutside.text)).toBeUndefined();
    expect(forOutside.text).toMatch(new RegExp(`Open the report: ${BASE_URL}/share/…[A-Za-z0-9_-]{6}$`));

    // The allowance of one press is still whole; the send's e-mails are the preview's.
    await sendSubscriptionNow(deps, dee, sub.id);
    const mails = await delivered();
    const bobs = mails.find((m) => m.to.includes("bob@corp.example"))!;
    const outsiders = mails.find((m) => m.to.includes("outside@corp.example"))!;
    expect(bobs.parsed.subject).toBe(forUsers.subject);
    expect(bobs.parsed.text?.trim()).toBe(forUsers.text.trim());
    expect(bobs.parsed.html).toBe(forUsers.html);
    const token = shareToken(outsiders.parsed.text ?? "")!;
    expect(token).toBeDefined();
    expect(outsiders.parsed.text?.trim()).toBe(forOutside.text.replace(`…${token.slice(-6)}`, token).trim());
  });
});

describe("links for outside recipients", () => {
  it("users get the in-app link; outside addresses the subscription's labelled share link, which opens exactly the report and is revocable", async () => {
    const { ann } = people;
    const report = await newReport(ann, "Ann's partners", true);
    const other = await newReport(ann, "Ann's other report", true);
    const secret = await newReport(ann, "Ann's private report");
    // bob@… named by address is still a user: he gets the in-app link like a named user.
    const sub = await subscribe(ann, report.id, { users: [], emails: ["bob@corp.example", "partner@corp.example"] });
    // A user's address is never "outside": where that user may not see the report, it is not mailed (nor linked).
    const privateSub = await subscribe(ann, secret.id, { users: [], emails: ["bob@corp.example"] });
    const links = (await listShareLinks(store, ann, report.id)).links;
    expect(links.find((l) => l.id === sub.shareLinkId)).toMatchObject({ label: "Scheduled report: Every Monday at 08:00 (UTC)", revokedAt: null, mode: "live", allowedPresets: [] });

    await sendSubscriptionNow(depsWith(MAIL_POLICY_DEFAULTS), ann, sub.id);
    const mails = await delivered();
    const bobs = mails.find((m) => m.to.includes("bob@corp.example"))!;
    const partners = mails.find((m) => m.to.includes("partner@corp.example"))!;
    expect(bobs.parsed.text).toContain(`${BASE_URL}/reports/${report.id}`);
    expect(shareToken(bobs.parsed.text ?? "")).toBeUndefined();
    const token = shareToken(partners.parsed.text ?? "")!;
    expect(token).toBeDefined();
    expect(partners.parsed.text).not.toContain("/reports/");
    const opened = await resolveShare(store, token, "198.51.100.9", SECRET, () => undefined);
    expect(opened.kind).toBe("ok");
    if (opened.kind === "ok") {
      expect(opened.report.id).toBe(report.id);
      expect(opened.report.id).not.toBe(other.id);
      expect(opened.link.id).toBe(sub.shareLinkId);
    }
    expect((await sendSubscriptionNow(depsWith(MAIL_POLICY_DEFAULTS), ann, privateSub.id)).emails).toBe(0);
    await revokeShareLink(store, ann, report.id, sub.shareLinkId!);
    expect((await resolveShare(store, token, "198.51.100.9", SECRET, () => undefined)).kind).toBe("revoked");
  });

  it("one made without a link (numbers policy) gets its labelled link when the policy later gives one", async () => {
    const { ann, bob } = people;
    const report = await newReport(ann, "Ann's team only", true);
    const sub = await subscribe(ann, report.id, { users: [bob.id], emails: ["later@corp.example"] }, NUMBERS);
    expect(sub.shareLinkId).toBeNull();
    const changed = await updateSubscription(store, ann, sub.id, { recipients: { users: [bob.id], emails: ["later@corp.example", "again@corp.example"] } }, { policy: POLICY, gateway, timeZone: "UTC", secret: SECRET });
    expect(changed.shareLinkId).not.toBeNull();
    expect((await listShareLinks(store, ann, report.id)).links.map((l) => [l.id, l.label])).toEqual([[changed.shareLinkId, "Scheduled report: Every Monday at 08:00 (UTC)"]]);
  });

  it("under the numbers policy, outside addresses get no link and the numbers, and no link is made", async () => {
    const { ann, vic } = people;
    const report = await newReport(ann, "Ann's numbers", true);
    const sub = await subscribe(ann, report.id, { users: [vic.id], emails: ["auditor@corp.example"] }, NUMBERS);
    expect(sub.shareLinkId).toBeNull();
    expect((await listShareLinks(store, ann, report.id)).links).toEqual([]);
    await sendSubscriptionNow(depsWith(NUMBERS), ann, sub.id);
    const mails = await delivered();
    const auditor = mails.find((m) => m.to.includes("auditor@corp.example"))!;
    const viewer = mails.find((m) => m.to.includes(vic.email))!;
    expect(auditor.parsed.text).not.toMatch(/https?:\/\//);
    expect(auditor.parsed.html || "").not.toMatch(/href=/);
    expect(auditor.parsed.text).toContain("This e-mail carries no link to the dashboard: the numbers are above and the table is attached.");
    expect(auditor.parsed.text).toMatch(/Attempts: \d/);
    expect(auditor.parsed.attachments).toHaveLength(1);
    expect(viewer.parsed.text).toContain(`${BASE_URL}/reports/${report.id}`);
  });

  it("a scheduled slot sends the same way as Send now", async () => {
    const { cat } = people;
    const report = await newReport(cat, "Cat's slot");
    const sub = await subscribe(cat, report.id, { users: [cat.id], emails: ["slot-partner@corp.example"] });
    await store.query("UPDATE subscriptions SET created_at = now() - interval '8 days', updated_at = now() - interval '8 days' WHERE id = $1", [sub.id]);
    const deps = depsWith(POLICY);
    const scheduler = new Scheduler({ db: store, workerId: "send-now-test", timeZone: "UTC", items: () => scheduledItems(store), run: (item, slot, ctx) => runSlot(deps, item, ctx.late, slot), log: () => {} });
    await scheduler.tick();
    const mails = (await delivered()).filter((m) => m.to.includes(cat.email) || m.to.includes("slot-partner@corp.example"));
    expect(mails.map((m) => m.to[0]).sort()).toEqual([cat.email, "slot-partner@corp.example"]);
    expect(mails.find((m) => m.to.includes(cat.email))!.parsed.text).toContain(`/reports/${report.id}`);
    expect(shareToken(mails.find((m) => m.to.includes("slot-partner@corp.example"))!.parsed.text ?? "")).toBeDefined();
  });

  it("an alert mails its users the link into the dashboard and outside addresses the numbers alone", async () => {
    const { cat, bob } = people;
    const rule = await createAlertRule(
      store,
      cat,
      {
        name: "Cat's attempts",
        definition: { target: { kind: "measure", measure: "attempts" }, condition: { kind: "above", value: 0 }, group_by: null, filters: {}, window: "last7" },
        schedule: { every: "hour" },
        recipients: { users: [bob.id], emails: ["vic@corp.example", "ops-partner@corp.example"] },
        cooldown_minutes: 60,
        paused: false,
      },
      DEFAULT_MONITOR_CONFIG,
      POLICY,
    );
    const record = await evaluateNow(depsWith(POLICY), rule.id, cat.id);
    expect(record?.sent.emails).toBe(3);
    const mails = await delivered();
    const linked = /Open the numbers: (\S+)/;
    for (const user of [bob.email, "vic@corp.example"]) {
      const m = mails.find((x) => x.to.includes(user))!;
      expect(linked.exec(m.parsed.text ?? "")?.[1], user).toMatch(new RegExp(`^${BASE_URL}/explore\\?`));
    }
    const outside = mails.find((x) => x.to.includes("ops-partner@corp.example"))!;
    expect(outside.parsed.subject).toBe("Alert: Cat's attempts: 1 firing");
    expect(outside.parsed.text).not.toMatch(/https?:\/\//);
    expect(outside.parsed.text).toMatch(/All: Attempts [\d,]+ \(fired\)/);
    expect(outside.parsed.text).toContain("This e-mail carries no link to the dashboard: the numbers are above.");
  });
});

describe("attachment formats", () => {
  // Every byte value, so an attachment that went through the outbox as text would come out changed.
  const PDF_BYTES = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.from(Array.from({ length: 256 }, (_, i) => i))]);

  it("attaches the owner's PDF beside (or instead of) the CSV, byte for byte, and says so in the body", async () => {
    const { dee } = people;
    const report = await newReport(dee, "Dee's board pack");
    const asked: { owner: string; reportId: string; queue: string }[] = [];
    const pdf: NotifyDeps["pdf"] = async (owner, reportId, queue) => {
      asked.push({ owner: owner.id, reportId, queue });
      return { pdf: PDF_BYTES, fileName: "Dee-s-board-pack.pdf" };
    };
    const both = await createSubscription(store, gateway, dee, { report_id: report.id, schedule: { every: "week", weekday: 1, hour: 8 }, recipients: { users: [], emails: [dee.email] }, paused: false, formats: ["csv", "pdf"] }, { timeZone: "UTC", secret: SECRET, policy: POLICY });
    expect(both.formats).toEqual(["csv", "pdf"]);
    await sendSubscriptionNow({ ...depsWith(POLICY), pdf }, dee, both.id);
    const [mail] = await delivered();
    expect(asked).toEqual([{ owner: dee.id, reportId: report.id, queue: "user" }]);
    expect(mail!.parsed.attachments.map((a) => [a.filename, a.contentType])).toEqual([
      [expect.stringMatching(/\.csv$/), "text/csv"],
      ["Dee-s-board-pack.pdf", "application/pdf"],
    ]);
    expect(Buffer.compare(mail!.parsed.attachments[1]!.content, PDF_BYTES)).toBe(0);
    expect(mail!.parsed.text).toContain("The report is attached as PDF, as it looks on screen.");
    // When the body's numbers were fetched, in the words the PDF's header uses for its own.
    expect(mail!.parsed.text).toMatch(/^Data as of \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/m);
    expect(mail!.parsed.html || "").toMatch(/<p>Data as of \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC<\/p>/);

    // PDF only: no CSV, and the body does not promise one.
    await updateSubscription(store, dee, both.id, { formats: ["pdf"] }, { policy: POLICY, gateway, timeZone: "UTC", secret: SECRET });
    await sendSubscriptionNow({ ...depsWith(POLICY), pdf }, dee, both.id);
    const [only] = await delivered();
    expect(only!.parsed.attachments.map((a) => a.contentType)).toEqual(["application/pdf"]);
    expect(only!.parsed.text).not.toContain("attached as CSV");
  });

  it("sends nothing when the PDF cannot be made, and tells the owner why in the inbox", async () => {
    const { dee } = people;
    const report = await newReport(dee, "Dee's failing pack");
    const sub = await createSubscription(store, gateway, dee, { report_id: report.id, schedule: { every: "week", weekday: 1, hour: 8 }, recipients: { users: [], emails: [dee.email, "partner@corp.example"] }, paused: false, formats: ["csv", "pdf"] }, { timeZone: "UTC", secret: SECRET, policy: POLICY });
    const queued = await outboxCount();
    const failing: NotifyDeps["pdf"] = async () => {
      throw new Error("The PDF was not made within 120 s, the most one may take.");
    };
    await expect(sendSubscriptionNow({ ...depsWith(POLICY), pdf: failing }, dee, sub.id)).rejects.toThrow(/The PDF could not be made \(The PDF was not made within 120 s.*\)\. This issue was not sent\./);
    expect(await outboxCount()).toBe(queued);
    const [told] = await inboxRepo(store).list(dee.id, 1);
    expect(told).toMatchObject({ title: "Scheduled report not sent: Dee's failing pack", link: "/alerts" });
    expect(told!.body).toContain("could not be made (The PDF was not made within 120 s");

    // The same at its scheduled slot: the slot's run fails and nothing is queued.
    const item = (await scheduledItems(store)).find((i) => i.id === sub.id)!;
    await expect(runSlot({ ...depsWith(POLICY), pdf: failing }, item, false, new Date())).rejects.toThrow(/This issue was not sent/);
    expect(await outboxCount()).toBe(queued);
  });

  /** A clock whose waits pass at once, each one counted. */
  const countingClock = () => {
    let now = Date.parse("2026-11-02T08:00:00Z");
    const waits: number[] = [];
    return {
      waits,
      clock: {
        now: () => now,
        sleep: async (ms: number) => {
          waits.push(ms);
          now += ms;
        },
      },
    };
  };

  it("asks again within the slot while the renderer is busy or the data pending, and sends once it is made, the owner told nothing", async () => {
    const { dee } = people;
    const report = await newReport(dee, "Dee's busy pack");
    const sub = await createSubscription(store, gateway, dee, { report_id: report.id, schedule: { every: "week", weekday: 1, hour: 8 }, recipients: { users: [], emails: [dee.email] }, paused: false, formats: ["pdf"] }, { timeZone: "UTC", secret: SECRET, policy: POLICY });
    const { waits, clock } = countingClock();
    const refusals = [new PdfError("busy", "The dashboard is already making 10 PDFs.", 600), new PdfError("pending", "The data is still being fetched.", 2), new PdfError("owner-busy", "You already have 2 PDFs being made.", 10)];
    let calls = 0;
    const pdf: NotifyDeps["pdf"] = async () => {
      const refusal = refusals[calls++];
      if (refusal) throw refusal;
      return { pdf: PDF_BYTES, fileName: "Dee-s-busy-pack.pdf" };
    };
    const item = (await scheduledItems(store)).find((i) => i.id === sub.id)!;
    await runSlot({ ...depsWith(POLICY), pdf, clock }, item, false, new Date());
    expect(calls).toBe(4);
    // The renderer's own words on when to ask again, held within the bounds.
    expect(waits).toEqual([PDF_RETRY.maxWaitMs, PDF_RETRY.minWaitMs, 10_000]);
    const mails = await delivered();
    expect(mails).toHaveLength(1);
    expect(mails[0]!.parsed.attachments.map((a) => a.filename)).toEqual(["Dee-s-busy-pack.pdf"]);
    const told = await inboxRepo(store).list(dee.id, 100);
    expect(told.filter((m) => m.title === "Scheduled report not sent: Dee's busy pack")).toHaveLength(0);
  });

  it("gives up after its bounded retries, tells the owner once, and sends nothing; a final refusal is not asked again, nor a Send now", async () => {
    const { dee } = people;
    const report = await newReport(dee, "Dee's never pack");
    const sub = await createSubscription(store, gateway, dee, { report_id: report.id, schedule: { every: "week", weekday: 1, hour: 8 }, recipients: { users: [], emails: [dee.email] }, paused: false, formats: ["csv", "pdf"] }, { timeZone: "UTC", secret: SECRET, policy: POLICY });
    const queued = await outboxCount();
    const notSent = async () => (await inboxRepo(store).list(dee.id, 100)).filter((m) => m.title === "Scheduled report not sent: Dee's never pack").length;
    const item = (await scheduledItems(store)).find((i) => i.id === sub.id)!;

    const { waits, clock } = countingClock();
    let calls = 0;
    const alwaysBusy: NotifyDeps["pdf"] = async () => {
      calls += 1;
      throw new PdfError("busy", "The dashboard is already making 10 PDFs.", 60);
    };
    await expect(runSlot({ ...depsWith(POLICY), pdf: alwaysBusy, clock }, item, false, new Date())).rejects.toThrow(/This issue was not sent/);
    expect(calls).toBe(PDF_RETRY.attempts);
    expect(waits).toHaveLength(PDF_RETRY.attempts - 1);
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(PDF_RETRY.budgetMs);
    expect(await outboxCount()).toBe(queued);
    expect(await notSent()).toBe(1);

    // Refused for good (the report went away): asked once.
    calls = 0;
    const gone: NotifyDeps["pdf"] = async () => {
      calls += 1;
      throw new PdfError("not-found", "The report is not there, or you may no longer see it.");
    };
    await expect(runSlot({ ...depsWith(POLICY), pdf: gone, clock }, item, false, new Date())).rejects.toThrow(/This issue was not sent/);
    expect(calls).toBe(1);
    expect(await notSent()).toBe(2);

    // Send now answers its person at once.
    calls = 0;
    await expect(sendSubscriptionNow({ ...depsWith(POLICY), pdf: alwaysBusy, clock }, dee, sub.id)).rejects.toThrow(/This issue was not sent/);
    expect(calls).toBe(1);
    expect(await outboxCount()).toBe(queued);
  });

  it("refuses a list without a format, an unknown one, or one twice", async () => {
    const { SubscriptionInput } = await import("./subscriptions");
    const base = { report_id: "0b6f0f5e-7d1e-4b8e-9a43-4f1a2b3c4d5e", schedule: { every: "week", weekday: 1, hour: 8 }, recipients: { users: [], emails: ["a@corp.example"] } };
    expect(SubscriptionInput.parse(base).formats).toEqual(["csv"]);
    for (const formats of [[], ["xls"], ["pdf", "pdf"]]) expect(SubscriptionInput.safeParse({ ...base, formats }).success, JSON.stringify(formats)).toBe(false);
  });
});
