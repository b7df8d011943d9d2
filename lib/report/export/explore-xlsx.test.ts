/**
 * Explore's long-table workbook, written on the server, against the real service: the streamed
 * file read back with exceljs holds exactly the CSV the page writes for the same table (question
 * lines, header, every row over more than one call's 1,000 records, totals; types and formats), the
 * header frozen and filterable; a table the page has already fetched costs no further call; an
 * answer still being fetched is a 202 with the asker's own job to follow; the asker's job limit holds;
 * settings the page would not run are a 400 naming each problem and cost nothing; past the
 * process's workbook slots a 503 says when to come back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "@/lib/contract/errors";
import { OPERATION_TABLE } from "@/lib/contract/operations";
import type { JobView, ReportGateway } from "@/lib/core/upstream/gateway";
import { parseCsv } from "@/lib/core/testing/csv";
import type { ReportData } from "@/lib/report/client/queries";
import { effectiveSort, exploreLook } from "@/lib/report/state/explore";
import type { ReportRequestSpec } from "@/lib/report/state/request";
import { tableSheet, tableToCsv } from "@/lib/report/table/csv";
import { sortRows } from "@/lib/report/table/sort";
import { questionLines, readWorkbook, sheetAsCsvRows, typeMismatches } from "@/lib/report/table/testing/xlsx";
import { QUESTION_SHEET, XLSX_TYPE } from "@/lib/report/table/xlsx";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { computable, exploreExportLines, reportView, tableModel } from "./explore";
import { exploreWorkbookResponse, WORKBOOK_SLOTS, type ExploreWorkbookDeps } from "./explore-xlsx";

const NOW = new Date("2025-08-01T10:00:00Z");
const TODAY = "2025-08-01";
const OWNER = "analyst-1";
// Two months by day and BIN: more rows than one call's 1,000 records; chargeback rates still maturing.
const LONG = "op=orders&range=2025-06-01..2025-07-31&by=date,bin&m=attempts,approvals,revenue&kpi=approval_rate,cb_rate_count&sort=-revenue";
// A comparison broken down by card brand: three requests (the report, the compared days, their coverage).
const COMPARED = "op=orders&range=2025-07-01..2025-07-31&by=card_brand&cmp=prev&m=attempts,revenue&kpi=approval_rate";

let svc: TestService;
let gateway: ReportGateway;

const calls = () => svc.logLines.filter((l) => /"path":"\/api\/data(\/cohort)?"/.test(l)).length;
const deps = (over: Partial<ExploreWorkbookDeps> = {}): ExploreWorkbookDeps => ({ gateway, owner: OWNER, timeZone: "UTC", waitMs: 60_000, now: () => NOW, ...over });

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!(e instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(e)}`);
  return e;
}

/** An answer as the page holds it, from the gateway's cache (the page's own request already answered). */
function held(asked: ReportRequestSpec | null): ReportData | null {
  if (!asked) return null;
  const result = gateway.lookup(asked.op, gateway.parse(asked.op, asked.request));
  if (!result) throw new Error("the answer is not in the cache");
  return { op: asked.op, request: asked.request, result };
}

/** What the page's "Download CSV" writes for the Explore URL `search`, from the answers it holds. */
function pageCsv(search: string) {
  const look = exploreLook(search, TODAY);
  const data = held(look.spec)!;
  const view = reportView(look.state, data, held(look.comparison), held(look.coverage));
  const model = tableModel(view, computable(look.state, data), TODAY);
  const rows = sortRows(model, effectiveSort(data.request.group_by ?? [], look.state.sort));
  const lines = exploreExportLines({ state: look.state, data, view, model, today: TODAY, timeZone: "UTC" }, NOW);
  const csv = parseCsv(tableToCsv(model, rows, { lines }));
  const blank = csv.findIndex((r) => r.length === 1 && r[0] === "");
  return { lines: csv.slice(0, blank), table: csv.slice(blank + 1), sheet: tableSheet(model, rows, { lines }), data };
}

/** The page's own requests, run as it runs them (its user's turn), to the end. */
async function runAsPage(search: string): Promise<void> {
  const look = exploreLook(search, TODAY);
  for (const asked of [look.spec, look.comparison, look.coverage]) {
    if (!asked) continue;
    const out = gateway.submit(asked.op, gateway.parse(asked.op, asked.request), OWNER);
    if ("job" in out) await gateway.wait(out.job.id);
  }
}

async function expectSameAsCsv(res: Response, search: string) {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe(XLSX_TYPE);
  expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="order-summary_2025-0\d-01_2025-07-31[^"]*\.xlsx"$/);
  const book = await readWorkbook(Buffer.from(await res.arrayBuffer()));
  const { lines, table, sheet, data } = pageCsv(search);
  const title = OPERATION_TABLE.orders.label;
  expect(book.worksheets.map((w) => w.name)).toEqual([QUESTION_SHEET, title]);
  expect(questionLines(book)).toEqual(lines);
  const ws = book.getWorksheet(title)!;
  expect(sheetAsCsvRows(ws, sheet.kinds.length)).toEqual(table);
  expect(typeMismatches(ws, sheet)).toEqual([]);
  expect(ws.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
  expect(ws.autoFilter).toMatch(new RegExp(`^A1:[A-Z]+${1 + sheet.rows.length}$`));
  return { sheet, data };
}

beforeAll(async () => {
  svc = await startTestService({ env: { REPORT_RATE_LIMIT: "100000" } });
  gateway = gatewayFor(svc);
});

afterAll(async () => {
  await svc?.stop();
});

describe("Explore's workbook written on the server", () => {
  it("holds exactly the page's CSV of a table longer than one call's 1,000 records, and the service's records", async () => {
    // The page runs the report (more than one call), then its Excel button asks for the workbook: no call more.
    const before = calls();
    await runAsPage(LONG);
    const fetched = calls();
    expect(fetched - before).toBeGreaterThan(1);
    const { sheet, data } = await expectSameAsCsv(await exploreWorkbookResponse(LONG, deps()), LONG);
    expect(calls()).toBe(fetched);
    expect(sheet.rows.length).toBeGreaterThan(1_000);
    expect(sheet.header).toContain("Maturing");
    // Every record the service has for the question is in the table's answer.
    const key = (r: object) => JSON.stringify(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)));
    const direct = await svc.allRecords("/api/data", { ...data.request });
    expect(data.result.data.map(key).sort()).toEqual(direct.map(key).sort());
  });

  it("costs no call once the page has its answers, a comparison's three included", async () => {
    await runAsPage(COMPARED);
    const before = calls();
    const { sheet } = await expectSameAsCsv(await exploreWorkbookResponse(COMPARED, deps()), COMPARED);
    expect(sheet.rows.length).toBeGreaterThan(0);
    expect(calls()).toBe(before);
  });

  it("says an answer is still being fetched with the asker's own job (202), then gives the file", async () => {
    const fresh = gatewayFor(svc);
    const res = await exploreWorkbookResponse(LONG, deps({ gateway: fresh, waitMs: 0 }));
    expect(res.status).toBe(202);
    const job = (await res.json()) as JobView;
    expect(res.headers.get("location")).toBe(`/api/reports/jobs/${job.id}`);
    expect(["queued", "fetching"]).toContain(job.status.state);
    // The handle is the asker's alone, as the report route's jobs are.
    expect(fresh.get(job.id, "someone-else")).toBeNull();
    expect((await fresh.settle(job.id, 60_000, OWNER))?.status.state).toBe("done");
    const after = await exploreWorkbookResponse(LONG, deps({ gateway: fresh, waitMs: 0 }));
    expect(after.status).toBe(200);
    await after.arrayBuffer();
  });

  it("counts against the asker's job limit", async () => {
    const tight = gatewayFor(svc, { maxJobsPerOwner: 1 });
    const e = await refusal(exploreWorkbookResponse(COMPARED, deps({ gateway: tight, waitMs: 0 })));
    expect(e.status).toBe(429);
  });

  it("refuses settings the page would not run with a 400 naming each, and costs no call", async () => {
    const before = calls();
    const bad = await refusal(exploreWorkbookResponse("op=orders&range=2025-06-01..2025-07-31&by=date,nosuch&m=attempts", deps()));
    expect(bad.status).toBe(400);
    expect(bad.details?.map((d) => d.path)).toEqual(["search.by"]);
    const range = await refusal(exploreWorkbookResponse("op=orders&range=2025-07-31..2025-06-01&m=attempts", deps()));
    expect(range.status).toBe(400);
    expect(range.details?.map((d) => d.path)).toEqual(["search.range"]);
    const none = await refusal(exploreWorkbookResponse("", deps()));
    expect(none.status).toBe(400);
    expect(calls()).toBe(before);
  });

  it("writes at most its slots' workbooks at once, one a person, and takes the next once one is read", async () => {
    // Unread bodies: their writers wait for their readers, each holding its slot, one person's each.
    const owners = Array.from({ length: WORKBOOK_SLOTS }, (_, i) => (i === 0 ? OWNER : `${OWNER}-colleague-${i}`));
    const open = await Promise.all(owners.map((owner) => exploreWorkbookResponse(LONG, deps({ owner }))));
    expect(open.map((r) => r.status)).toEqual(open.map(() => 200));
    const busy = await refusal(exploreWorkbookResponse(LONG, deps({ owner: `${OWNER}-latecomer` })));
    expect(busy.status).toBe(503);
    expect(busy.headers["Retry-After"]).toBe("5");
    // A person already writing one is told to wait for it, whatever the free slots.
    const again = await refusal(exploreWorkbookResponse(LONG, deps()));
    expect(again.status).toBe(429);
    expect(again.headers["Retry-After"]).toBe("5");
    // One read to the end, one abandoned by its reader: both slots come back.
    await open[0]!.arrayBuffer();
    await open[1]!.body!.cancel();
    let next: Response | null = null;
    for (let turn = 0; turn < 1_000 && !next; turn++) {
      next = await exploreWorkbookResponse(LONG, deps()).catch((e: unknown) => {
        // Until the slots are given back (the owner's own among them, hence a 429 meanwhile).
        if (e instanceof ApiError && (e.status === 503 || e.status === 429)) return null;
        throw e;
      });
      if (!next) await new Promise((r) => setImmediate(r));
    }
    expect(next?.status).toBe(200);
    await next!.arrayBuffer();
  });
  it("holds its bounds when many people ask at the same moment: at most its slots, never two a person", async () => {
    // Four people, each asking twice, every request sent before any is answered.
    const people = Array.from({ length: 4 }, (_, i) => `${OWNER}-racer-${i}`);
    const asked = people.flatMap((owner) => [owner, owner]);
    const settled = await Promise.allSettled(asked.map((owner) => exploreWorkbookResponse(LONG, deps({ owner }))));
    const written = settled.flatMap((r, i) => (r.status === "fulfilled" ? [{ owner: asked[i]!, res: r.value }] : []));
    const refused = settled.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
    expect(written.map((w) => w.res.status)).toEqual(Array.from({ length: WORKBOOK_SLOTS }, () => 200));
    expect(new Set(written.map((w) => w.owner)).size, "one workbook a person").toBe(WORKBOOK_SLOTS);
    expect(refused).toHaveLength(asked.length - WORKBOOK_SLOTS);
    for (const e of refused) {
      expect(e).toBeInstanceOf(ApiError);
      expect([429, 503]).toContain((e as ApiError).status);
    }
    // Everyone whose first request was written has their second refused as theirs (429), not as the process's (503).
    const writers = new Set(written.map((w) => w.owner));
    expect(refused.filter((e) => (e as ApiError).status === 429)).toHaveLength(writers.size);
    for (const w of written) await w.res.body!.cancel();
    // Their slots come back: the next person is written.
    let next: Response | null = null;
    for (let turn = 0; turn < 1_000 && !next; turn++) {
      next = await exploreWorkbookResponse(LONG, deps({ owner: `${OWNER}-after-the-race` })).catch((e: unknown) => {
        if (e instanceof ApiError && e.status === 503) return null;
        throw e;
      });
      if (!next) await new Promise((r) => setImmediate(r));
    }
    expect(next?.status).toBe(200);
    await next!.arrayBuffer();
  });
});
