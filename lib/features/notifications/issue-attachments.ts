import "server-only";
/**
 * The files a scheduled report's issue carries (ATTACHMENT_FORMATS in ./subscriptions.ts): its
 * tables as CSV files and as one Excel workbook (a sheet each), and the report as a PDF made with the
 * owner's rights. CSVs come first, then the workbook, then the PDF, whatever order they were chosen
 * in. A file that cannot be made throws AttachmentError: nothing is sent without it
 * (./subscription-issue.ts tells the owner).
 */
import { sheetToCsv, tableSheet, type ExportSheet } from "@/lib/report/table/csv";
import { sheetNames, XLSX_TYPE, type WorkbookSpec } from "@/lib/report/table/xlsx";
import { formatInstant } from "@/lib/report/metrics/format";
import { gridSheet } from "@/lib/features/cohorts/csv";
import { dashboardQuestionLines, tileCsvSource, tileSheet } from "@/lib/features/dashboards/tile-csv";
import { reportLines } from "@/lib/features/sharing/report-lines";
import type { SharedView } from "@/lib/features/sharing/view";
import type { Store } from "@/lib/core/store/sql";
import type { Subscription } from "@/lib/features/notifications/model";
import { usersRepo } from "@/lib/core/auth/users";
import type { SessionUser } from "@/lib/core/auth/authenticate";

export interface Attachment {
  filename: string;
  content: string;
  contentType: string;
  /** "base64": `content` holds a binary file's bytes in base64 (a workbook, a PDF). */
  encoding?: "base64";
}

const fileStem = (name: string) => name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "report";

/** One table an e-mail carries: its title, its file name without the extension, and its sheet (CSV and workbook alike). */
interface MailTable {
  title: string;
  file: string;
  sheet: ExportSheet;
}

/**
 * The tables of a drawn report or dashboard, each as its page downloads it (a report's table or
 * retention grid; a dashboard's table, pivot and retention tiles), with what the workbook's first
 * sheet says; null while it is not drawn. `now` is when the files are made.
 */
export function mailTables(view: SharedView, timeZone: string, now: Date = new Date()): { tables: MailTable[]; question: [string, string][]; file: string } | null {
  const generatedAt = formatInstant(now.toISOString(), timeZone);
  if (view.kind === "ok") {
    // One table: its lines are the workbook's question, as on the page's own downloads.
    const lines: [string, string][] = [...reportLines(view, { sharedBy: false }), ...(view.cohort ? [["Grid", view.cohort.settings] as [string, string]] : []), ["Generated at", generatedAt]];
    const file = fileStem(view.fileName);
    const sheet = view.cohort ? gridSheet(view.cohort.grid, { lines }) : tableSheet(view.table, view.table.rows, { lines });
    return { tables: [{ title: view.title, file, sheet }], question: [], file };
  }
  if (view.kind !== "dashboard") return null;
  const context = { dashboard: view.title, rangeLabel: view.rangeLabel, timeZone: view.timeZone, filters: view.filters, snapshot: view.mode === "snapshot" };
  const files = new Set<string>();
  const tables = view.answer.tiles.flatMap((t): MailTable[] => {
    const source = tileCsvSource(t, context);
    const sheet = source ? tileSheet(source) : null;
    if (!source || !sheet) return [];
    // Two tiles of one title would be two files of one name in one e-mail.
    let file = source.fileName;
    for (let n = 2; files.has(file); n++) file = `${source.fileName}-${n}`;
    files.add(file);
    return [{ title: source.title, file, sheet }];
  });
  // The owner's own e-mail: the share page's "shared by" has no place in it.
  const { sharedBy: _sharedBy, ...question } = view.question;
  return { tables, question: dashboardQuestionLines({ ...question, generatedAt }), file: fileStem(view.title) };
}

/** What the owner's notice calls each attachment format (ATTACHMENT_FORMATS in ./subscriptions.ts). */
const FORMAT_NAMES = { csv: "CSV", xlsx: "Excel workbook", pdf: "PDF" } as const;

/** An attachment that could not be made: the issue is not sent, and the owner is told why. */
export class AttachmentError extends Error {}

const failed = (format: keyof typeof FORMAT_NAMES, e: unknown) => new AttachmentError(`The ${FORMAT_NAMES[format]} could not be made (${e instanceof Error ? e.message : String(e)}).`);

/**
 * The table files of the formats asked for, CSVs first whatever order they were chosen in: a CSV per
 * table, one workbook holding every table (a sheet each, named by its title). The PDF is not a table
 * file (pdfAttachment). Throws AttachmentError when one cannot be made, so no e-mail goes out with
 * some of its files.
 */
export async function attachmentsOf(drawn: NonNullable<ReturnType<typeof mailTables>>, asked: readonly string[], workbook: (spec: WorkbookSpec) => Promise<Buffer>): Promise<Attachment[]> {
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

/** A saved report's PDF with `owner`'s rights; `queue` "background" for a scheduled slot. */
export type PdfMaker = (owner: SessionUser, reportId: string, queue: "user" | "background") => Promise<{ pdf: Buffer; fileName: string }>;

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

/**
 * The subscription's report as a PDF attachment, made with the owner's rights (`asked`: a person
 * pressed "Send now" and waits, so it queues in their turn and is asked once). A scheduled PDF the
 * renderer cannot make yet is asked again (PDF_RETRY); throws AttachmentError when it cannot be made
 * in the end.
 */
export async function pdfAttachment(
  maker: { db: Store; pdf?: PdfMaker; clock?: RetryClock },
  sub: Pick<Subscription, "ownerId" | "reportId">,
  asked: boolean,
): Promise<Attachment> {
  let made: { pdf: Buffer; fileName: string };
  const clock = maker.clock ?? realClock;
  const until = clock.now() + PDF_RETRY.budgetMs;
  try {
    for (let attempt = 1; ; attempt += 1) {
      if (!maker.pdf) throw new Error("this process makes no PDFs");
      // The owner's rights are read again at each attempt: a retry never outlives them.
      const owner = await usersRepo(maker.db).findById(sub.ownerId);
      if (!owner || owner.disabled) throw new Error("its owner may no longer see the report");
      try {
        made = await maker.pdf({ id: owner.id, email: owner.email, role: owner.role }, sub.reportId, asked ? "user" : "background");
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
  return { filename: made.fileName, content: made.pdf.toString("base64"), contentType: "application/pdf", encoding: "base64" };
}
