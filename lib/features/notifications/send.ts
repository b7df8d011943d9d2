import "server-only";
/**
 * One scheduled report's e-mail for one slot: the report drawn as its share link draws it (queued at
 * the lowest priority, or in the turn of the person who pressed "Send now"), its key numbers in the
 * body as text and a plain table (readable with images off), the table as a CSV attachment, and a
 * link that the reader can open: into the dashboard for its users, the subscription's share link for
 * other addresses, or none (the numbers only) where the mail policy says so. The preview is built
 * by the same code, and only the sending queues anything.
 */
import { tableToCsv } from "@/lib/report/table/csv";
import type { MailQueue } from "@/lib/features/notifications/run";
import { Recipients } from "@/lib/features/notifications/definition";
import type { TableModel } from "@/lib/report/table/table";
import { formatInstant } from "@/lib/report/metrics/format";
import { MATURING_LEGEND, saysMaturing } from "@/lib/report/metrics/maturity";
import { comparedCoverageText, coverageLegend, saysCoverage } from "@/lib/report/periods/coverage";
import { renderSavedReport, type SharedView } from "@/lib/features/sharing/view";
import { inboxRepo } from "@/lib/features/notifications/inbox-store";
import { savedReportsRepo, type SavedReport } from "@/lib/features/saved-reports/store";
import { canView } from "@/lib/features/saved-reports/access";
import type { Sql, Store } from "@/lib/core/store/sql";
import type { SubscriptionRow } from "@/lib/features/notifications/subscriptions-store";
import { usersRepo } from "@/lib/core/auth/users";
import { BACKGROUND_OWNER, type ReportGateway } from "@/lib/core/upstream/gateway";
import { unseal } from "@/lib/features/sharing/seal";
import { MAIL_POLICY_DEFAULTS, sendableRecipients, type MailPolicy } from "@/lib/features/notifications/policy";
import { appendAudit, userActor } from "@/lib/core/audit/log";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import type { QueuePlace } from "@/lib/report/client/queue-words";

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
}

/** A saved report's PDF with `owner`'s rights; `queue` "background" for a scheduled slot. */
export type PdfMaker = (owner: SessionUser, reportId: string, queue: "user" | "background") => Promise<{ pdf: Buffer; fileName: string }>;

export interface Attachment {
  filename: string;
  content: string;
  contentType: string;
  /** "base64": `content` holds binary bytes in base64 (a PDF). */
  encoding?: "base64";
}

export interface ReportMail {
  subject: string;
  text: string;
  html: string;
  attachments: Attachment[];
  /** The key numbers, label and value, as in the body. */
  numbers: [string, string][];
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
const fileStem = (name: string) => name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "report";

/** The totals row as label/value pairs: what the report adds up to. */
function totals(table: TableModel): [string, string][] {
  return table.columns.flatMap((c, i) => (c.kind === "dimension" ? [] : [[c.label, table.totals.cells[i]?.text ?? ""] as [string, string]]));
}

function csvOf(table: TableModel, meta: [string, string][], filename: string): Attachment {
  return { filename, content: tableToCsv(table, table.rows, { lines: meta }), contentType: "text/csv; charset=utf-8" };
}

/** Who an issue goes to, and which link each kind of reader gets. */
export type Audience = "users" | "outside";

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

const NO_LINK_NOTE = "This e-mail carries no link to the dashboard: the numbers are above and the table is attached.";

/** The e-mail of a drawn report (or dashboard); null when it is still being fetched. `link` null: no link, the numbers only. */
export function composeReportMail(view: SharedView, link: string | null, timeZone: string, late: boolean, formats: readonly string[] = ["csv"]): ReportMail | null {
  const csv = formats.includes("csv");
  const pdf = formats.includes("pdf");
  if (view.kind === "ok") {
    const range = `${view.rangeLabel}: ${view.range.start} to ${view.range.end} (${view.timeZone})`;
    const meta: [string, string][] = [
      ["Report", view.title],
      ["Range", range],
      ["Filters", view.filters.join("; ") || "none"],
      ["Data as of", formatInstant(view.asOf, timeZone)],
    ];
    return mail(view.title, range, totals(view.table), csv ? [csvOf(view.table, meta, `${fileStem(view.fileName)}.csv`)] : [], link, late, pdf);
  }
  if (view.kind === "dashboard") {
    const numbers: [string, string][] = [];
    const attachments: Attachment[] = [];
    for (const t of view.answer.tiles) {
      if (t.outcome.status !== "done") continue;
      const body = t.outcome.model.body;
      if (body.kind === "kpi") numbers.push([t.title, `${body.value.text}${body.change ? ` (${body.change.text})` : ""}${body.change?.coverage ? `; ${comparedCoverageText(body.change.coverage)}` : ""}`]);
      if (body.kind === "table" && csv) {
        const meta: [string, string][] = [
          ["Dashboard", view.title],
          ["Tile", t.title],
          ["Range", `${t.outcome.model.range.start} to ${t.outcome.model.range.end} (${view.timeZone})`],
        ];
        attachments.push(csvOf(body.table, meta, `${fileStem(view.title)}_${fileStem(t.title)}.csv`));
      }
    }
    return mail(view.title, `${view.rangeLabel} (${view.timeZone})`, numbers, attachments, link, late, pdf);
  }
  return null;
}

function mail(title: string, range: string, numbers: [string, string][], attachments: Attachment[], link: string | null, late: boolean, pdf = false): ReportMail {
  const lateNote = late ? "This e-mail is late: the dashboard was not running at the scheduled time." : null;
  const maturingNote = numbers.some(([, v]) => saysMaturing(v)) ? MATURING_LEGEND : null;
  const coverageNote = numbers.some(([, v]) => saysCoverage(v)) ? coverageLegend("") : null;
  const text = [
    `${title}`,
    range,
    "",
    ...numbers.map(([k, v]) => `${k}: ${v}`),
    ...(maturingNote ? ["", maturingNote] : []),
    ...(coverageNote ? ["", coverageNote] : []),
    "",
    attachments.length > 0 ? `The table${attachments.length > 1 ? "s are" : " is"} attached as CSV.` : "",
    ...(pdf ? ["The report is attached as PDF, as it looks on screen."] : []),
    link ? `Open the report: ${link}` : NO_LINK_NOTE,
    ...(lateNote ? ["", lateNote] : []),
  ].join("\n");
  const rows = numbers.map(([k, v]) => `<tr><th scope="row" style="text-align:left;padding:4px 12px 4px 0">${escapeHtml(k)}</th><td style="text-align:right;padding:4px 0">${escapeHtml(v)}</td></tr>`).join("");
  const html = `<h1 style="font-size:18px">${escapeHtml(title)}</h1><p>${escapeHtml(range)}</p><table>${rows}</table>${maturingNote ? `<p>${escapeHtml(maturingNote)}</p>` : ""}${coverageNote ? `<p>${escapeHtml(coverageNote)}</p>` : ""}${link ? `<p><a href="${escapeHtml(link)}">Open the report</a></p>` : `<p>${escapeHtml(NO_LINK_NOTE)}</p>`}${lateNote ? `<p>${escapeHtml(lateNote)}</p>` : ""}`;
  return { subject: `${title}: ${range}`, text, html, attachments, numbers };
}

/**
 * Addresses split by whose they are: a user's address is mailed the in-app link when that user is
 * active and may see the report, and not mailed at all otherwise (as a named user who may not see it
 * is not); an address that is no user's is outside.
 */
export async function splitAddresses(db: Sql, emails: readonly string[], report: SavedReport): Promise<{ inApp: string[]; outside: string[]; skipped: string[] }> {
  const users = usersRepo(db);
  const inApp: string[] = [];
  const outside: string[] = [];
  const skipped: string[] = [];
  for (const address of emails) {
    const u = await users.findByEmail(address);
    if (!u) outside.push(address);
    else if (mayOpen(u, report)) inApp.push(address);
    else skipped.push(address);
  }
  return { inApp, outside, skipped };
}

const mayOpen = (u: { id: string; email: string; role: SessionUser["role"]; disabled: boolean } | null, report: SavedReport) =>
  u !== null && !u.disabled && canView({ id: u.id, email: u.email, role: u.role }, report);

/**
 * A subscription's recipients by the link each gets. Named users who may see the report (and are
 * active) are told in the inbox and mailed the in-app link, as are addresses of such users; other
 * users' addresses are not mailed, and addresses that are no user's are outside. The mail policy's
 * domains are checked again at each send (named before the policy, or a domain since taken off the list).
 */
async function audienceOf(db: Sql, sub: SubscriptionRow, report: SavedReport, policy: MailPolicy) {
  const recipients = Recipients.parse(sub.recipients);
  const users = usersRepo(db);
  const active: { id: string; email: string }[] = [];
  for (const id of recipients.users) {
    const u = await users.findById(id);
    // A user who may not see the report is not sent it.
    if (u && mayOpen(u, report)) active.push({ id: u.id, email: u.email });
  }
  const named = new Set(active.map((u) => u.email.toLowerCase()));
  const split = await splitAddresses(db, recipients.emails.filter((a) => !named.has(a.toLowerCase())), report);
  const inAppTo = [...new Set([...active.map((u) => u.email), ...split.inApp])];
  const allowed = await sendableRecipients(db, [...inAppTo, ...split.outside], policy);
  const ok = new Set(allowed.to);
  return { active, users: inAppTo.filter((a) => ok.has(a)), outside: split.outside.filter((a) => ok.has(a)), refused: allowed.refused };
}

const inAppPath = (report: Pick<SavedReport, "id" | "page">) => (report.page === "dashboard" ? `/dashboards/${report.id}` : `/reports/${report.id}`);

/**
 * Builds the next issue of `sub` exactly as it would be sent now, sending nothing: the report drawn
 * (queued like any report), the e-mail of each audience and the inbox message. `pending` while the
 * report's data is still queued after `deps.waitMs`.
 */
export async function buildSubscriptionIssue(
  deps: Omit<SubscriptionDeps, "mail">,
  sub: SubscriptionRow,
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
  const forUsers = composeReportMail(view, inApp, deps.timeZone, late, sub.formats);
  const forOutside = composeReportMail(view, outsideLink, deps.timeZone, late, sub.formats);
  if (!forUsers || !forOutside) {
    const pending = view.kind === "pending" ? view : null;
    return { kind: "pending", reason: "The report's data is queued behind people's reports.", queue: pending?.queue ?? null, retryAfterSeconds: pending?.retryAfterSeconds ?? 5 };
  }
  if (view.kind === "dashboard" && view.answer.tiles.some((t) => t.outcome.status !== "done")) {
    return { kind: "pending", reason: "Some of the dashboard's tiles are still queued.", queue: null, retryAfterSeconds: 5 };
  }
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
 * The report's PDF attached to the issue's e-mails when the subscription asks for PDF and some e-mail
 * will go, made with the owner's rights (composeReportMail attaches the CSVs). A PDF
 * that cannot be made stops the issue: the owner is told in the inbox why, and nothing is sent.
 */
async function attachFormats(deps: SubscriptionDeps, sub: SubscriptionRow, issue: SubscriptionIssue, asked: boolean): Promise<SubscriptionIssue> {
  let mails = issue.mails;
  if (sub.formats.includes("pdf") && mails.length > 0 && deps.mail.enabled) {
    let made: { pdf: Buffer; fileName: string };
    try {
      if (!deps.pdf) throw new Error("this process makes no PDFs");
      const owner = await usersRepo(deps.db).findById(sub.ownerId);
      if (!owner || owner.disabled) throw new Error("its owner may no longer see the report");
      made = await deps.pdf({ id: owner.id, email: owner.email, role: owner.role }, sub.reportId, asked ? "user" : "background");
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      const body = `The PDF of “${sub.reportName}” could not be made (${why}), so this issue was not sent to anyone. The next one is sent at its time as usual.`;
      await inboxRepo(deps.db).add([sub.ownerId], { title: `Scheduled report not sent: ${sub.reportName}`, body, link: "/alerts", sourceKind: "subscription", sourceId: sub.id });
      throw new Error(`The PDF could not be made (${why}). This issue was not sent.`);
    }
    const pdf: Attachment = { filename: made.fileName, content: made.pdf.toString("base64"), contentType: "application/pdf", encoding: "base64" };
    mails = mails.map((m) => ({ ...m, attachments: [...m.attachments, pdf] }));
  }
  return { ...issue, mails };
}

/** Sends the subscription's e-mail for a slot (and tells the users named in the inbox). */
export async function sendSubscription(
  deps: SubscriptionDeps,
  sub: SubscriptionRow,
  late: boolean,
  /** Set when a person pressed "Send now": written to the audit log with the mail it queued. */
  asked?: { by: SessionUser },
): Promise<{ inbox: number; emails: number }> {
  const built = await buildSubscriptionIssue(deps, sub, late);
  if (built.kind === "pending") throw new Error(`${built.reason} This issue was not sent.`);
  const issue = await attachFormats(deps, sub, built.issue, asked !== undefined);
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
