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
 *   row is claimed again. The sending loop is `MailWorker` (./worker.ts); this module is the table.
 */
import type { Sql } from "@/lib/core/store/sql";
import type { Bounce, MailStatus } from "./model";

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

/** The longest error or bounce reason kept on a row. */
export const MAX_ERROR_CHARS = 1000;

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
