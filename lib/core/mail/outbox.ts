import "server-only";
/**
 * The mail outbox: alert and scheduled-report e-mail waits in `mail_outbox` (migration 7),
 * one row per recipient, until a `MailWorker` sends it through the mail server.
 *
 * - Callers queue mail with `outboxRepo(tx).enqueue(…)` inside the transaction that records the event
 *   (the alert's evaluation, the subscription's run), so that mail is queued if and only if the event
 *   is recorded. When mail is off (no SMTP_HOST) `enqueue` writes nothing and returns 0: callers write
 *   the in-app inbox regardless, and nothing piles up waiting for a mail server that isn't there.
 * - Workers in any number of processes claim due rows with a lease (`FOR UPDATE SKIP LOCKED`), so a row
 *   is sent by one worker at a time; a worker that dies mid-send leaves a lease that runs out, and the
 *   row is claimed again.
 * - A permanent refusal of the recipient (SMTP 5xx to RCPT TO) records a bounce and fails the row; any
 *   other failure (connection refused, timeouts, 4xx, a 5xx to another command) is retried with
 *   exponential backoff (1 min, 2, 4, … at most 1 h apart, 8 attempts), then the row fails.
 * - Log lines are one JSON object each and carry no password, message body or attachment.
 */
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Sql } from "@/lib/core/store/sql";
import { createTransport, type MailConfig, type MailTransport } from "./transport";

export interface MailAttachment {
  filename: string;
  /** The attachment's text (a CSV, say), sent as UTF-8; with `encoding` "base64", a binary file's bytes in base64 (a workbook, a PDF). */
  content: string;
  contentType: string;
  encoding?: "base64";
}

export interface OutgoingMail {
  recipients: readonly string[];
  subject: string;
  text: string;
  html?: string;
  attachments?: readonly MailAttachment[];
  /** What sent it, e.g. "alert" or "subscription"; with `sourceId`, what `latestFor` looks up. */
  sourceKind: string;
  /** The rule's or subscription's id (a uuid), or null. */
  sourceId: string | null;
  /** The user whose rule or subscription it is: their mail per day is counted (lib/features/notifications/policy.ts). */
  ownerId?: string | null;
}

/** A row a worker has claimed: everything needed to send it. */
export interface OutboxMessage {
  id: number;
  recipient: string;
  subject: string;
  text: string;
  html: string | null;
  attachments: MailAttachment[];
  sourceKind: string;
  sourceId: string | null;
  /** Attempts so far, this one included. */
  attempts: number;
}

export type MailStatusKind = "sent" | "pending" | "failed";

/** What became of one queued message, for showing on the rule or subscription that sent it. */
export interface MailStatus {
  id: number;
  recipient: string;
  subject: string;
  status: MailStatusKind;
  createdAt: Date;
  attempts: number;
  sentAt: Date | null;
  failedAt: Date | null;
  /** When a pending message is next tried. */
  nextAttemptAt: Date | null;
  /** Why the last attempt failed (a pending message being retried, or a failed one). */
  lastError: string | null;
}

export interface Bounce {
  address: string;
  at: Date;
  reason: string;
}

export interface OutboxOptions {
  /**
   * Whether mail is on; when false `enqueue` queues nothing and returns 0. Defaults to whether
   * SMTP_HOST is set in this process's environment (which the server validated at start).
   */
  enabled?: boolean;
}

/** Whether mail is on in `env`: the same rule as `mailConfigFrom` (SMTP_HOST set; MAIL_FROM is then required). */
export function mailOn(env: Record<string, string | undefined> = process.env): boolean {
  return (env.SMTP_HOST ?? "").trim() !== "";
}

// One bare address, as the outbox sends to it: nodemailer would read "a@x, b@x" as two recipients.
const ADDRESS = /^[^\s@<>()",;:\\]+@[^\s@<>()",;:\\]+$/;

export function isMailAddress(address: string): boolean {
  return ADDRESS.test(address) && address.length <= 320;
}

const MAX_ERROR_CHARS = 1000;

interface OutboxRow {
  id: number | string;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  attachments: unknown;
  source_kind: string;
  source_id: string | null;
  attempts: number;
}

interface StatusRow {
  id: number | string;
  recipient: string;
  subject: string;
  created_at: Date | string;
  attempts: number;
  sent_at: Date | string | null;
  failed_at: Date | string | null;
  next_attempt_at: Date | string | null;
  last_error: string | null;
}

const dateOrNull = (v: Date | string | null): Date | null => (v === null ? null : new Date(v));

function toMessage(r: OutboxRow): OutboxMessage {
  const raw = typeof r.attachments === "string" ? (JSON.parse(r.attachments) as unknown) : r.attachments;
  return {
    id: Number(r.id),
    recipient: r.recipient,
    subject: r.subject,
    text: r.text_body,
    html: r.html_body,
    attachments: Array.isArray(raw) ? (raw as MailAttachment[]) : [],
    sourceKind: r.source_kind,
    sourceId: r.source_id,
    attempts: Number(r.attempts),
  };
}

function toStatus(r: StatusRow): MailStatus {
  const sentAt = dateOrNull(r.sent_at);
  const failedAt = dateOrNull(r.failed_at);
  return {
    id: Number(r.id),
    recipient: r.recipient,
    subject: r.subject,
    status: sentAt ? "sent" : failedAt ? "failed" : "pending",
    createdAt: new Date(r.created_at),
    attempts: Number(r.attempts),
    sentAt,
    failedAt,
    nextAttemptAt: sentAt || failedAt ? null : dateOrNull(r.next_attempt_at),
    lastError: r.last_error,
  };
}

/** The outbox over `db`: the store, or the `tx` of the caller's transaction. */
export function outboxRepo(db: Sql, options: OutboxOptions = {}) {
  const enabled = options.enabled ?? mailOn();
  return {
    /**
     * Queues one row per distinct recipient; returns how many (0 when mail is off). Throws on an
     * address that is not a single bare `local@domain`, queuing nothing.
     */
    async enqueue(mail: OutgoingMail): Promise<number> {
      if (!enabled) return 0;
      const seen = new Set<string>();
      const recipients: string[] = [];
      for (const r of mail.recipients) {
        const address = r.trim();
        if (!isMailAddress(address)) throw new Error(`not an e-mail address: ${JSON.stringify(address.slice(0, 80))}`);
        if (seen.has(address.toLowerCase())) continue;
        seen.add(address.toLowerCase());
        recipients.push(address);
      }
      if (recipients.length === 0) return 0;
      const attachments = (mail.attachments ?? []).map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType, ...(a.encoding ? { encoding: a.encoding } : {}) }));
      const rows = await db.query(
        `INSERT INTO mail_outbox (recipient, subject, text_body, html_body, attachments, source_kind, source_id, owner_id)
         SELECT r, $2, $3, $4, $5::jsonb, $6, $7::uuid, $8::uuid FROM unnest($1::text[]) WITH ORDINALITY AS t(r, n) ORDER BY n
         RETURNING id`,
        [recipients, mail.subject, mail.text, mail.html ?? null, JSON.stringify(attachments), mail.sourceKind, mail.sourceId, mail.ownerId ?? null],
      );
      return rows.length;
    },

    /**
     * Takes up to `limit` due rows for `workerId` until `leaseSeconds` from now, counting an attempt on
     * each. Rows another worker holds (row lock or unexpired lease) are skipped, never waited for.
     */
    async claimDue(workerId: string, limit: number, leaseSeconds: number): Promise<OutboxMessage[]> {
      const rows = await db.query<OutboxRow>(
        `UPDATE mail_outbox
            SET claimed_by = $1, lease_until = now() + make_interval(secs => $3::float8), attempts = attempts + 1
          WHERE id IN (
            SELECT id FROM mail_outbox
             WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()
               AND (lease_until IS NULL OR lease_until < now())
             ORDER BY next_attempt_at, id
             LIMIT $2
             FOR UPDATE SKIP LOCKED)
          RETURNING id, recipient, subject, text_body, html_body, attachments, source_kind, source_id, attempts`,
        [workerId, limit, leaseSeconds],
      );
      return rows.map(toMessage).sort((a, b) => a.id - b.id);
    },

    async markSent(id: number): Promise<void> {
      await db.query(
        "UPDATE mail_outbox SET sent_at = now(), claimed_by = NULL, lease_until = NULL, last_error = NULL WHERE id = $1",
        [id],
      );
    },

    /** Back to pending, tried again from `nextAttemptAt`. */
    async markRetry(id: number, error: string, nextAttemptAt: Date): Promise<void> {
      await db.query(
        "UPDATE mail_outbox SET next_attempt_at = $3, last_error = $2, claimed_by = NULL, lease_until = NULL WHERE id = $1",
        [id, error.slice(0, MAX_ERROR_CHARS), nextAttemptAt],
      );
    },

    /** Given up for good. */
    async markFailed(id: number, error: string): Promise<void> {
      await db.query(
        "UPDATE mail_outbox SET failed_at = now(), last_error = $2, claimed_by = NULL, lease_until = NULL WHERE id = $1",
        [id, error.slice(0, MAX_ERROR_CHARS)],
      );
    },

    /** The mail server refused `address` for good; the latest reason is kept. Addresses are kept lower-case. */
    async recordBounce(address: string, reason: string): Promise<void> {
      await db.query(
        `INSERT INTO mail_bounces (address, reason) VALUES ($1, $2)
         ON CONFLICT (address) DO UPDATE SET at = now(), reason = EXCLUDED.reason`,
        [address.trim().toLowerCase(), reason.slice(0, MAX_ERROR_CHARS)],
      );
    },

    /** The bounces among `addresses` (compared case-insensitively), e.g. a rule's recipients. */
    async bounces(addresses: readonly string[]): Promise<Bounce[]> {
      if (addresses.length === 0) return [];
      const rows = await db.query<{ address: string; at: Date | string; reason: string }>(
        "SELECT address, at, reason FROM mail_bounces WHERE address = ANY($1::text[]) ORDER BY address",
        [addresses.map((a) => a.trim().toLowerCase())],
      );
      return rows.map((r) => ({ address: r.address, at: new Date(r.at), reason: r.reason }));
    },

    /** The latest `limit` messages one rule or subscription queued, newest first, with what became of each. */
    async latestFor(sourceKind: string, sourceId: string, limit = 20): Promise<MailStatus[]> {
      const rows = await db.query<StatusRow>(
        `SELECT id, recipient, subject, created_at, attempts, sent_at, failed_at, next_attempt_at, last_error
           FROM mail_outbox WHERE source_kind = $1 AND source_id = $2::uuid
          ORDER BY created_at DESC, id DESC LIMIT $3`,
        [sourceKind, sourceId, limit],
      );
      return rows.map(toStatus);
    },
  };
}

export type OutboxRepo = ReturnType<typeof outboxRepo>;

export interface Backoff {
  /** Wait after the first failed attempt; doubled after each further one. */
  baseMs: number;
  /** The longest wait between attempts. */
  maxMs: number;
  /** Attempts in all before a message fails for good. */
  maxAttempts: number;
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 60_000, maxMs: 3_600_000, maxAttempts: 8 };

/** The wait after failed attempt number `attempt` (1-based): base, 2·base, 4·base, … capped at max. */
export function retryDelayMs(attempt: number, backoff: Backoff = DEFAULT_BACKOFF): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  return Math.min(backoff.baseMs * 2 ** exponent, backoff.maxMs);
}

export interface MailWorkerOptions {
  db: Sql;
  config: MailConfig;
  /** SMTP_PASSWORD; used for the transport and to scrub log lines, never logged or stored. */
  password?: string;
  /** A transport to send through instead of one made from `config` (whose `from` is still the sender). */
  transport?: MailTransport;
  /** Names this worker's claims; unique per process by default. */
  workerId?: string;
  /** Rows claimed per tick. */
  batchSize?: number;
  /** How long a claim holds; longer than a send can take (transport timeouts are 30–60 s). */
  leaseSeconds?: number;
  /** Between ticks while `start()`ed. */
  intervalMs?: number;
  backoff?: Partial<Backoff>;
  /** Where the JSON log lines go; console.error by default. */
  log?: (line: string) => void;
}

export interface TickCounts {
  claimed: number;
  sent: number;
  retried: number;
  /** Failed for good, bounced ones included. */
  failed: number;
  bounced: number;
}

type Outcome = { kind: "bounce"; reason: string } | { kind: "fail"; reason: string } | { kind: "retry"; reason: string };

interface SmtpErrorLike {
  message?: unknown;
  code?: unknown;
  responseCode?: unknown;
  command?: unknown;
  rejected?: unknown;
}

/** What a failed send means for its row: a bounce, a failure for good, or another try later. */
export function classifySendError(e: unknown): Outcome {
  const err = (typeof e === "object" && e !== null ? e : {}) as SmtpErrorLike;
  const reason = typeof err.message === "string" ? err.message : String(e);
  const code = typeof err.responseCode === "number" ? err.responseCode : 0;
  const rejected = Array.isArray(err.rejected) && err.rejected.length > 0;
  // The server refused the recipient for good: no point trying again, and the owner should know.
  if (code >= 500 && code < 600 && (err.command === "RCPT TO" || rejected)) return { kind: "bounce", reason };
  // nodemailer refused to send it at all (e.g. an address it cannot parse): the same every time.
  if (err.command === "API" && (err.code === "EENVELOPE" || err.code === "EMESSAGE")) return { kind: "fail", reason };
  return { kind: "retry", reason };
}

/** Sends what the outbox holds, a batch per tick. Does nothing when mail is off. */
export class MailWorker {
  readonly workerId: string;
  private readonly repo: OutboxRepo;
  private readonly config: MailConfig;
  private readonly secrets: string[];
  private readonly batchSize: number;
  private readonly leaseSeconds: number;
  private readonly intervalMs: number;
  private readonly backoff: Backoff;
  private readonly log: (line: string) => void;
  private readonly transport: MailTransport | null;
  private readonly ownsTransport: boolean;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private started = false;
  private generation = 0;

  constructor(options: MailWorkerOptions) {
    this.config = options.config;
    this.repo = outboxRepo(options.db, { enabled: options.config.enabled });
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
    this.batchSize = options.batchSize ?? 10;
    this.leaseSeconds = options.leaseSeconds ?? 300;
    this.intervalMs = options.intervalMs ?? 10_000;
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.log = options.log ?? ((line) => console.error(line));
    const password = options.password ?? "";
    // The password as typed, and as it would travel in AUTH PLAIN / LOGIN, never reaches a log line.
    this.secrets = password
      ? [
          password,
          Buffer.from(password).toString("base64"),
          ...(this.config.enabled && this.config.user ? [Buffer.from(`\0${this.config.user}\0${password}`).toString("base64")] : []),
        ]
      : [];
    this.ownsTransport = options.transport === undefined;
    this.transport = options.transport ?? (this.config.enabled ? createTransport(this.config, options.password) : null);
  }

  /** Ticks every `intervalMs` (at once again while a full batch came back) until `stop()`. */
  start(): void {
    if (this.started || !this.config.enabled) return;
    this.started = true;
    const generation = ++this.generation;
    const loop = (delay: number) => {
      this.timer = setTimeout(() => {
        this.timer = null;
        const run = this.tick().then(
          (c) => c.claimed >= this.batchSize,
          (e: unknown) => {
            this.write("error", { msg: "mail worker tick failed", error: this.scrub(e instanceof Error ? e.message : String(e)) });
            return false;
          },
        );
        this.running = run;
        void run.then((more) => {
          this.running = null;
          if (this.started && this.generation === generation) loop(more ? 0 : this.intervalMs);
        });
      }, delay);
      this.timer.unref();
    };
    loop(0);
  }

  /** Stops ticking, waits for a send under way, and closes the transport. */
  async stop(): Promise<void> {
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    // One connection per message: closing drops nothing queued, and a later start() or tick() still sends.
    if (this.ownsTransport) this.transport?.close();
  }

  /** Claims due rows and sends each; returns what became of them. */
  async tick(): Promise<TickCounts> {
    const counts: TickCounts = { claimed: 0, sent: 0, retried: 0, failed: 0, bounced: 0 };
    const config = this.config;
    const transport = this.transport;
    if (!config.enabled || !transport) return counts;
    const due = await this.repo.claimDue(this.workerId, this.batchSize, this.leaseSeconds);
    counts.claimed = due.length;
    for (const m of due) {
      let outcome: Outcome;
      try {
        const info = await transport.sendMail({
          from: config.from,
          to: m.recipient,
          subject: m.subject,
          text: m.text,
          ...(m.html !== null ? { html: m.html } : {}),
          attachments: m.attachments.map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType, ...(a.encoding ? { encoding: a.encoding } : {}) })),
          // RFC 3834: machine-made, so out-of-office replies don't answer it.
          headers: { "Auto-Submitted": "auto-generated" },
        });
        const refused = (info.rejected ?? []).map((r) => (typeof r === "string" ? r : r.address).toLowerCase());
        if (!refused.includes(m.recipient.toLowerCase())) {
          await this.repo.markSent(m.id);
          counts.sent += 1;
          continue;
        }
        // Set by nodemailer's SMTP connection, though SMTPTransport's typings leave it out.
        const rejection = (info as { rejectedErrors?: { response?: string; message: string }[] }).rejectedErrors?.[0];
        outcome = { kind: "bounce", reason: rejection?.response ?? rejection?.message ?? "recipient rejected" };
        this.logFailure(m, outcome, rejection);
      } catch (e) {
        outcome = classifySendError(e);
        this.logFailure(m, outcome, e);
      }
      const reason = this.scrub(outcome.reason);
      if (outcome.kind === "bounce") {
        await this.repo.recordBounce(m.recipient, reason);
        await this.repo.markFailed(m.id, reason);
        counts.bounced += 1;
        counts.failed += 1;
      } else if (outcome.kind === "fail" || m.attempts >= this.backoff.maxAttempts) {
        await this.repo.markFailed(m.id, reason);
        counts.failed += 1;
      } else {
        await this.repo.markRetry(m.id, reason, new Date(Date.now() + retryDelayMs(m.attempts, this.backoff)));
        counts.retried += 1;
      }
    }
    return counts;
  }

  private logFailure(m: OutboxMessage, outcome: Outcome, e: unknown): void {
    const err = (typeof e === "object" && e !== null ? e : {}) as SmtpErrorLike;
    const givingUp = outcome.kind !== "retry" || m.attempts >= this.backoff.maxAttempts;
    this.write(givingUp ? "error" : "warn", {
      msg: outcome.kind === "bounce" ? "mail bounced" : givingUp ? "mail failed" : "mail send failed, will retry",
      outbox_id: m.id,
      to: m.recipient,
      source_kind: m.sourceKind,
      attempt: m.attempts,
      ...(typeof err.code === "string" ? { code: err.code } : {}),
      ...(typeof err.responseCode === "number" ? { response_code: err.responseCode } : {}),
      ...(typeof err.command === "string" ? { command: this.scrub(err.command) } : {}),
      error: this.scrub(outcome.reason),
    });
  }

  private write(level: "warn" | "error", fields: Record<string, unknown>): void {
    this.log(JSON.stringify({ level, ...fields }));
  }

  /** Removes the password (and its encodings) from text bound for a log line or the outbox. */
  private scrub(text: string): string {
    let out = text;
    for (const s of this.secrets) out = out.split(s).join("[redacted]");
    return out.slice(0, MAX_ERROR_CHARS);
  }
}
