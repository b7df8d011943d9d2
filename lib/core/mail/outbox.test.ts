/**
 * The mail outbox over a real PGlite store (and a real PostgreSQL server where one is installed), sent
 * by the real worker through nodemailer to a real SMTP server (smtp-server) on 127.0.0.1, read back
 * with mailparser: content and attachments intact, each row sent once by competing workers, retries
 * with backoff, bounces, secrets kept out of the logs, and mail off.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerSession } from "smtp-server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "@/lib/core/store/open";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { postgresBinDir, startTestPostgres, type TestPostgres } from "@/lib/core/store/testing/postgres";
import { outboxRepo } from "./outbox";
import { MailWorker, type MailWorkerOptions } from "./worker";
import type { MailOn } from "./transport";

interface Received {
  from: string;
  to: string[];
  raw: Buffer;
  user?: string;
}

interface TestSmtp {
  port: number;
  received: Received[];
  /** RCPT TO attempts per address, refused ones included. */
  rcptAttempts: Map<string, number[]>;
  close(): Promise<void>;
}

interface SmtpHooks {
  /** An error (with `responseCode`) refuses the recipient. */
  rcpt?: (address: string, attempt: number) => Error | undefined;
  auth?: (auth: SMTPServerAuthentication) => Error | undefined;
}

const smtpError = (responseCode: number, message: string) => Object.assign(new Error(message), { responseCode });

async function startSmtp(hooks: SmtpHooks = {}): Promise<TestSmtp> {
  const received: Received[] = [];
  const rcptAttempts = new Map<string, number[]>();
  const server = new SMTPServer({
    secure: false,
    disabledCommands: hooks.auth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    authOptional: !hooks.auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      const err = hooks.auth?.(auth);
      if (err) callback(err);
      else callback(null, { user: auth.username });
    },
    onRcptTo(address, _session, callback) {
      const times = rcptAttempts.get(address.address) ?? [];
      times.push(Date.now());
      rcptAttempts.set(address.address, times);
      callback(hooks.rcpt?.(address.address, times.length) ?? null);
    },
    onData(stream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          ...(typeof session.user === "string" ? { user: session.user } : {}),
        });
        callback();
      });
    },
  });
  server.on("error", () => {}); // a client's dropped connection is not the test's failure
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, received, rcptAttempts, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const mailTo = (port: number, extra: Partial<MailOn> = {}): MailOn => ({
  enabled: true,
  host: "127.0.0.1",
  port,
  tls: "none",
  from: "Payments alerts <alerts@test.local>",
  ...extra,
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let dir: string;
let store: Store;
const servers: TestSmtp[] = [];
const workers: MailWorker[] = [];

async function smtp(hooks?: SmtpHooks): Promise<TestSmtp> {
  const s = await startSmtp(hooks);
  servers.push(s);
  return s;
}

function worker(options: Omit<MailWorkerOptions, "db"> & { db?: Store }): MailWorker {
  const w = new MailWorker({ db: store, log: () => {}, ...options });
  workers.push(w);
  return w;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mail-outbox-"));
  store = await openTestPglite(dir, "mail test");
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await store.exec("DELETE FROM mail_outbox; DELETE FROM mail_bounces;");
});

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const RULE_ID = "3f1c8a5e-6b0e-4c62-9a53-2f1f9b8d7c41";
const CSV = 'gateway,approval_rate,revenue\r\nadyen,0.912,"1,204.50"\r\n"Stripe, EU",0.884,980.00\r\nPayPal — Zahlung,0.75,12.00\r\n';

describe("outbox", () => {
  it("delivers a message with a CSV attachment intact", async () => {
    const server = await smtp();
    const outbox = outboxRepo(store, { enabled: true });
    const queued = await outbox.enqueue({
      recipients: ["Finance@Example.com"],
      subject: "Täglicher Bericht — Gateways",
      text: "Approval rate fell to 81.2% (threshold 85%).\nOpen: http://localhost:3000/alerts/1",
      html: "<p>Approval rate fell to <b>81.2%</b></p>",
      attachments: [{ filename: "gateways.csv", content: CSV, contentType: "text/csv" }],
      sourceKind: "alert",
      sourceId: RULE_ID,
    });
    expect(queued).toBe(1);
    expect((await outbox.latestFor("alert", RULE_ID))[0]).toMatchObject({ status: "pending", recipient: "Finance@Example.com", attempts: 0 });

    const counts = await worker({ config: mailTo(server.port) }).tick();
    expect(counts).toEqual({ claimed: 1, sent: 1, retried: 0, failed: 0, bounced: 0 });
    expect(server.received).toHaveLength(1);
    const got = server.received[0]!;
    expect(got.to).toEqual(["Finance@example.com"]); // nodemailer lower-cases the domain
    expect(got.from).toBe("alerts@test.local");

    const mail: ParsedMail = await simpleParser(got.raw);
    expect(mail.subject).toBe("Täglicher Bericht — Gateways");
    expect(mail.text?.trimEnd()).toBe("Approval rate fell to 81.2% (threshold 85%).\nOpen: http://localhost:3000/alerts/1");
    expect(mail.html).toContain("<b>81.2%</b>");
    expect(mail.from?.text).toBe('"Payments alerts" <alerts@test.local>');
    expect(mail.headers.get("auto-submitted")).toBe("auto-generated");
    expect(mail.attachments).toHaveLength(1);
    const csv = mail.attachments[0]!;
    expect(csv.filename).toBe("gateways.csv");
    expect(csv.contentType).toBe("text/csv");
    expect(csv.content.toString("utf8")).toBe(CSV);

    const [status] = await outbox.latestFor("alert", RULE_ID);
    expect(status).toMatchObject({ status: "sent", attempts: 1, lastError: null, nextAttemptAt: null });
    expect(status!.sentAt).toBeInstanceOf(Date);
  });

  it("queues one row per distinct recipient, inside the caller's transaction", async () => {
    const mail = { subject: "s", text: "t", sourceKind: "subscription", sourceId: RULE_ID };
    await expect(
      store.transaction(async (tx) => {
        expect(await outboxRepo(tx, { enabled: true }).enqueue({ ...mail, recipients: ["a@test.local", "b@test.local"] })).toBe(2);
        throw new Error("the caller's work failed");
      }),
    ).rejects.toThrow("the caller's work failed");
    expect(await outboxRepo(store).latestFor("subscription", RULE_ID)).toEqual([]);

    const n = await store.transaction((tx) =>
      outboxRepo(tx, { enabled: true }).enqueue({ ...mail, recipients: ["a@test.local", " A@test.local ", "b@test.local"] }),
    );
    expect(n).toBe(2);
    expect((await outboxRepo(store).latestFor("subscription", RULE_ID)).map((s) => s.recipient).sort()).toEqual(["a@test.local", "b@test.local"]);
  });

  it("refuses anything but one bare address per recipient, queuing nothing", async () => {
    const outbox = outboxRepo(store, { enabled: true });
    for (const bad of ["a@test.local, b@test.local", "Name <a@test.local>", "a@test.local\r\nBcc: x@evil.test", "no-at-sign"]) {
      await expect(outbox.enqueue({ recipients: ["ok@test.local", bad], subject: "s", text: "t", sourceKind: "alert", sourceId: null })).rejects.toThrow(
        /not an e-mail address/,
      );
    }
    expect(await store.query("SELECT 1 FROM mail_outbox")).toEqual([]);
  });

  it("lets a lease hold a row from other workers until it runs out", async () => {
    const outbox = outboxRepo(store, { enabled: true });
    await outbox.enqueue({ recipients: ["a@test.local"], subject: "s", text: "t", sourceKind: "alert", sourceId: null });
    const first = await outbox.claimDue("w1", 10, 0.3);
    expect(first.map((m) => m.attempts)).toEqual([1]);
    expect(await outbox.claimDue("w2", 10, 60)).toEqual([]);
    await sleep(400);
    // w1 died without a word: w2 takes the row over, and the attempt counts.
    const again = await outbox.claimDue("w2", 10, 60);
    expect(again.map((m) => [m.id, m.attempts])).toEqual([[first[0]!.id, 2]]);
  });

  it("sends each row exactly once when two workers tick at the same time", async () => {
    const server = await smtp();
    const recipients = Array.from({ length: 15 }, (_, i) => `user${i}@test.local`);
    await outboxRepo(store, { enabled: true }).enqueue({ recipients, subject: "report", text: "t", sourceKind: "subscription", sourceId: RULE_ID });
    const config = mailTo(server.port);
    const w1 = worker({ config, workerId: "w1", batchSize: 2 });
    const w2 = worker({ config, workerId: "w2", batchSize: 2 });
    let sent = 0;
    for (let round = 0; round < 20; round++) {
      const [a, b] = await Promise.all([w1.tick(), w2.tick()]);
      sent += a.sent + b.sent;
      if (a.claimed + b.claimed === 0) break;
    }
    expect(sent).toBe(15);
    expect(server.received.flatMap((r) => r.to).sort()).toEqual([...recipients].sort());
    const rows = await store.query<{ n: number }>("SELECT count(*)::int AS n FROM mail_outbox WHERE sent_at IS NOT NULL AND attempts = 1");
    expect(rows[0]!.n).toBe(15);
  });

  it("retries a temporary refusal (451) with exponential backoff, then sends", async () => {
    const server = await smtp({ rcpt: (_a, attempt) => (attempt <= 2 ? smtpError(451, "4.3.0 mailbox busy, try later") : undefined) });
    const outbox = outboxRepo(store, { enabled: true });
    await outbox.enqueue({ recipients: ["ops@test.local"], subject: "Alert", text: "t", sourceKind: "alert", sourceId: RULE_ID });
    // A second: wide enough that the tick just after a failed attempt comes before the retry is due even on a busy machine.
    const BASE = 1_000;
    const w = worker({ config: mailTo(server.port), backoff: { baseMs: BASE, maxMs: 10_000 } });

    // After failed attempt n the row waits BASE · 2^(n-1), and no tick takes it before then.
    for (const attempt of [1, 2]) {
      const before = Date.now();
      expect(await w.tick()).toMatchObject({ claimed: 1, retried: 1, sent: 0 });
      const after = Date.now();
      const [pending] = await outbox.latestFor("alert", RULE_ID);
      expect(pending).toMatchObject({ status: "pending", attempts: attempt });
      expect(pending!.lastError).toMatch(/451.*mailbox busy/);
      const wait = pending!.nextAttemptAt!.getTime() - before;
      expect(wait).toBeGreaterThanOrEqual(BASE * 2 ** (attempt - 1));
      // Set during the tick, so no later than its end plus the delay, however long a busy machine made it.
      expect(pending!.nextAttemptAt!.getTime() - after, `next attempt against the tick's end (the tick took ${after - before} ms)`).toBeLessThanOrEqual(BASE * 2 ** (attempt - 1));
      expect((await w.tick()).claimed).toBe(0);
      await sleep(pending!.nextAttemptAt!.getTime() - Date.now() + 20);
    }
    expect(await w.tick()).toMatchObject({ claimed: 1, sent: 1 });

    const times = server.rcptAttempts.get("ops@test.local")!;
    expect(times).toHaveLength(3);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(BASE - 20);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(2 * BASE - 20);
    expect(server.received).toHaveLength(1);
    expect((await outbox.latestFor("alert", RULE_ID))[0]).toMatchObject({ status: "sent", attempts: 3, lastError: null });
  });

  it("fails a row after the last attempt when the server stays unreachable", async () => {
    const gone = await startSmtp();
    const port = gone.port;
    await gone.close(); // connection refused from now on
    const outbox = outboxRepo(store, { enabled: true });
    await outbox.enqueue({ recipients: ["ops@test.local"], subject: "Alert", text: "t", sourceKind: "alert", sourceId: RULE_ID });
    const lines: string[] = [];
    const w = worker({ config: mailTo(port), backoff: { baseMs: 10, maxMs: 20, maxAttempts: 3 }, log: (l) => lines.push(l) });
    const outcomes = [];
    for (let i = 0; i < 3; i++) {
      outcomes.push(await w.tick());
      await sleep(40);
    }
    expect(outcomes.map((c) => [c.retried, c.failed])).toEqual([[1, 0], [1, 0], [0, 1]]);
    const [status] = await outbox.latestFor("alert", RULE_ID);
    expect(status).toMatchObject({ status: "failed", attempts: 3 });
    expect(status!.lastError).toMatch(/ECONNREFUSED|connect/i);
    expect(await outbox.bounces(["ops@test.local"])).toEqual([]);
    const parsed = lines.map((l) => JSON.parse(l) as { level: string; msg: string; code?: string });
    expect(parsed.map((p) => p.level)).toEqual(["warn", "warn", "error"]);
    expect(parsed[2]).toMatchObject({ msg: "mail failed", code: "ESOCKET" });
  });

  it("records a permanent refusal (550) as a bounce, fails only that row, and sends the other", async () => {
    const server = await smtp({ rcpt: (a) => (a === "gone@test.local" ? smtpError(550, "5.1.1 <gone@test.local>: no such user") : undefined) });
    const outbox = outboxRepo(store, { enabled: true });
    await outbox.enqueue({ recipients: ["gone@test.local", "here@test.local"], subject: "Alert", text: "t", sourceKind: "alert", sourceId: RULE_ID });
    const counts = await worker({ config: mailTo(server.port) }).tick();
    expect(counts).toEqual({ claimed: 2, sent: 1, retried: 0, failed: 1, bounced: 1 });
    expect(server.received.map((r) => r.to)).toEqual([["here@test.local"]]);

    const bounces = await outbox.bounces(["Gone@Test.local", "here@test.local"]);
    expect(bounces).toHaveLength(1);
    expect(bounces[0]).toMatchObject({ address: "gone@test.local" });
    expect(bounces[0]!.reason).toMatch(/550.*no such user/);
    const byRecipient = Object.fromEntries((await outbox.latestFor("alert", RULE_ID)).map((s) => [s.recipient, s]));
    expect(byRecipient["here@test.local"]).toMatchObject({ status: "sent" });
    expect(byRecipient["gone@test.local"]).toMatchObject({ status: "failed", attempts: 1 });
    expect(byRecipient["gone@test.local"]!.lastError).toMatch(/550/);

    // No retry: the failed row is never claimed again.
    expect((await outbox.claimDue("later", 10, 60)).length).toBe(0);
  });

  it("signs in with the password and never lets it (or the message) into a log line", async () => {
    const PASSWORD = "Sup3r-Secret-Pa55word!";
    const goodServer = await smtp({ auth: (a) => (a.username === "mailer" && a.password === PASSWORD ? undefined : smtpError(535, "bad login")) });
    const outbox = outboxRepo(store, { enabled: true });
    const mail = {
      recipients: ["ops@test.local"],
      subject: "Alert",
      text: "BODY-MARKER-7731",
      attachments: [{ filename: "a.csv", content: "ATTACHMENT-MARKER-9912", contentType: "text/csv" }],
      sourceKind: "alert",
      sourceId: RULE_ID,
    };
    await outbox.enqueue(mail);
    const config = mailTo(goodServer.port, { user: "mailer" });
    expect(await worker({ config, password: PASSWORD }).tick()).toMatchObject({ sent: 1 });
    expect(goodServer.received[0]).toMatchObject({ user: "mailer" });

    // A server that echoes the credentials it refused (some do) puts the password in nodemailer's error.
    const echoing = await smtp({ auth: (a) => smtpError(535, `5.7.8 authentication failed for ${a.username} with ${a.password}`) });
    await outbox.enqueue(mail);
    const lines: string[] = [];
    const w = worker({ config: mailTo(echoing.port, { user: "mailer" }), password: PASSWORD, log: (l) => lines.push(l) });
    expect(await w.tick()).toMatchObject({ claimed: 1, retried: 1 });
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(JSON.parse(line)).toMatchObject({ level: "warn", msg: "mail send failed, will retry", response_code: 535, to: "ops@test.local" });
    expect(line).toContain("[redacted]");
    for (const secret of [PASSWORD, Buffer.from(PASSWORD).toString("base64"), "BODY-MARKER", "ATTACHMENT-MARKER"]) {
      expect(line).not.toContain(secret);
    }
    const stored = await store.query<{ last_error: string | null }>("SELECT last_error FROM mail_outbox WHERE last_error IS NOT NULL");
    expect(stored).toHaveLength(1);
    expect(stored[0]!.last_error).not.toContain(PASSWORD);
  });

  it("queues nothing when mail is off, and the worker does nothing", async () => {
    const outbox = outboxRepo(store, { enabled: false });
    expect(await outbox.enqueue({ recipients: ["a@test.local"], subject: "s", text: "t", sourceKind: "alert", sourceId: RULE_ID })).toBe(0);
    // Off by default when SMTP_HOST is not set.
    const saved = process.env.SMTP_HOST;
    delete process.env.SMTP_HOST;
    try {
      expect(await outboxRepo(store).enqueue({ recipients: ["a@test.local"], subject: "s", text: "t", sourceKind: "alert", sourceId: RULE_ID })).toBe(0);
    } finally {
      if (saved !== undefined) process.env.SMTP_HOST = saved;
    }
    expect(await store.query("SELECT 1 FROM mail_outbox")).toEqual([]);

    await store.query("INSERT INTO mail_outbox (recipient, subject, text_body, source_kind) VALUES ('a@test.local', 's', 't', 'alert')");
    const off = worker({ config: { enabled: false } });
    off.start();
    expect(await off.tick()).toEqual({ claimed: 0, sent: 0, retried: 0, failed: 0, bounced: 0 });
    expect(await store.query("SELECT 1 FROM mail_outbox WHERE attempts = 0")).toHaveLength(1);
  });

  it("sends on its own once started, and stops", async () => {
    const server = await smtp();
    await outboxRepo(store, { enabled: true }).enqueue({ recipients: ["a@test.local", "b@test.local", "c@test.local"], subject: "s", text: "t", sourceKind: "alert", sourceId: null });
    const w = worker({ config: mailTo(server.port), batchSize: 2, intervalMs: 50 });
    w.start();
    for (let i = 0; i < 100 && server.received.length < 3; i++) await sleep(20);
    await w.stop();
    expect(server.received.flatMap((r) => r.to).sort()).toEqual(["a@test.local", "b@test.local", "c@test.local"]);
    await outboxRepo(store, { enabled: true }).enqueue({ recipients: ["d@test.local"], subject: "s", text: "t", sourceKind: "alert", sourceId: null });
    await sleep(150);
    expect(server.received).toHaveLength(3);
  });
});

// On PostgreSQL the two workers hold separate connections, so their claims truly race.
const pgAvailable = postgresBinDir() !== null;
if (!pgAvailable) console.warn("lib/core/mail/outbox.test.ts: no PostgreSQL server installed (apt-get install postgresql); its PostgreSQL case is skipped");

describe.skipIf(!pgAvailable)("outbox on PostgreSQL", () => {
  let pg: TestPostgres;
  let a: Store;
  let b: Store;

  beforeAll(async () => {
    pg = await startTestPostgres();
    a = await openStore({ kind: "postgres", url: pg.url }, { owner: "mail test a" });
    b = await openStore({ kind: "postgres", url: pg.url }, { owner: "mail test b" });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await pg?.stop();
  });

  it("never lets two workers on separate connections claim the same row", async () => {
    const server = await smtp();
    const recipients = Array.from({ length: 40 }, (_, i) => `user${i}@test.local`);
    expect(await outboxRepo(a, { enabled: true }).enqueue({ recipients, subject: "s", text: "t", sourceKind: "subscription", sourceId: RULE_ID })).toBe(40);

    // Bare claims, many at once on each side: the rows each side got never overlap.
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) => outboxRepo(i % 2 ? a : b).claimDue(`c${i}`, 5, 60)),
    );
    const ids = claims.flat().map((m) => m.id);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
    await a.query("UPDATE mail_outbox SET claimed_by = NULL, lease_until = NULL, attempts = 0");

    const config = mailTo(server.port);
    const w1 = worker({ db: a, config, workerId: "w1", batchSize: 3 });
    const w2 = worker({ db: b, config, workerId: "w2", batchSize: 3 });
    for (let round = 0; round < 40; round++) {
      const [x, y] = await Promise.all([w1.tick(), w2.tick()]);
      if (x.claimed + y.claimed === 0) break;
    }
    expect(server.received.flatMap((r) => r.to).sort()).toEqual([...recipients].sort());
    const rows = await a.query<{ n: number }>("SELECT count(*)::int AS n FROM mail_outbox WHERE sent_at IS NOT NULL AND attempts = 1");
    expect(rows[0]!.n).toBe(40);
  });
});
