/**
 * What the outbox tells of the mail it sent: each message's fate and the addresses the mail server
 * refused, as the server holds them and as the API sends them (dates as ISO strings). Types only,
 * so the pages that show them import no outbox code.
 */

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

/** An address the mail server refused for good. */
export interface Bounce {
  address: string;
  at: Date;
  reason: string;
}

/** A record as the API sends it: its dates as ISO strings. */
type AsJson<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };

export type MailStatusJson = AsJson<MailStatus>;
export type BounceJson = AsJson<Bounce>;
