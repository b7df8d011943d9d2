import "server-only";
/**
 * One scheduled report's issue for one slot, built and sent: the report drawn as its share link draws
 * it (queued at the lowest priority, or in the turn of the person who pressed "Send now"), its files
 * (./issue-attachments.ts), the e-mail of each audience (./issue-message.ts) with the link each
 * reader may open (./issue-audience.ts), and the inbox message. The preview is built by the same code
 * (without the PDF, made only when sending), and only the sending queues anything. An attachment
 * that cannot be made stops the issue: nothing is sent without it, and the owner is told in the inbox.
 */
import type { WorkbookSpec } from "@/lib/report/table/xlsx";
import { workbookBytes } from "@/lib/report/table/xlsx-stream";
import type { MailQueue } from "@/lib/features/notifications/mail-queue";
import { renderSavedReport } from "@/lib/features/sharing/view";
import { inboxRepo } from "@/lib/features/notifications/inbox-store";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import type { Sql, Store } from "@/lib/core/store/sql";
import type { Subscription } from "@/lib/features/notifications/model";
import { BACKGROUND_OWNER, type ReportGateway } from "@/lib/core/upstream/gateway";
import { unseal } from "@/lib/features/sharing/seal";
import { MAIL_POLICY_DEFAULTS, type MailPolicy } from "@/lib/features/notifications/policy";
import { appendAudit, userActor } from "@/lib/core/audit/log";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import type { QueuePlace } from "@/lib/report/client/queue-words";
import { AttachmentError, attachmentsOf, mailTables, pdfAttachment, type PdfMaker, type RetryClock } from "./issue-attachments";
import { composeReportMail, type ReportMail } from "./issue-message";
import { audienceOf, inAppPath, type Audience } from "./issue-audience";

export interface SubscriptionDeps {
  db: Store;
  gateway: ReportGateway;
  timeZone: string;
  secret: string;
  baseUrl: string;
  mail: MailQueue;
  waitMs: number;
  /** The mail policy (its defaults unless given). */
  policy?: MailPolicy;
  /** Whose turn its reports queue in: the background (scheduled slots) unless a person asked. */
  owner?: string;
  /** Makes the report's PDF as its owner sees it (lib/features/sharing/pdf.ts); without it a PDF attachment cannot be made. */
  pdf?: PdfMaker;
  /** Writes a workbook's bytes (exceljs's streaming writer unless given). */
  workbook?: (spec: WorkbookSpec) => Promise<Buffer>;
  /** How a scheduled PDF waits before asking the renderer again (the real clock unless given). */
  clock?: RetryClock;
}

/** One e-mail of an issue: the same message to every address of one audience. */
export interface IssueMail extends ReportMail {
  audience: Audience;
  to: string[];
}

/**
 * The next issue of a subscription, as it would be sent now: the e-mails (one per audience), the
 * users told in their inbox, and the addresses the mail policy leaves out.
 */
export interface SubscriptionIssue {
  mails: IssueMail[];
  inbox: { userIds: string[]; title: string; body: string; link: string };
  /** "not sent to …: …" when the policy leaves addresses out, else null. */
  refused: string | null;
}

/** The report's data is still queued: where it waits, for the preview's waiting words. */
export interface IssuePending {
  kind: "pending";
  /** Why nothing was built yet, in words. */
  reason: string;
  queue: QueuePlace | null;
  retryAfterSeconds: number;
}

/**
 * Builds the next issue of `sub` exactly as it would be sent now, sending nothing: the report drawn
 * (queued like any report), the e-mail of each audience and the inbox message. `pending` while the
 * report's data is still queued after `deps.waitMs`.
 */
export async function buildSubscriptionIssue(
  deps: Omit<SubscriptionDeps, "mail">,
  sub: Subscription,
  late: boolean,
  db: Sql = deps.db,
): Promise<{ kind: "ready"; issue: SubscriptionIssue } | IssuePending> {
  const report = await savedReportsRepo(db).get(sub.reportId);
  if (!report) throw new Error("The report was deleted.");
  const token = sub.shareTokenSealed ? unseal(sub.shareTokenSealed, deps.secret) : null;
  if (sub.shareTokenSealed && !token) throw new Error("The subscription's link can no longer be opened (the server secret changed); delete it and subscribe again.");
  const policy = deps.policy ?? MAIL_POLICY_DEFAULTS;
  const view = await renderSavedReport({ db: deps.db, gateway: deps.gateway, owner: deps.owner ?? BACKGROUND_OWNER, waitMs: deps.waitMs, timeZone: deps.timeZone, acceptStale: false }, report, {
    allowedPresets: [],
    preset: null,
    snapshot: null,
  });
  const inApp = new URL(inAppPath(report), deps.baseUrl).toString();
  // Outside addresses get the subscription's share link, or no link at all where the policy says so
  // or there is no link (made before outside addresses were named to it).
  const outsideLink = token && policy.outsideLinks === "share" ? new URL(`/share/${token}`, deps.baseUrl).toString() : null;
  const drawn = mailTables(view, deps.timeZone);
  if (!drawn) {
    const pending = view.kind === "pending" ? view : null;
    return { kind: "pending", reason: "The report's data is queued behind people's reports.", queue: pending?.queue ?? null, retryAfterSeconds: pending?.retryAfterSeconds ?? 5 };
  }
  if (view.kind === "dashboard" && view.answer.tiles.some((t) => t.outcome.status !== "done")) {
    return { kind: "pending", reason: "Some of the dashboard's tiles are still queued.", queue: null, retryAfterSeconds: 5 };
  }
  const attachments = await attachmentsOf(drawn, sub.formats, deps.workbook ?? workbookBytes);
  const pdf = sub.formats.includes("pdf");
  const forUsers = composeReportMail(view, inApp, late, attachments, drawn.tables.length, pdf);
  const forOutside = composeReportMail(view, outsideLink, late, attachments, drawn.tables.length, pdf);
  if (!forUsers || !forOutside) throw new Error("The report was drawn but its e-mail could not be written.");
  const who = await audienceOf(db, sub, report, policy);
  const mails: IssueMail[] = [];
  if (who.users.length > 0) mails.push({ audience: "users", to: who.users, ...forUsers });
  if (who.outside.length > 0) mails.push({ audience: "outside", to: who.outside, ...forOutside });
  return {
    kind: "ready",
    issue: {
      mails,
      inbox: { userIds: who.active.map((u) => u.id), title: `Scheduled report: ${forUsers.subject}`, body: forUsers.text, link: inAppPath(report) },
      refused: who.refused,
    },
  };
}

/**
 * The report's PDF attached after the table files of the issue's e-mails when the subscription asks
 * for PDF and some e-mail will go (pdfAttachment); throws AttachmentError when it cannot be made.
 */
async function attachPdf(deps: SubscriptionDeps, sub: Subscription, issue: SubscriptionIssue, asked: boolean): Promise<SubscriptionIssue> {
  if (!sub.formats.includes("pdf") || issue.mails.length === 0 || !deps.mail.enabled) return issue;
  const pdf = await pdfAttachment(deps, sub, asked);
  return { ...issue, mails: issue.mails.map((m) => ({ ...m, attachments: [...m.attachments, pdf] })) };
}

/** Sends the subscription's e-mail for a slot (and tells the users named in the inbox). */
export async function sendSubscription(
  deps: SubscriptionDeps,
  sub: Subscription,
  late: boolean,
  /** Set when a person pressed "Send now": written to the audit log with the mail it queued. */
  asked?: { by: SessionUser },
): Promise<{ inbox: number; emails: number }> {
  let issue: SubscriptionIssue;
  try {
    const built = await buildSubscriptionIssue(deps, sub, late);
    if (built.kind === "pending") throw new Error(`${built.reason} This issue was not sent.`);
    issue = await attachPdf(deps, sub, built.issue, asked !== undefined);
  } catch (e) {
    if (!(e instanceof AttachmentError)) throw e;
    // Nothing half-made goes out: the owner is told, and the slot (or "Send now") records the failure.
    await inboxRepo(deps.db).add([sub.ownerId], {
      title: `Scheduled report not sent: ${sub.reportName}`,
      body: `${e.message} Nothing was sent for this issue; the next one is made at its scheduled time.`,
      link: "/alerts",
      sourceKind: "subscription",
      sourceId: sub.id,
    });
    throw new AttachmentError(`${e.message} This issue was not sent.`);
  }
  return deps.db.transaction(async (tx) => {
    await inboxRepo(tx).add(issue.inbox.userIds, { title: issue.inbox.title, body: issue.inbox.body, link: issue.inbox.link, sourceKind: "subscription", sourceId: sub.id });
    let emails = 0;
    if (deps.mail.enabled) {
      for (const m of issue.mails) {
        emails += await deps.mail.enqueue(tx, { recipients: m.to, subject: m.subject, text: m.text, html: m.html, attachments: m.attachments, sourceKind: "subscription", sourceId: sub.id, ownerId: sub.ownerId });
      }
    }
    if (asked) {
      await appendAudit(tx, {
        action: "subscription.sent_now",
        actor: userActor(asked.by),
        subject: { kind: "subscription", id: sub.id, label: sub.reportName },
        detail: { report_id: sub.reportId, emails, inbox: issue.inbox.userIds.length },
      });
    }
    return { inbox: issue.inbox.userIds.length, emails };
  });
}
