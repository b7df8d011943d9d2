/**
 * Alerts and scheduled reports end to end, against the real service (generated data ending today),
 * a real PGlite store, the real report gateway, and a real SMTP server the real mail worker sends to:
 * the numbers an alert speaks of and a report's CSV are the service's own, checked by asking it
 * directly; the cool-down and the recovery; the share link a subscription mails, and its revocation.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/core/auth/password";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { todayIn } from "@/lib/contract/dates";
import { MailWorker } from "@/lib/core/mail/worker";
import { mailQueue } from "@/lib/features/notifications/mail-queue";
import { MAIL_POLICY_DEFAULTS } from "@/lib/features/notifications/policy";
import { startTestSmtp, type ReceivedMail, type TestSmtp } from "@/lib/features/notifications/testing/smtp";
import { DEFAULT_MONITOR_CONFIG } from "@/lib/features/monitor/definitions";
import { resolveShare } from "@/lib/features/sharing/service";
import { alertsRepo } from "@/lib/features/notifications/alerts-store";
import type { AlertRule } from "@/lib/features/notifications/model";
import { inboxRepo } from "@/lib/features/notifications/inbox-store";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import type { Store } from "@/lib/core/store/sql";
import { subscriptionsRepo } from "@/lib/features/notifications/subscriptions-store";
import { usersRepo } from "@/lib/core/auth/users";
import { createSubscription, deleteSubscription } from "@/lib/features/notifications/subscriptions";
import { sendSubscription } from "@/lib/features/notifications/subscription-issue";
import type { PdfMaker } from "@/lib/features/notifications/issue-attachments";
import type { AttachmentFormat } from "@/lib/features/notifications/subscriptions";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { questionLines, readWorkbook, sheetAsCsvRows } from "@/lib/report/table/testing/xlsx";
import { AlertDefinition } from "./definition";
import { evaluateRule, type AlertDeps, type EvaluationRecord } from "./alert-evaluation";

const SECRET = "alerts-test-secret-alerts-test-secret-0123456789";
const BASE_URL = "http://localhost:3000";

let dir: string;
let store: Store;
let svc: TestService;
let gateway: ReportGateway;
let smtp: TestSmtp;
let worker: MailWorker;
let owner: SessionUser;
let today: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "alerts-svc-"));
  store = await openTestPglite(dir, "alerts test");
  const u = await usersRepo(store).create({ email: "owner@test.local", role: "analyst", passwordHash: await hashPassword("irrelevant-password") });
  owner = { id: u.id, email: u.email, role: "analyst" };
  // The rule's recipient is a dashboard user, so its mail links into the dashboard (an outside address
  // gets the numbers alone: lib/features/notifications/send-now.test.ts).
  await usersRepo(store).create({ email: "ops@test.local", role: "analyst", passwordHash: await hashPassword("irrelevant-password") });
  today = todayIn("UTC");
  svc = await startTestService({ data: { days: 40, ordersPerDay: 150, seed: 19, endDate: today }, env: { REPORT_RATE_LIMIT: "100000" } });
  gateway = gatewayFor(svc);
  smtp = await startTestSmtp();
  worker = new MailWorker({ db: store, config: { enabled: true, host: smtp.host, port: smtp.port, tls: "none", from: "alerts@test.local" }, log: () => {} });
});

afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await svc?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Sends what the outbox holds; returns the messages that arrived with this tick. */
async function sendQueued(): Promise<ReceivedMail[]> {
  const before = (await smtp.settled()).length;
  const counts = await worker.tick();
  expect(counts.failed + counts.retried).toBe(0);
  return (await smtp.settled()).slice(before);
}

const addDaysUtc = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

describe("an alert rule against the service", () => {
  interface GatewayRate {
    alias: string;
    attempts: number;
    approvals: number;
    rate: number;
  }
  let rates: GatewayRate[];
  let rule: AlertRule;
  let deps: AlertDeps;
  const t0 = new Date();
  const slot = new Date(Math.floor(t0.getTime() / 3_600_000) * 3_600_000);

  const evaluations = async () => alertsRepo(store).evaluations(rule.id, 100);
  const inbox = async () => inboxRepo(store).list(owner.id);

  beforeAll(async () => {
    // The service's own numbers for the last 7 days, per gateway.
    const records = await svc.allRecords("/api/data", { start_date: addDaysUtc(today, -6), end_date: today, group_by: ["gateway_alias"], metrics: ["attempts", "approvals"] });
    const by = new Map<string, { attempts: number; approvals: number }>();
    for (const r of records) {
      const alias = String(r.gateway_alias);
      const g = by.get(alias) ?? { attempts: 0, approvals: 0 };
      g.attempts += Number(r.attempts);
      g.approvals += Number(r.approvals);
      by.set(alias, g);
    }
    rates = [...by]
      .filter(([, g]) => g.attempts > 0)
      .map(([alias, g]) => ({ alias, ...g, rate: g.approvals / g.attempts }))
      .sort((a, b) => a.rate - b.rate);
    expect(rates.length).toBeGreaterThanOrEqual(2);
    expect(rates[1]!.rate, "the two weakest gateways tie; pick another seed").toBeGreaterThan(rates[0]!.rate);
    const threshold = (rates[0]!.rate + rates[1]!.rate) / 2;
    const definition = AlertDefinition.parse({
      target: { kind: "measure", measure: "approval_rate" },
      condition: { kind: "below", value: threshold },
      group_by: "gateway_alias",
      filters: {},
      window: "last7",
    });
    rule = await alertsRepo(store).create({
      ownerId: owner.id,
      name: "Weak gateway",
      definition,
      schedule: { every: "hour" },
      recipients: { users: [], emails: ["ops@test.local"] },
      cooldownMinutes: 60,
      paused: false,
    });
    deps = { db: store, gateway, timeZone: "UTC", monitor: DEFAULT_MONITOR_CONFIG, mail: mailQueue(true), waitMs: 30_000, baseUrl: BASE_URL };
  });

  it("fires for exactly the weakest gateway, with the service's numbers, in the inbox and by e-mail", async () => {
    const weakest = rates[0]!;
    const record = await evaluateRule(deps, rule, slot, false, t0);
    expect(record.notices.map((n) => [n.key, n.kind])).toEqual([[weakest.alias, "fired"]]);
    expect(record.sent).toEqual({ inbox: 1, emails: 1 });

    // The evaluation's record: every gateway's numbers as the service gives them.
    const evs = await evaluations();
    expect(evs).toHaveLength(1);
    const saved = evs[0]!.result as EvaluationRecord;
    expect(saved.reading!.window).toEqual({ start: addDaysUtc(today, -6), end: today });
    expect(saved.reading!.groups.filter((g) => g.fires).map((g) => g.key)).toEqual([weakest.alias]);
    for (const r of rates) {
      const g = saved.reading!.groups.find((x) => x.key === r.alias);
      expect(g, r.alias).toMatchObject({ numerator: r.approvals, denominator: r.attempts });
      expect(g!.value).toBeCloseTo(r.rate, 12);
    }

    // The e-mail, through the real SMTP server.
    const mails = await sendQueued();
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail.to).toEqual(["ops@test.local"]);
    expect(mail.from).toBe("alerts@test.local");
    expect(mail.parsed.subject).toBe("Alert: Weak gateway: 1 firing");
    const text = mail.parsed.text ?? "";
    expect(text).toContain(`${weakest.approvals.toLocaleString("en-US")} ÷ ${weakest.attempts.toLocaleString("en-US")}`);
    expect(text).toContain(`${(weakest.rate * 100).toFixed(2)}%`);
    expect(text).toContain("(fired)");
    // The link opens the numbers it speaks of.
    const link = /Open the numbers: (\S+)/.exec(text)?.[1];
    expect(link?.startsWith(`${BASE_URL}/explore?`)).toBe(true);
    expect(new URL(link!).searchParams.get("by")).toBe("gateway_alias");
    // The other gateways are not mentioned.
    for (const r of rates.slice(1)) expect(text).not.toContain(`${r.approvals.toLocaleString("en-US")} ÷ ${r.attempts.toLocaleString("en-US")}`);

    const messages = await inbox();
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ title: "Weak gateway: 1 firing", sourceKind: "alert" });
    expect(messages[0]!.body).toContain(weakest.attempts.toLocaleString("en-US"));
  });

  it("says nothing more inside the cool-down, but records the evaluation", async () => {
    const record = await evaluateRule(deps, rule, slot, false, new Date(t0.getTime() + 10 * 60_000));
    expect(record.notices).toEqual([]);
    expect(record.sent).toEqual({ inbox: 0, emails: 0 });
    expect(record.reading!.groups.filter((g) => g.fires).map((g) => g.key)).toEqual([rates[0]!.alias]);
    expect(await sendQueued()).toHaveLength(0);
    expect(await inbox()).toHaveLength(1);
    expect(await evaluations()).toHaveLength(2);
  });

  it("tells the recovery once when the rule no longer fires, and then nothing", async () => {
    const def = AlertDefinition.parse(rule.definition);
    const lower = AlertDefinition.parse({ ...def, condition: { kind: "below", value: rates[0]!.rate / 2 } });
    rule = (await alertsRepo(store).update(rule.id, {
      name: rule.name,
      definition: lower,
      schedule: rule.schedule,
      recipients: rule.recipients,
      cooldownMinutes: rule.cooldownMinutes,
      paused: rule.paused,
    }))!;

    // Still inside the cool-down: a recovery is told regardless.
    const record = await evaluateRule(deps, rule, slot, false, new Date(t0.getTime() + 20 * 60_000));
    expect(record.notices.map((n) => [n.key, n.kind])).toEqual([[rates[0]!.alias, "recovered"]]);
    const mails = await sendQueued();
    expect(mails).toHaveLength(1);
    expect(mails[0]!.parsed.subject).toBe("Alert: Weak gateway: 1 recovered");
    expect(mails[0]!.parsed.text).toContain("(recovered)");
    expect(await inbox()).toHaveLength(2);

    const after = await evaluateRule(deps, rule, slot, false, new Date(t0.getTime() + 30 * 60_000));
    expect(after.notices).toEqual([]);
    expect(await sendQueued()).toHaveLength(0);
    expect(await inbox()).toHaveLength(2);
    expect(await evaluations()).toHaveLength(4);
  });
});

// ---------------------------------------------------------------------------------------------

/** RFC 4180 fields of one CSV text (quoted fields with doubled quotes; CRLF line ends). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else field += c;
  }
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

describe("a scheduled report against the service", () => {
  it("mails the report's table as CSV with the service's numbers and a working share link, revoked with the subscription", async () => {
    const report = await savedReportsRepo(store).create({
      ownerId: owner.id,
      name: "Revenue by gateway",
      page: "explore",
      params: "op=orders&range=last7&by=gateway_alias&m=attempts,approvals,revenue",
      sharedWithTeam: false,
    });
    const view = await createSubscription(
      store,
      gateway,
      owner,
      { report_id: report.id, schedule: { every: "day", hour: 8 }, recipients: { users: [], emails: ["boss@test.local"] }, paused: false },
      { timeZone: "UTC", secret: SECRET, policy: MAIL_POLICY_DEFAULTS },
    );
    expect(JSON.stringify(view)).not.toMatch(/sealed|token/i);
    const sub = (await subscriptionsRepo(store).get(view.id))!;
    const sent = await sendSubscription({ db: store, gateway, timeZone: "UTC", secret: SECRET, baseUrl: BASE_URL, mail: mailQueue(true), waitMs: 30_000 }, sub, false);
    expect(sent).toEqual({ inbox: 0, emails: 1 });

    const mails = await sendQueued();
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail.to).toEqual(["boss@test.local"]);
    expect(mail.parsed.subject).toContain("Revenue by gateway");
    expect(mail.parsed.headers.get("auto-submitted")).toBe("auto-generated");

    // The CSV: meta lines, a blank line, the header, a row per gateway, the totals.
    expect(mail.parsed.attachments).toHaveLength(1);
    const csvFile = mail.parsed.attachments[0]!;
    expect(csvFile.filename).toMatch(/\.csv$/);
    expect(csvFile.contentType).toBe("text/csv");
    const lines = parseCsv(csvFile.content.toString("utf8"));
    const blank = lines.findIndex((l) => l.length === 1 && l[0] === "");
    expect(blank).toBeGreaterThan(0);
    const meta = new Map(lines.slice(0, blank).map((l) => [l[0]!, l[1] ?? ""]));
    const range = /(\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2})/.exec(meta.get("Range") ?? "");
    expect(range, meta.get("Range")).not.toBeNull();
    const [, start, end] = range as unknown as [string, string, string];
    // Last 7 days: seven days, ending today or yesterday.
    expect(end === today || end === addDaysUtc(today, -1)).toBe(true);
    expect(start).toBe(addDaysUtc(end, -6));
    const header = lines[blank + 1]!;
    const gatewayCol = header.indexOf("Gateway");
    const revenueCol = header.findIndex((h) => h.startsWith("Revenue"));
    const attemptsCol = header.indexOf("Attempts");
    expect(gatewayCol).toBeGreaterThanOrEqual(0);
    expect(revenueCol).toBeGreaterThanOrEqual(0);
    expect(attemptsCol).toBeGreaterThanOrEqual(0);
    const body = lines.slice(blank + 2);
    const dataRows = body.slice(0, -1);
    const totalsRow = body.at(-1)!;

    // The service's own numbers for those days.
    const records = await svc.allRecords("/api/data", { start_date: start, end_date: end, group_by: ["gateway_alias"], metrics: ["attempts", "revenue"] });
    const expected = new Map<string, { revenueCents: number; attempts: number }>();
    for (const r of records) {
      const k = String(r.gateway_alias);
      const e = expected.get(k) ?? { revenueCents: 0, attempts: 0 };
      e.revenueCents += Math.round(Number(r.revenue) * 100);
      e.attempts += Number(r.attempts);
      expected.set(k, e);
    }
    expect(dataRows.map((r) => r[gatewayCol]).sort()).toEqual([...expected.keys()].sort());
    for (const r of dataRows) {
      const e = expected.get(r[gatewayCol]!)!;
      expect(Math.round(Number(r[revenueCol]) * 100), r[gatewayCol]).toBe(e.revenueCents);
      expect(Number(r[attemptsCol]), r[gatewayCol]).toBe(e.attempts);
    }
    const totalCents = [...expected.values()].reduce((s, e) => s + e.revenueCents, 0);
    expect(Math.round(Number(totalsRow[revenueCol]) * 100)).toBe(totalCents);

    // The link: the subscription's own, which opens this report.
    const text = mail.parsed.text ?? "";
    const token = new RegExp(`${BASE_URL}/share/([A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])`).exec(text)?.[1];
    expect(token, text).toBeDefined();
    expect(mail.parsed.html || "").toContain(`/share/${token}`);
    // The store keeps the token sealed: the rows alone do not give the link.
    expect(JSON.stringify(await store.query("SELECT * FROM subscriptions"))).not.toContain(token);
    expect(JSON.stringify(await store.query("SELECT * FROM share_links"))).not.toContain(token);
    const resolved = await resolveShare(store, token!, "198.51.100.7", SECRET, () => undefined);
    expect(resolved.kind).toBe("ok");
    if (resolved.kind === "ok") expect(resolved.report.id).toBe(report.id);

    // Deleting the subscription revokes the link at once.
    await deleteSubscription(store, owner, view.id);
    expect(await subscriptionsRepo(store).get(view.id)).toBeNull();
    expect((await resolveShare(store, token!, "198.51.100.7", SECRET, () => undefined)).kind).toBe("revoked");
  });
});

describe("a scheduled report with its Excel workbook attached", () => {
  const create = async (name: string, formats: AttachmentFormat[] = ["xlsx", "csv"]) => {
    const report = await savedReportsRepo(store).create({
      ownerId: owner.id,
      name,
      page: "explore",
      params: "op=orders&range=last7&by=date,gateway_alias&m=attempts,revenue&kpi=approval_rate",
      sharedWithTeam: false,
    });
    const view = await createSubscription(
      store,
      gateway,
      owner,
      { report_id: report.id, schedule: { every: "day", hour: 8 }, recipients: { users: [], emails: ["cfo@test.local"] }, paused: false, formats },
      { timeZone: "UTC", secret: SECRET, policy: MAIL_POLICY_DEFAULTS },
    );
    expect(view.formats).toEqual(formats);
    return (await subscriptionsRepo(store).get(view.id))!;
  };
  const deps = () => ({ db: store, gateway, timeZone: "UTC", secret: SECRET, baseUrl: BASE_URL, mail: mailQueue(true), waitMs: 30_000 });

  it("arrives at the SMTP server with the CSV and a workbook holding exactly the CSV's cells", async () => {
    const sub = await create("Daily revenue by gateway");
    expect(await sendSubscription(deps(), sub, false)).toEqual({ inbox: 0, emails: 1 });
    const [mail] = await sendQueued();
    expect(mail!.to).toEqual(["cfo@test.local"]);
    expect(mail!.parsed.text).toContain("attached as CSV and as an Excel workbook");
    const files = mail!.parsed.attachments;
    // The CSV comes first however the formats were chosen.
    expect(files.map((f) => f.filename?.split(".").pop())).toEqual(["csv", "xlsx"]);
    expect(files.map((f) => f.contentType).sort()).toEqual(["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "text/csv"]);
    const csv = parseCsv(files.find((f) => f.filename?.endsWith(".csv"))!.content.toString("utf8"));
    const xlsx = files.find((f) => f.filename?.endsWith(".xlsx"))!;
    const book = await readWorkbook(xlsx.content);
    const blank = csv.findIndex((l) => l.length === 1 && l[0] === "");
    expect(questionLines(book)).toEqual(csv.slice(0, blank));
    const [question, table] = book.worksheets;
    expect(question!.name).toBe("Question");
    const rows = csv.slice(blank + 1);
    expect(rows.length).toBeGreaterThan(3);
    expect(sheetAsCsvRows(table!, rows[0]!.length)).toEqual(rows);
    // Days are dates, amounts numbers in the currency's format, the rate a percentage.
    expect(table!.getCell("A2").value).toBeInstanceOf(Date);
    const revenue = rows[0]!.findIndex((h) => h.startsWith("Revenue"));
    expect(typeof table!.getRow(2).getCell(revenue + 1).value).toBe("number");
    expect(table!.getRow(2).getCell(rows[0]!.findIndex((h) => h.startsWith("Approval rate")) + 1).numFmt).toBe("0.00%");
  });

  it("sends nothing when the workbook cannot be made, and tells the owner in the inbox", async () => {
    const sub = await create("Weekly revenue by gateway");
    const before = (await inboxRepo(store).list(owner.id)).length;
    const failing = async () => {
      throw new Error("disk full");
    };
    await expect(sendSubscription({ ...deps(), workbook: failing }, sub, false)).rejects.toThrow(/Excel workbook could not be made \(disk full\)/);
    expect(await sendQueued()).toHaveLength(0);
    const inbox = await inboxRepo(store).list(owner.id);
    expect(inbox).toHaveLength(before + 1);
    expect(inbox[0]).toMatchObject({ title: "Scheduled report not sent: Weekly revenue by gateway", body: expect.stringContaining("Nothing was sent") });
  });

  // Every byte value, so a file that went through the outbox as text would come out changed.
  const PDF_BYTES = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.from(Array.from({ length: 256 }, (_, i) => i))]);

  it("carries the CSV, the workbook and the PDF in one e-mail, in that order however they were chosen", async () => {
    const sub = await create("Monthly board pack", ["pdf", "xlsx", "csv"]);
    const pdf: PdfMaker = async () => ({ pdf: PDF_BYTES, fileName: "Monthly-board-pack.pdf" });
    expect(await sendSubscription({ ...deps(), pdf }, sub, false)).toEqual({ inbox: 0, emails: 1 });
    const [mail] = await sendQueued();
    const files = mail!.parsed.attachments;
    expect(files.map((f) => [f.filename?.split(".").pop(), f.contentType])).toEqual([
      ["csv", "text/csv"],
      ["xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"],
      ["pdf", "application/pdf"],
    ]);
    expect(Buffer.compare(files[2]!.content, PDF_BYTES)).toBe(0);
    const csv = parseCsv(files[0]!.content.toString("utf8"));
    const blank = csv.findIndex((l) => l.length === 1 && l[0] === "");
    const rows = csv.slice(blank + 1);
    expect(sheetAsCsvRows((await readWorkbook(files[1]!.content)).worksheets[1]!, rows[0]!.length)).toEqual(rows);
    expect(mail!.parsed.text).toContain("attached as CSV and as an Excel workbook");
    expect(mail!.parsed.text).toContain("The report is attached as PDF, as it looks on screen.");
  });

  it("makes no PDF and sends nothing when the workbook cannot be made, and tells the owner once", async () => {
    const sub = await create("Quarterly board pack", ["csv", "xlsx", "pdf"]);
    const before = (await inboxRepo(store).list(owner.id)).length;
    let pdfs = 0;
    const pdf: PdfMaker = async () => {
      pdfs += 1;
      return { pdf: PDF_BYTES, fileName: "Quarterly-board-pack.pdf" };
    };
    const failing = async () => {
      throw new Error("disk full");
    };
    await expect(sendSubscription({ ...deps(), pdf, workbook: failing }, sub, false)).rejects.toThrow(/^The Excel workbook could not be made \(disk full\)\. This issue was not sent\.$/);
    expect(pdfs).toBe(0);
    expect(await sendQueued()).toHaveLength(0);
    const inbox = await inboxRepo(store).list(owner.id);
    expect(inbox).toHaveLength(before + 1);
    expect(inbox[0]).toMatchObject({ title: "Scheduled report not sent: Quarterly board pack", body: expect.stringContaining("The Excel workbook could not be made (disk full).") });
  });

  it("sends neither the CSV nor the workbook when the PDF cannot be made", async () => {
    const sub = await create("Yearly board pack", ["csv", "xlsx", "pdf"]);
    const before = (await inboxRepo(store).list(owner.id)).length;
    const pdf: PdfMaker = async () => {
      throw new Error("no Chromium here");
    };
    await expect(sendSubscription({ ...deps(), pdf }, sub, false)).rejects.toThrow(/^The PDF could not be made \(no Chromium here\)\. This issue was not sent\.$/);
    expect(await sendQueued()).toHaveLength(0);
    const inbox = await inboxRepo(store).list(owner.id);
    expect(inbox).toHaveLength(before + 1);
    expect(inbox[0]).toMatchObject({ title: "Scheduled report not sent: Yearly board pack", body: expect.stringContaining("The PDF could not be made (no Chromium here).") });
  });
});
