import "server-only";
/**
 * One scheduled report's e-mail for one slot: the report drawn as its share link draws it (queued at
 * the lowest priority), its key numbers in the body as text and a plain table (readable with images
 * off), the table as a CSV attachment, and the subscription's share link.
 */
import { tableToCsv } from "@/lib/csv";
import type { MailQueue } from "@/lib/alerts/run";
import { Recipients } from "@/lib/alerts/definition";
import type { TableModel } from "@/lib/metrics/table";
import { formatInstant } from "@/lib/metrics/format";
import { MATURING_LEGEND, saysMaturing } from "@/lib/metrics/maturity";
import { renderSavedReport, type SharedView } from "@/lib/sharing/view";
import { inboxRepo } from "@/lib/store/inbox";
import { savedReportsRepo } from "@/lib/store/saved-reports";
import { canView } from "@/lib/saved-reports/permissions";
import type { Store } from "@/lib/store/sql";
import type { SubscriptionRow } from "@/lib/store/subscriptions";
import { usersRepo } from "@/lib/store/users";
import { BACKGROUND_OWNER, type ReportGateway } from "@/lib/upstream/gateway";
import { unseal } from "./seal";
import { MAIL_POLICY_DEFAULTS, sendableRecipients, type MailPolicy } from "@/lib/notify/policy";

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
}

export interface Attachment {
  filename: string;
  content: string;
  contentType: string;
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

/** The e-mail of a drawn report (or dashboard); null when it is still being fetched. */
export function composeReportMail(view: SharedView, link: string, timeZone: string, late: boolean): ReportMail | null {
  if (view.kind === "ok") {
    const range = `${view.rangeLabel}: ${view.range.start} to ${view.range.end} (${view.timeZone})`;
    const meta: [string, string][] = [
      ["Report", view.title],
      ["Range", range],
      ["Filters", view.filters.join("; ") || "none"],
      ["Data as of", formatInstant(view.asOf, timeZone)],
    ];
    return mail(view.title, range, totals(view.table), [csvOf(view.table, meta, `${fileStem(view.fileName)}.csv`)], link, late);
  }
  if (view.kind === "dashboard") {
    const numbers: [string, string][] = [];
    const attachments: Attachment[] = [];
    for (const t of view.answer.tiles) {
      if (t.outcome.status !== "done") continue;
      const body = t.outcome.model.body;
      if (body.kind === "kpi") numbers.push([t.title, `${body.value.text}${body.change ? ` (${body.change.text})` : ""}`]);
      if (body.kind === "table") {
        const meta: [string, string][] = [
          ["Dashboard", view.title],
          ["Tile", t.title],
          ["Range", `${t.outcome.model.range.start} to ${t.outcome.model.range.end} (${view.timeZone})`],
        ];
        attachments.push(csvOf(body.table, meta, `${fileStem(view.title)}_${fileStem(t.title)}.csv`));
      }
    }
    return mail(view.title, `${view.rangeLabel} (${view.timeZone})`, numbers, attachments, link, late);
  }
  return null;
}

function mail(title: string, range: string, numbers: [string, string][], attachments: Attachment[], link: string, late: boolean): ReportMail {
  const lateNote = late ? "This e-mail is late: the dashboard was not running at the scheduled time." : null;
  const maturingNote = numbers.some(([, v]) => saysMaturing(v)) ? MATURING_LEGEND : null;
  const text = [
    `${title}`,
    range,
    "",
    ...numbers.map(([k, v]) => `${k}: ${v}`),
    ...(maturingNote ? ["", maturingNote] : []),
    "",
    attachments.length > 0 ? `The table${attachments.length > 1 ? "s are" : " is"} attached as CSV.` : "",
    `Open the report: ${link}`,
    ...(lateNote ? ["", lateNote] : []),
  ].join("\n");
  const rows = numbers.map(([k, v]) => `<tr><th scope="row" style="text-align:left;padding:4px 12px 4px 0">${escapeHtml(k)}</th><td style="text-align:right;padding:4px 0">${escapeHtml(v)}</td></tr>`).join("");
  const html = `<h1 style="font-size:18px">${escapeHtml(title)}</h1><p>${escapeHtml(range)}</p><table>${rows}</table>${maturingNote ? `<p>${escapeHtml(maturingNote)}</p>` : ""}<p><a href="${escapeHtml(link)}">Open the report</a></p>${lateNote ? `<p>${escapeHtml(lateNote)}</p>` : ""}`;
  return { subject: `${title}: ${range}`, text, html, attachments, numbers };
}

/** Sends the subscription's e-mail for a slot (and tells the users named in the inbox). */
export async function sendSubscription(deps: SubscriptionDeps, sub: SubscriptionRow, late: boolean): Promise<{ inbox: number; emails: number }> {
  const report = await savedReportsRepo(deps.db).get(sub.reportId);
  if (!report) throw new Error("The report was deleted.");
  const token = sub.shareTokenSealed ? unseal(sub.shareTokenSealed, deps.secret) : null;
  if (sub.shareTokenSealed && !token) throw new Error("The subscription's link can no longer be opened (the server secret changed); delete it and subscribe again.");
  const view = await renderSavedReport({ db: deps.db, gateway: deps.gateway, owner: BACKGROUND_OWNER, waitMs: deps.waitMs, timeZone: deps.timeZone, acceptStale: false }, report, {
    allowedPresets: [],
    preset: null,
    snapshot: null,
  });
  const inApp = report.page === "dashboard" ? `/dashboards/${report.id}` : `/reports/${report.id}`;
  // Without a share link (its owner may see the report but not share it) the e-mail links into the dashboard.
  const link = new URL(token ? `/share/${token}` : inApp, deps.baseUrl).toString();
  const message = composeReportMail(view, link, deps.timeZone, late);
  if (!message) throw new Error("The report's data stayed queued behind people's reports; this slot was not sent.");
  if (view.kind === "dashboard" && view.answer.tiles.some((t) => t.outcome.status !== "done")) throw new Error("Some of the dashboard's tiles stayed queued; this slot was not sent.");
  const recipients = Recipients.parse(sub.recipients);
  return deps.db.transaction(async (tx) => {
    const users = usersRepo(tx);
    const active: { id: string; email: string }[] = [];
    for (const id of recipients.users) {
      const u = await users.findById(id);
      // A user who may not see the report is not sent it.
      if (u && !u.disabled && canView({ id: u.id, email: u.email, role: u.role }, report)) active.push({ id: u.id, email: u.email });
    }
    await inboxRepo(tx).add(
      active.map((u) => u.id),
      { title: `Scheduled report: ${message.subject}`, body: message.text.replace(link, "the share link in the e-mail"), link: inApp, sourceKind: "subscription", sourceId: sub.id },
    );
    let emails = 0;
    if (deps.mail.enabled) {
      // Outside addresses are checked again at each send: named before the policy, or their domain since taken off the list.
      const { to } = await sendableRecipients(tx, [...new Set([...active.map((u) => u.email), ...recipients.emails])], deps.policy ?? MAIL_POLICY_DEFAULTS);
      if (to.length > 0) emails = await deps.mail.enqueue(tx, { recipients: to, subject: message.subject, text: message.text, html: message.html, attachments: message.attachments, sourceKind: "subscription", sourceId: sub.id, ownerId: sub.ownerId });
    }
    return { inbox: active.length, emails };
  });
}
