import "server-only";
/**
 * One scheduled report's e-mail for one slot: the report drawn as its share link draws it (queued at
 * the lowest priority, or in the turn of the person who pressed "Send now"), its key numbers in the
 * body as text and a plain table (readable with images off), the attachments the subscription names
 * (its tables as CSV files and as one Excel workbook, the report as a PDF; ATTACHMENT_FORMATS in
 * ./subscriptions.ts), and a link that the reader can open: into the dashboard for its users, the
 * subscription's share link for other addresses, or none (the numbers only) where the mail policy
 * says so. The preview is built by the same code (without the PDF, made only when sending), and only
 * the sending queues anything. An attachment that cannot be made stops the issue: nothing is sent
 * without it, and the owner is told in the inbox.
 */
import { sheetToCsv, tableSheet, type ExportSheet } from "@/lib/report/table/csv";
import { sheetNames, XLSX_TYPE, type WorkbookSpec } from "@/lib/report/table/xlsx";
import { workbookBytes } from "@/lib/report/table/xlsx-stream";
import type { MailQueue } from "@/lib/features/notifications/mail-queue";
import { Recipients } from "@/lib/features/notifications/definition";
import type { TableModel } from "@/lib/report/table/table";
import { formatInstant } from "@/lib/report/metrics/format";
import { MATURING_LEGEND, saysMaturing } from "@/lib/report/metrics/maturity";
import { comparedCoverageText, coverageLegend, saysCoverage } from "@/lib/report/periods/coverage";
import { renderSavedReport, type SharedView } from "@/lib/features/sharing/view";
import { inboxRepo } from "@/lib/features/notifications/inbox-store";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import type { SavedReport } from "@/lib/features/saved-reports/model";
import { canView } from "@/lib/features/saved-reports/access";
import type { Sql, Store } from "@/lib/core/store/sql";
import type { Subscription } from "@/lib/features/notifications/model";
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
  /** Writes a workbook's bytes (exceljs's streaming writer unless given). */
  workbook?: (spec: WorkbookSpec) => Promise<Buffer>;
  /** How a scheduled PDF waits before asking the renderer again (the real clock unless given). */
  clock?: RetryClock;
}

/** Time as the PDF retries read it: now, and a wait. */
export interface RetryClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: RetryClock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

/**
 * A scheduled PDF the renderer could not make yet (busy with others, the owner's own PDFs, the data
 * still coming) is asked again within the slot: at most this many times in all, waiting what the
 * renderer said (within these bounds), and no longer in all than `budgetMs` (the slot's claim is
 * renewed while it runs). "Send now" asks once: its person is waiting for the answer.
 */
export const PDF_RETRY = { attempts: 5, minWaitMs: 5_000, maxWaitMs: 60_000, budgetMs: 5 * 60_000 } as const;

/** Renderer refusals that asking again later can cure. */
const RETRYABLE = new Set(["busy", "owner-busy", "pending"]);

/** The wait before asking again, or null when the failure is final. */
function retryWait(e: unknown, attempt: number, leftMs: number): number | null {
  // Read by shape, not by class: the renderer may be another bundle's copy of its module.
  if (!(e instanceof Error) || e.name !== "PdfError") return null;
  const { kind, retryAfter } = e as Error & { kind?: unknown; retryAfter?: unknown };
  if (typeof kind !== "string" || !RETRYABLE.has(kind) || attempt >= PDF_RETRY.attempts) return null;
  const asked = typeof retryAfter === "number" ? retryAfter * 1000 : PDF_RETRY.minWaitMs;
  const wait = Math.min(PDF_RETRY.maxWaitMs, Math.max(PDF_RETRY.minWaitMs, asked));
  return wait <= leftMs ? wait : null;
}

/** A saved report's PDF with `owner`'s rights; `queue` "background" for a scheduled slot. */
export type PdfMaker = (owner: SessionUser, reportId: string, queue: "user" | "background") => Promise<{ pdf: Buffer; fileName: string }>;

export interface Attachment {
  filename: string;
  content: string;
  contentType: string;
  /** "base64": `content` holds a binary file's bytes in base64 (a workbook, a PDF). */
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

/** One table an e-mail carries: its title, its file name without the extension, and its sheet (CSV and workbook alike). */
interface MailTable {
  title: string;
  file: string;
  sheet: ExportSheet;
}

/** The tables of a drawn report or dashboard, with what the workbook's first sheet says; null while it is not drawn. */
function mailTables(view: SharedView, timeZone: string): { tables: MailTable[]; question: [string, string][]; file: string } | null {
  if (view.kind === "ok") {
    const meta: [string, string][] = [
      ["Report", view.title],
      ["Range", `${view.rangeLabel}: ${view.range.start} to ${view.range.end} (${view.timeZone})`],
      ["Filters", view.filters.join("; ") || "none"],
      ["Data as of", formatInstant(view.asOf, timeZone)],
    ];
    const file = fileStem(view.fileName);
    return { tables: [{ title: view.title, file, sheet: tableSheet(view.table, view.table.rows, { lines: meta }) }], question: [], file };
  }
  if (view.kind !== "dashboard") return null;
  const tables: MailTable[] = [];
  for (const t of view.answer.tiles) {
    if (t.outcome.status !== "done" || t.outcome.model.body.kind !== "table") continue;
    const table: TableModel = t.outcome.model.body.table;
    const meta: [string, string][] = [
      ["Dashboard", view.title],
      ["Tile", t.title],
      ["Range", `${t.outcome.model.range.start} to ${t.outcome.model.range.end} (${view.timeZone})`],
    ];
    tables.push({ title: t.title, file: `${fileStem(view.title)}_${fileStem(t.title)}`, sheet: tableSheet(table, table.rows, { lines: meta }) });
  }
  const question: [string, string][] = [
    ["Dashboard", view.title],
    ["Range", `${view.rangeLabel} (${view.timeZone})`],
    ["Filters", view.filters],
    ["Generated at", formatInstant(new Date().toISOString(), timeZone)],
  ];
  return { tables, question, file: fileStem(view.title) };
}

/** What the owner's notice calls each attachment format (ATTACHMENT_FORMATS in ./subscriptions.ts). */
const FORMAT_NAMES = { csv: "CSV", xlsx: "Excel workbook", pdf: "PDF" } as const;

/** An attachment that could not be made: the issue is not sent, and the owner is told why. */
export class AttachmentError extends Error {}

const failed = (format: keyof typeof FORMAT_NAMES, e: unknown) => new AttachmentError(`The ${FORMAT_NAMES[format]} could not be made (${e instanceof Error ? e.message : String(e)}).`);

/**
 * The table files of the formats asked for, CSVs first whatever order they were chosen in: a CSV per
 * table, one workbook holding every table (a sheet each, named by its title). The PDF is not a table
 * file (attachPdf). Throws AttachmentError when one cannot be made, so no e-mail goes out with some
 * of its files.
 */
async function attachmentsOf(drawn: NonNullable<ReturnType<typeof mailTables>>, asked: readonly string[], workbook: (spec: WorkbookSpec) => Promise<Buffer>): Promise<Attachment[]> {
  const { tables } = drawn;
  if (tables.length === 0) return [];
  const out: Attachment[] = [];
  for (const format of (["csv", "xlsx"] as const).filter((f) => asked.includes(f))) {
    try {
      if (format === "csv") {
        for (const t of tables) out.push({ filename: `${t.file}.csv`, content: sheetToCsv(t.sheet), contentType: "text/csv; charset=utf-8" });
      } else {
        const names = sheetNames(tables.map((t) => t.title));
        const bytes = await workbook({ question: drawn.question, sheets: tables.map((t, i) => ({ name: names[i]!, sheet: t.sheet })) });
        out.push({ filename: `${drawn.file}.xlsx`, content: bytes.toString("base64"), contentType: XLSX_TYPE, encoding: "base64" });
      }
    } catch (e) {
      throw failed(format, e);
    }
  }
  return out;
}

/**
 * What the table files hold, in words: "The table is attached as CSV and as an Excel workbook.", or
 * for a dashboard's several tables "The 3 tables are attached as CSV files and as an Excel workbook,
 * a sheet each."; "" when no table file is attached.
 */
export function attachedWords(attachments: readonly Attachment[], tables: number): string {
  const csv = attachments.some((a) => a.filename.endsWith(".csv"));
  const book = attachments.some((a) => a.filename.endsWith(".xlsx"));
  if ((!csv && !book) || tables === 0) return "";
  const many = tables > 1;
  const as = [csv ? (many ? "as CSV files" : "as CSV") : null, book ? (many ? "as an Excel workbook, a sheet each" : "as an Excel workbook") : null].filter((w) => w !== null).join(" and ");
  return many ? `The ${tables} tables are attached ${as}.` : `The table is attached ${as}.`;
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

/**
 * The e-mail of a drawn report (or dashboard), carrying `attachments` (and saying the PDF is attached
 * when `pdf`, which is added when sending); null when it is still being fetched. `link` null: no
 * link, the numbers only.
 */
export function composeReportMail(view: SharedView, link: string | null, late: boolean, attachments: Attachment[], tables: number, pdf = false): ReportMail | null {
  if (view.kind === "ok") {
    const range = `${view.rangeLabel}: ${view.range.start} to ${view.range.end} (${view.timeZone})`;
    return mail(view.title, range, totals(view.table), { files: attachments, tables }, link, late, pdf, asOfLine(view.asOf, view.timeZone));
  }
  if (view.kind === "dashboard") {
    const numbers: [string, string][] = [];
    for (const t of view.answer.tiles) {
      if (t.outcome.status !== "done") continue;
      const body = t.outcome.model.body;
      if (body.kind === "kpi") numbers.push([t.title, `${body.value.text}${body.change ? ` (${body.change.text})` : ""}${body.change?.coverage ? `; ${comparedCoverageText(body.change.coverage)}` : ""}`]);
    }
    return mail(view.title, `${view.rangeLabel} (${view.timeZone})`, numbers, { files: attachments, tables }, link, late, pdf, view.answer.asOf ? asOfLine(view.answer.asOf, view.timeZone) : null);
  }
  return null;
}

/**
 * The body's numbers and its PDF are two fetches of the report, which may be minutes apart (the PDF
 * waits its turn in the renderer): each says when its data was fetched, in the same words, so a
 * reader sees when the two differ.
 */
const asOfLine = (at: string, timeZone: string) => `Data as of ${formatInstant(at, timeZone)}`;

function mail(
  title: string,
  range: string,
  numbers: [string, string][],
  attached: { files: Attachment[]; tables: number },
  link: string | null,
  late: boolean,
  pdf = false,
  asOf: string | null = null,
): ReportMail {
  const lateNote = late ? "This e-mail is late: the dashboard was not running at the scheduled time." : null;
  const maturingNote = numbers.some(([, v]) => saysMaturing(v)) ? MATURING_LEGEND : null;
  const coverageNote = numbers.some(([, v]) => saysCoverage(v)) ? coverageLegend("") : null;
  const text = [
    `${title}`,
    range,
    ...(asOf ? [asOf] : []),
    "",
    ...numbers.map(([k, v]) => `${k}: ${v}`),
    ...(maturingNote ? ["", maturingNote] : []),
    ...(coverageNote ? ["", coverageNote] : []),
    "",
    attachedWords(attached.files, attached.tables),
    ...(pdf ? ["The report is attached as PDF, as it looks on screen."] : []),
    link ? `Open the report: ${link}` : NO_LINK_NOTE,
    ...(lateNote ? ["", lateNote] : []),
  ].join("\n");
  const rows = numbers.map(([k, v]) => `<tr><th scope="row" style="text-align:left;padding:4px 12px 4px 0">${escapeHtml(k)}</th><td style="text-align:right;padding:4px 0">${escapeHtml(v)}</td></tr>`).join("");
  const html = `<h1 style="font-size:18px">${escapeHtml(title)}</h1><p>${escapeHtml(range)}</p>${asOf ? `<p>${escapeHtml(asOf)}</p>` : ""}<table>${rows}</table>${maturingNote ? `<p>${escapeHtml(maturingNote)}</p>` : ""}${coverageNote ? `<p>${escapeHtml(coverageNote)}</p>` : ""}${link ? `<p><a href="${escapeHtml(link)}">Open the report</a></p>` : `<p>${escapeHtml(NO_LINK_NOTE)}</p>`}${lateNote ? `<p>${escapeHtml(lateNote)}</p>` : ""}`;
  return { subject: `${title}: ${range}`, text, html, attachments: attached.files, numbers };
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
async function audienceOf(db: Sql, sub: Subscription, report: SavedReport, policy: MailPolicy) {
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
 * for PDF and some e-mail will go, made with the owner's rights. A scheduled PDF the renderer cannot
 * make yet is asked again (PDF_RETRY); throws AttachmentError when it cannot be made in the end.
 */
async function attachPdf(deps: SubscriptionDeps, sub: Subscription, issue: SubscriptionIssue, asked: boolean): Promise<SubscriptionIssue> {
  if (!sub.formats.includes("pdf") || issue.mails.length === 0 || !deps.mail.enabled) return issue;
  let made: { pdf: Buffer; fileName: string };
  const clock = deps.clock ?? realClock;
  const until = clock.now() + PDF_RETRY.budgetMs;
  try {
    for (let attempt = 1; ; attempt += 1) {
      if (!deps.pdf) throw new Error("this process makes no PDFs");
      // The owner's rights are read again at each attempt: a retry never outlives them.
      const owner = await usersRepo(deps.db).findById(sub.ownerId);
      if (!owner || owner.disabled) throw new Error("its owner may no longer see the report");
      try {
        made = await deps.pdf({ id: owner.id, email: owner.email, role: owner.role }, sub.reportId, asked ? "user" : "background");
        break;
      } catch (e) {
        const wait = asked ? null : retryWait(e, attempt, until - clock.now());
        if (wait === null) throw e;
        await clock.sleep(wait);
      }
    }
  } catch (e) {
    throw failed("pdf", e);
  }
  const pdf: Attachment = { filename: made.fileName, content: made.pdf.toString("base64"), contentType: "application/pdf", encoding: "base64" };
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
