import "server-only";
/**
 * Explore's rows table as an Excel workbook written on the server, for a table too long for the
 * browser's in-memory writer (./explore.ts SERVER_WORKBOOK_ROWS). The question is the Explore page's
 * own URL state, resolved as the page resolves it (exploreLook, as of today in the reporting time
 * zone); its answers come through the same gateway, in the asking user's turn and under their job
 * limit, so the workbook never costs an upstream call the report itself would not: an answer the
 * page has just shown is in the cache or the kept days. The table is the page's (the same view,
 * model and sort) and the sheet the CSV's (tableSheet), written by exceljs's streaming writer into
 * the response as it is made.
 */
import { PassThrough } from "node:stream";
import { OPERATION_TABLE } from "@/lib/contract/operations";
import { todayIn } from "@/lib/contract/dates";
import { ApiError } from "@/lib/contract/errors";
import { ERROR_TYPES, type ErrorStatus } from "@/lib/contract/error-envelope";
import { jsonResponse } from "@/lib/core/route/json-response";
import type { JobView, ReportGateway } from "@/lib/core/upstream/gateway";
import type { ReportData } from "@/lib/report/client/queries";
import type { ReportRequestSpec } from "@/lib/report/state/request";
import { effectiveSort, exploreLook } from "@/lib/report/state/explore";
import { sortRows } from "@/lib/report/table/sort";
import { tableSheet } from "@/lib/report/table/csv";
import { singleTableBook, XLSX_TYPE, type WorkbookSpec } from "@/lib/report/table/xlsx";
import { streamWorkbook } from "@/lib/report/table/xlsx-stream";
import { computable, exploreExportLines, exploreFileName, reportView, tableModel } from "./explore";

export interface ExploreWorkbookDeps {
  gateway: ReportGateway;
  /** Whose turn the report's jobs queue in, and whose job limit they count against: the signed-in user. */
  owner: string;
  timeZone: string;
  /** How long to hold on for an answer still being fetched before saying so (the report routes' `?wait=`). */
  waitMs: number;
  now?: () => Date;
}

export type ExploreWorkbook =
  /** `rows`: the table's rows, without its header and totals. */
  | { kind: "ready"; fileName: string; spec: WorkbookSpec; rows: number }
  /** An answer is still being fetched: the job to poll, as the report routes answer 202. */
  | { kind: "waiting"; job: JobView };

const statusOf = (n: number): ErrorStatus => (n in ERROR_TYPES ? (n as ErrorStatus) : 503);

/** One of the page's requests through the gateway: its answer, or the job it waits on. */
async function answer(deps: ExploreWorkbookDeps, asked: ReportRequestSpec): Promise<{ data: ReportData } | { job: JobView }> {
  const { gateway, owner, waitMs } = deps;
  // The body the page posts, checked as the report route checks it (a 400 naming the field).
  const query = gateway.parse(asked.op, asked.request);
  const out = gateway.submit(asked.op, query, owner);
  if ("cached" in out) return { data: { op: asked.op, request: asked.request, result: out.cached } };
  const job = (await gateway.settle(out.job.id, waitMs)) ?? out.job;
  const s = job.status;
  if (s.state === "done") return { data: { op: asked.op, request: asked.request, result: s.result } };
  if (s.state === "failed") throw new ApiError(statusOf(s.error.status), `${s.error.message} ${s.error.action}`);
  if (s.state === "cancelled") throw new ApiError(409, "The report was cancelled. Run it again, then download the workbook.");
  return { job };
}

/**
 * The workbook of the Explore page at `search` (its URL's query string), or the job one of its
 * answers waits on. A URL the page would not run (a problem, or no report named) is a 400.
 */
export async function exploreWorkbook(search: string, deps: ExploreWorkbookDeps): Promise<ExploreWorkbook> {
  const now = deps.now?.() ?? new Date();
  const today = todayIn(deps.timeZone, now);
  const look = exploreLook(search, today);
  if (look.problems.length > 0) {
    throw new ApiError(
      400,
      `The report's settings have ${look.problems.length === 1 ? "a problem" : "problems"}: ${look.problems.map((p) => p.message).join(" ")}`,
      look.problems.map((p) => ({ path: `search.${p.param}`, message: p.message })),
    );
  }
  if (!look.spec) throw new ApiError(400, "The settings name no report to run (op and range are needed).", [{ path: "search", message: "names no report" }]);
  const { state } = look;
  const asked = [look.spec, look.comparison, look.coverage];
  const answers = await Promise.all(asked.map((a) => (a ? answer(deps, a) : null)));
  for (const a of answers) if (a && "job" in a) return { kind: "waiting", job: a.job };
  const [data, cmpData, covData] = answers.map((a) => (a && "data" in a ? a.data : null));
  if (!data) throw new Error("an Explore look with a report has its answer");
  const view = reportView(state, data, cmpData ?? null, covData ?? null);
  const model = tableModel(view, computable(state, data), today);
  const rows = sortRows(model, effectiveSort(data.request.group_by ?? [], state.sort));
  const lines = exploreExportLines({ state, data, view, model, today, timeZone: deps.timeZone }, now);
  const sheet = tableSheet(model, rows, { lines });
  return { kind: "ready", fileName: `${exploreFileName(data, view)}.xlsx`, spec: singleTableBook(OPERATION_TABLE[data.op].label, sheet), rows: rows.length };
}

/**
 * Workbooks written at once by this process. Each holds its table (about 5 KiB a row:
 * docs/benchmarks.md) while it is written, so the bound keeps a few long downloads at a time from
 * adding up; past it the caller is asked to try again shortly. One person writes one at a time, so
 * no one can hold every slot and keep the others' downloads waiting.
 */
export const WORKBOOK_SLOTS = 2;
let writing = 0;
const writingBy = new Map<string, number>();

/** A slot for one of `owner`'s workbooks, released once (when the response is written, fails or is abandoned). */
function takeWorkbookSlot(owner: string): () => void {
  if ((writingBy.get(owner) ?? 0) >= 1) {
    throw new ApiError(429, "Your previous long workbook is still being written; download this one once it has arrived.", undefined, { "Retry-After": "5" }, { retry_after: 5 });
  }
  if (writing >= WORKBOOK_SLOTS) {
    throw new ApiError(503, `${WORKBOOK_SLOTS} long workbooks are being written; try again in a few seconds.`, undefined, { "Retry-After": "5" }, { retry_after: 5 });
  }
  writing++;
  writingBy.set(owner, (writingBy.get(owner) ?? 0) + 1);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    writing--;
    const left = (writingBy.get(owner) ?? 1) - 1;
    if (left > 0) writingBy.set(owner, left);
    else writingBy.delete(owner);
  };
}

/**
 * The workbook as a streamed response: exceljs writes it into the body as the reader takes it
 * (the writer waits while the reader is behind), so neither side holds the whole file. `done` runs
 * when the body is finished, has failed, or the reader went away.
 */
function workbookResponse(fileName: string, spec: WorkbookSpec, done: () => void = () => {}): Response {
  const out = new PassThrough();
  out.once("close", done);
  streamWorkbook(spec, out).catch((e: unknown) => {
    // The reader going away ends the writing; anything else is logged (never the table's content).
    if (!out.destroyed) console.error(JSON.stringify({ level: "error", msg: "workbook failed", error: e instanceof Error ? e.message : String(e) }));
    out.destroy(e instanceof Error ? e : new Error(String(e)));
  });
  const ascii = fileName.replace(/[^A-Za-z0-9._-]+/g, "-");
  // Pulled from the writer's stream a chunk at a time; a cancelled body destroys that stream, which
  // ends the writing and gives back the slot. Node's Readable.toWeb kept pushing the writer's data
  // into a body its reader had cancelled (an uncaught error in the server), and ReadableStream.from
  // leaves the stream open when the body is cancelled before its first read.
  const chunks = out[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.byteLength));
      },
      cancel() {
        out.destroy();
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    status: 200,
    headers: {
      "Content-Type": XLSX_TYPE,
      "Content-Disposition": `attachment; filename="${ascii}"`,
      "Cache-Control": "no-store",
    },
  });
}

/**
 * What the route answers: the streamed workbook (200), or, while an answer is being fetched, the
 * job to poll (202 with its Location, the report routes' body), after which the same request gives
 * the file. The slot is held from before the table is built until the body is written.
 */
export async function exploreWorkbookResponse(search: string, deps: ExploreWorkbookDeps): Promise<Response> {
  const release = takeWorkbookSlot(deps.owner);
  try {
    const book = await exploreWorkbook(search, deps);
    if (book.kind === "waiting") {
      release();
      return jsonResponse(JSON.stringify(book.job), 202, { Location: `/api/reports/jobs/${book.job.id}` });
    }
    return workbookResponse(book.fileName, book.spec, release);
  } catch (e) {
    release();
    throw e;
  }
}
