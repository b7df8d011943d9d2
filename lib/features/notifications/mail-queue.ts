import "server-only";
/**
 * The mail end of an alert's and a scheduled report's life: the message queued in the outbox
 * (lib/core/mail/outbox.ts) in the same transaction that records the evaluation or the send, bounded
 * by the owner's mail per day; and whether mail is on at all.
 */
import { serverEnv } from "@/lib/core/env/env";
import { outboxRepo } from "@/lib/core/mail/outbox";
import { describeMail, mailConfigFrom } from "@/lib/core/mail/transport";
import type { Sql } from "@/lib/core/store/sql";
import { MAIL_POLICY_DEFAULTS, checkDailyMail, type MailPolicy } from "./policy";

/** Where mail goes: queued in the same transaction as the evaluation (lib/core/mail/outbox.ts), or nowhere when mail is off. */
export interface MailQueue {
  enabled: boolean;
  /**
   * Queues the message; throws MailLimitError (lib/features/notifications/policy.ts), queuing nothing, when it would
   * take `ownerId` past the mail a user's automation may send a day.
   */
  enqueue(
    tx: Sql,
    message: { recipients: string[]; subject: string; text: string; html?: string; attachments?: { filename: string; content: string; contentType: string; encoding?: "base64" }[]; sourceKind: string; sourceId: string; ownerId: string },
  ): Promise<number>;
}

/** The outbox, bounded by the owner's mail per day (a refusal queues nothing and names the limit). */
export function mailQueue(enabled: boolean, policy: MailPolicy = MAIL_POLICY_DEFAULTS): MailQueue {
  return {
    enabled,
    enqueue: async (tx, message) => {
      if (!enabled) return 0;
      const distinct = new Set(message.recipients.map((r) => r.trim().toLowerCase())).size;
      await checkDailyMail(tx, message.ownerId, distinct, policy);
      return outboxRepo(tx, { enabled }).enqueue(message);
    },
  };
}

/** "E-mail is on: …" or "E-mail is off: …", for the alerts page (never the password). */
export function mailStatusLine(): string {
  return describeMail(mailConfigFrom(serverEnv()));
}
