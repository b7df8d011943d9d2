import "server-only";
/**
 * A scheduled report's e-mail as a reader sees it: the subject, and the body as text and as HTML with
 * the report's key numbers (as text and a plain table, readable with images off), the notes that
 * explain them (maturing, coverage), what the attachments hold, and the link the reader can open, or
 * a note that there is none (the numbers only) where the mail policy says so.
 */
import type { TableModel } from "@/lib/report/table/table";
import { formatInstant } from "@/lib/report/metrics/format";
import { MATURING_LEGEND, saysMaturing } from "@/lib/report/metrics/maturity";
import { comparedCoverageText, coverageLegend, saysCoverage } from "@/lib/report/periods/coverage";
import type { SharedView } from "@/lib/features/sharing/view";
import { attachedWords, type Attachment } from "./issue-attachments";

export interface ReportMail {
  subject: string;
  text: string;
  html: string;
  attachments: Attachment[];
  /** The key numbers, label and value, as in the body. */
  numbers: [string, string][];
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** The totals row as label/value pairs: what the report adds up to. */
function totals(table: TableModel): [string, string][] {
  return table.columns.flatMap((c, i) => (c.kind === "dimension" ? [] : [[c.label, table.totals.cells[i]?.text ?? ""] as [string, string]]));
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
