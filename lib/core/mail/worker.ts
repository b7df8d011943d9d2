import "server-only";
/**
 * The mail worker: the sending loop over the outbox (./outbox.ts). Each tick claims due rows, sends
 * each through the mail server and records what became of it.
 *
 * - A permanent refusal of the recipient (SMTP 5xx to RCPT TO) records a bounce and fails the row; any
 *   other failure (connection refused, timeouts, 4xx, a 5xx to another command) is retried with
 *   exponential backoff (1 min, 2, 4, … at most 1 h apart, 8 attempts), then the row fails.
 * - Log lines are one JSON object each and carry no password, message body or attachment.
 */
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Sql } from "@/lib/core/store/sql";
import { MAX_ERROR_CHARS, outboxRepo, type OutboxMessage, type OutboxRepo } from "./outbox";
import { createTransport, type MailConfig, type MailTransport } from "./transport";

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
