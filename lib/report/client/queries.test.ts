/**
 * The report pages' fetching (./queries.ts) on a real react-query client (./query-client.ts, as the
 * browser makes it) and real fetches over HTTP to a local server that speaks the dashboard's report
 * API as SPEC.md and the dashboard's routes do: a report is a job, answered 202 while queued and
 * long-polled at /api/reports/jobs/:id until the test finishes, fails or the client cancels it
 * (DELETE). The browser's relative URLs are sent to that server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { environmentManager, hashKey, QueryObserver, type QueryClient } from "@tanstack/react-query";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { DashboardAnswer, TileAnswer } from "@/lib/features/dashboards/answer";
import type { UpstreamStatus } from "@/lib/core/api-client/fetch";
import type { JobResult, JobStatus, JobView } from "./api";
import { dashboardQuery } from "@/lib/features/dashboards/look-query";
import { cancelReport, reportProgressQuery, reportQuery, REPORT_STALE_MS, upstreamStatusQuery, type ReportAsked } from "./queries";
import { makeQueryClient } from "@/lib/core/api-client/query-client";
import { queueWords } from "./queue-words";
import { describeStatus } from "./status";

interface Job {
  view: JobView;
  /** Long polls waiting for the job to change. */
  waiting: Set<() => void>;
}

/** The dashboard's report API, as far as the browser uses it, with jobs the test moves by hand. */
class Desk {
  readonly posts: { path: string; body: unknown }[] = [];
  readonly deletes: string[] = [];
  readonly jobs: Job[] = [];
  statusCalls = 0;
  status: () => UpstreamStatus = () => quota(null);
  dashboardCalls: unknown[] = [];
  dashboard: (call: number) => DashboardAnswer = () => look([]);

  job(i: number): Job {
    const job = this.jobs[i];
    if (!job) throw new Error(`No job ${i}: ${this.jobs.length} submitted.`);
    return job;
  }

  move(i: number, status: JobStatus): void {
    const job = this.job(i);
    job.view = { ...job.view, status };
    for (const wake of [...job.waiting]) wake();
  }

  finish(i: number, result: JobResult): void {
    this.move(i, { state: "done", result });
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://local");
    const text = await new Promise<string>((resolve) => {
      let s = "";
      req.on("data", (c: Buffer) => (s += c.toString()));
      req.on("end", () => resolve(s));
    });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "POST" && url.pathname === "/api/reports/order-summary") {
      const body: unknown = JSON.parse(text);
      this.posts.push({ path: url.pathname, body });
      const at = Date.now() + 1_000;
      const view: JobView = {
        id: `job${this.jobs.length}`,
        operation: "orders",
        query: body as JobView["query"],
        created_at: new Date().toISOString(),
        status: { state: "queued", position: this.jobs.filter((j) => j.view.status.state === "queued").length, estimated_start: new Date(at).toISOString(), estimated_done: new Date(at).toISOString(), call: 1, calls: 1, calls_exact: true },
      };
      this.jobs.push({ view, waiting: new Set() });
      return send(202, view);
    }
    const jobPath = /^\/api\/reports\/jobs\/(job\d+)$/.exec(url.pathname);
    if (jobPath) {
      const job = this.jobs.find((j) => j.view.id === jobPath[1]);
      if (!job) return send(404, { success: false, code: 404, message: "No such report job" });
      if (req.method === "DELETE") {
        this.deletes.push(job.view.id);
        this.move(this.jobs.indexOf(job), { state: "cancelled" });
        return send(200, job.view);
      }
      // Long polling: held until the job changes or the wait passes.
      const before = job.view;
      if (before.status.state === "queued" || before.status.state === "fetching") {
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            job.waiting.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, Number(url.searchParams.get("wait") ?? 0));
          job.waiting.add(wake);
          res.on("close", wake);
        });
      }
      return send(200, job.view);
    }
    if (req.method === "GET" && url.pathname === "/api/upstream/status") {
      this.statusCalls++;
      return send(200, this.status());
    }
    if (req.method === "POST" && url.pathname === "/api/dashboards/run") {
      this.dashboardCalls.push(JSON.parse(text));
      return send(200, this.dashboard(this.dashboardCalls.length));
    }
    send(404, { success: false, code: 404, message: "Not found" });
  }
}

const quota = (nextFreeAt: string | null): UpstreamStatus => ({
  limit_per_window: 10,
  window_seconds: 60,
  calls_in_window: nextFreeAt ? 10 : 0,
  next_slot_at: new Date().toISOString(),
  paused_until: null,
  next_free_at: nextFreeAt,
  queue_length: 0,
  background_queue_length: 0,
  jobs_running: 0,
  cache_entries: 0,
  cache_bytes: 0,
  upstream_report_calls: 0,
});

const tile = (index: number, outcome: TileAnswer["outcome"]): TileAnswer => ({ index, title: `Tile ${index}`, kind: "kpi", notes: [], keeps: [], outcome });
const look = (tiles: TileAnswer[]): DashboardAnswer => ({ today: "2025-07-31", tiles, plan: [], naiveCalls: 0, plannedCalls: 0, asOf: null });
const pending = (index: number) => tile(index, { status: "pending", step: 0, position: 1, estimated_start: null });
const drawn = (index: number) => tile(index, { status: "failed", message: "drawn" });

const result = (total: number): JobResult => ({ source: "upstream", fetched_at: "2025-07-31T12:00:00.000Z", upstream_calls: 1, total, data: [] });

const asked = (request: Partial<ReportAsked["request"]> = {}): ReportAsked => ({ op: "orders", request: { start_date: "2025-07-01", end_date: "2025-07-31", group_by: ["date"], ...request } });

/** Waits (real time) until `check` holds. */
async function until(check: () => boolean, what = "the condition", ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const realFetch = globalThis.fetch;
let server: Server;
let desk: Desk;
let client: QueryClient;

beforeAll(async () => {
  // As in the browser, where react-query keeps timers (polling, forgetting answers) it does not keep on a server.
  environmentManager.setIsServer(() => false);
  server = createServer((req, res) => void desk.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The browser's fetch resolves the dashboard's relative URLs against the page: here, the local server.
  vi.stubGlobal("fetch", (input: string, init?: RequestInit) => realFetch(new URL(input, base), init));
});
afterAll(async () => {
  vi.unstubAllGlobals();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  desk = new Desk();
  client = makeQueryClient();
});
afterEach(() => client.clear());

/** A screen showing the report: its entry and its progress, as useReport watches them. */
function screen(a: ReportAsked | null) {
  const report = new QueryObserver(client, reportQuery(a));
  const progress = new QueryObserver(client, reportProgressQuery(a));
  let told = 0;
  const seen: string[] = [];
  const stops = [report.subscribe(() => told++), progress.subscribe((r) => seen.push(`${r.data?.jobId ?? "-"} ${r.data?.status.state ?? "none"}`))];
  return {
    report,
    /** Each progress the screen was shown, as "job state". */
    seen,
    progress: () => progress.getCurrentResult().data ?? null,
    told: () => told,
    leave: () => stops.forEach((s) => s()),
  };
}

describe("a report's key", () => {
  it("is the same for the same request whatever its properties' order, and differs with the group-by's order", () => {
    const key = (a: ReportAsked) => hashKey(reportQuery(a).queryKey);
    expect(key(asked({ filters: { gateway_id: [1], card_brand: ["VISA"] } }))).toBe(
      key({ op: "orders", request: { filters: { card_brand: ["VISA"], gateway_id: [1] }, group_by: ["date"], end_date: "2025-07-31", start_date: "2025-07-01" } }),
    );
    expect(key(asked({ group_by: ["date", "gateway_id"] }))).not.toBe(key(asked({ group_by: ["gateway_id", "date"] })));
    expect(key({ ...asked(), op: "cohort" })).not.toBe(key(asked()));
  });
});

describe("a report", () => {
  it("is fetched once for identical requests in flight, says where it waits in the queue, and tells its screen", async () => {
    const s = screen(asked({ filters: { gateway_id: [1], card_brand: ["VISA"] } }));
    // The same question written in another order joins the same job.
    const other = client.fetchQuery(reportQuery(asked({ filters: { card_brand: ["VISA"], gateway_id: [1] } })));
    await until(() => s.progress()?.status.state === "queued", "the queued status");
    expect(desk.posts).toHaveLength(1);
    expect(s.report.getCurrentResult()).toMatchObject({ isFetching: true, data: undefined });
    // The status line's words for it, as a running report's progress gives them.
    const waiting = describeStatus({ kind: "running", progress: s.progress() }, "UTC");
    expect(waiting).toMatchObject({ title: "Queued", busy: true });
    const queued = s.progress();
    if (queued?.status.state !== "queued") throw new Error("Not queued.");
    expect(waiting.detail).toBe(`${queueWords(queued.status, queued.at)}.`);
    expect(waiting.detail).toMatch(/^Next in line; estimated start /);
    desk.finish(0, result(42));
    const answer = await other;
    expect(answer).toEqual({ ...asked({ filters: { card_brand: ["VISA"], gateway_id: [1] } }), result: result(42) });
    await until(() => !s.report.getCurrentResult().isFetching, "the fetch to settle");
    expect(s.report.getCurrentResult()).toMatchObject({ data: answer, error: null, isPlaceholderData: false });
    expect(s.report.getCurrentResult().dataUpdatedAt).toBeGreaterThan(0);
    expect(s.progress()?.status.state).toBe("done");
    expect(s.told()).toBeGreaterThanOrEqual(2);
    expect(desk.posts).toHaveLength(1);
    // Answered and fresh: asking again costs no call.
    await expect(client.fetchQuery(reportQuery(asked({ filters: { gateway_id: [1], card_brand: ["VISA"] } })))).resolves.toEqual(answer);
    expect(desk.posts).toHaveLength(1);
    expect(reportQuery(asked()).staleTime).toBe(REPORT_STALE_MS);
    // A refetch is a new job.
    void s.report.refetch();
    await until(() => desk.posts.length === 2, "a second job");
    desk.finish(1, result(43));
    await until(() => s.report.getCurrentResult().data?.result.total === 43, "the second answer");
    s.leave();
  });

  it("keeps an error, and the answer it had, when a fetch fails", async () => {
    const s = screen(asked());
    await until(() => desk.jobs.length === 1, "the job");
    desk.finish(0, result(1));
    await until(() => s.report.getCurrentResult().data !== undefined, "the answer");
    void s.report.refetch();
    await until(() => desk.jobs.length === 2, "the second job");
    desk.move(1, { state: "failed", error: { status: 502, message: "The reporting service failed", action: "Try again later." } });
    await until(() => s.report.getCurrentResult().error !== null, "the error");
    expect(s.report.getCurrentResult()).toMatchObject({ isFetching: false, data: { result: result(1) } });
    expect(s.report.getCurrentResult().error).toMatchObject({ status: 502, message: "The reporting service failed", action: "Try again later." });
    s.leave();
  });

  it("is cancelled by the client: the job is cancelled on the server, the entry reverts, and its progress says so", async () => {
    const s = screen(asked());
    await until(() => s.progress()?.status.state === "queued", "the queued status");
    await cancelReport(client, asked());
    await until(() => s.progress()?.status.state === "cancelled" && desk.deletes.length === 1, "the cancelled status");
    expect(desk.deletes).toEqual(["job0"]);
    expect(s.report.getCurrentResult()).toMatchObject({ data: undefined, error: null, isFetching: false, dataUpdatedAt: 0 });
    expect(describeStatus({ kind: "running", progress: s.progress() }, "UTC").title).toBe("Cancelled");
    s.leave();
  });

  it("is cancelled when the last screen showing it goes, not before, and is then as if never asked", async () => {
    const one = screen(asked());
    const two = screen(asked());
    await until(() => one.progress()?.status.state === "queued", "the queued status");
    one.leave();
    await new Promise((r) => setTimeout(r, 200));
    expect(desk.deletes).toEqual([]);
    expect(two.report.getCurrentResult().isFetching).toBe(true);
    two.leave();
    await until(() => desk.deletes.length === 1, "the job's cancellation");
    await until(() => client.getQueryCache().find({ queryKey: reportProgressQuery(asked()).queryKey }) === undefined, "the progress to go");
    expect(client.getQueryState(reportQuery(asked()).queryKey)).toMatchObject({ data: undefined, error: null, fetchStatus: "idle" });
    // Shown again, it starts afresh.
    const three = screen(asked());
    await until(() => desk.jobs.length === 2, "a new job");
    expect(three.report.getCurrentResult().isFetching).toBe(true);
    three.leave();
  });

  it("is restarted by a refetch of an answered report: the job running is cancelled, and only the newer one's progress and answer are kept", async () => {
    const s = screen(asked());
    await until(() => desk.jobs.length === 1, "the first job");
    desk.finish(0, result(0));
    await until(() => s.report.getCurrentResult().data !== undefined, "the first answer");
    void s.report.refetch();
    await until(() => s.progress()?.jobId === "job1" && s.progress()?.status.state === "queued", "the second job");
    const from = s.seen.length;
    void s.report.refetch();
    await until(() => desk.deletes.length === 1 && desk.jobs.length === 3, "the second job cancelled, the third submitted");
    expect(desk.deletes).toEqual(["job1"]);
    await until(() => s.progress()?.jobId === "job2", "the third job's progress");
    // The second fetch's last word ("cancelled") came after the third started: it is not kept.
    await new Promise((r) => setTimeout(r, 100));
    expect(s.progress()).toMatchObject({ jobId: "job2", status: { state: "queued" } });
    // From the restart on, the screen said the new fetch was starting, then where its job waits; never "cancelled".
    expect(s.seen.slice(from)).toEqual(["- submitting", "job2 queued"]);
    expect(s.report.getCurrentResult()).toMatchObject({ isFetching: true, data: { result: result(0) } });
    desk.finish(2, result(2));
    await until(() => !s.report.getCurrentResult().isFetching, "the answer");
    expect(s.report.getCurrentResult().data?.result.total).toBe(2);
    s.leave();
  });

  it("is joined, not restarted, by a refetch while its first answer is still on its way", async () => {
    const s = screen(asked());
    await until(() => s.progress()?.status.state === "queued", "the job");
    void s.report.refetch();
    await new Promise((r) => setTimeout(r, 200));
    expect(desk.jobs).toHaveLength(1);
    expect(desk.deletes).toEqual([]);
    desk.finish(0, result(5));
    await until(() => !s.report.getCurrentResult().isFetching, "the answer");
    expect(s.report.getCurrentResult().data?.result.total).toBe(5);
    s.leave();
  });

  it("keeps the previous answer on screen, flagged, while the next request's is fetched", async () => {
    const s = screen(asked());
    await until(() => desk.jobs.length === 1, "the job");
    desk.finish(0, result(1));
    await until(() => s.report.getCurrentResult().data !== undefined, "the answer");
    s.report.setOptions(reportQuery(asked({ group_by: ["gateway_id"] })));
    await until(() => desk.jobs.length === 2, "the next job");
    expect(s.report.getCurrentResult()).toMatchObject({ isPlaceholderData: true, isFetching: true, data: { request: asked().request } });
    desk.finish(1, result(2));
    await until(() => !s.report.getCurrentResult().isFetching, "the next answer");
    expect(s.report.getCurrentResult()).toMatchObject({ isPlaceholderData: false, data: { request: asked({ group_by: ["gateway_id"] }).request, result: result(2) } });
    s.leave();
  });

  it("is cancelled when its screen moves to another question while it runs", async () => {
    const s = screen(asked());
    await until(() => s.progress()?.status.state === "queued", "the first job");
    s.report.setOptions(reportQuery(asked({ group_by: ["gateway_id"] })));
    await until(() => desk.deletes.length === 1 && desk.jobs.length === 2, "the first job cancelled, the next submitted");
    expect(desk.deletes).toEqual(["job0"]);
    expect(desk.posts.map((p) => p.body)).toEqual([asked().request, asked({ group_by: ["gateway_id"] }).request]);
    s.leave();
  });

  it("asks nothing while there is no request", async () => {
    const s = screen(null);
    await new Promise((r) => setTimeout(r, 100));
    expect(desk.posts).toEqual([]);
    expect(s.report.getCurrentResult()).toMatchObject({ isFetching: false, data: undefined });
    s.leave();
  });

  it("holds 100 requests at once of 20 reports to one job each, each with its own answer", async () => {
    const requests = Array.from({ length: 100 }, (_, i) => asked({ end_date: `2025-07-${String(10 + (i % 20)).padStart(2, "0")}` }));
    const runs = requests.map((a) => client.fetchQuery(reportQuery(a)));
    await until(() => desk.jobs.length === 20, "20 jobs");
    await new Promise((r) => setTimeout(r, 100));
    expect(desk.posts).toHaveLength(20);
    // Entries being fetched are all held while they run.
    expect(client.getQueryCache().findAll({ queryKey: ["report"] })).toHaveLength(20);
    desk.jobs.forEach((j, i) => desk.finish(i, result(Number(j.view.query.end_date.slice(-2)))));
    const answers = await Promise.all(runs);
    answers.forEach((a, i) => expect(a.result.total).toBe(10 + (i % 20)));
  });
});

describe("how long answers are kept", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());
  const GC_MS = 5 * 60_000;

  it("drops an answer nobody shows five minutes after it was last shown; a shown or fetching one stays", () => {
    for (const end of ["2025-07-10", "2025-07-11", "2025-07-12"]) client.setQueryData(reportQuery(asked({ end_date: end })).queryKey, { ...asked({ end_date: end }), result: result(0) });
    const shown = new QueryObserver(client, reportQuery(asked({ end_date: "2025-07-10" })));
    const stop = shown.subscribe(() => undefined);
    // A fetch that has not answered yet (its answer is not this test's subject).
    void client.prefetchQuery({ ...reportQuery(asked({ end_date: "2025-07-13" })), queryFn: () => new Promise<never>(() => undefined) });
    vi.advanceTimersByTime(GC_MS + 1);
    const kept = client.getQueryCache().findAll({ queryKey: ["report"] }).map((q) => (q.queryKey[2] as { end_date: string }).end_date).sort();
    expect(kept).toEqual(["2025-07-10", "2025-07-13"]);
    stop();
    vi.advanceTimersByTime(GC_MS - 1);
    expect(client.getQueryData(reportQuery(asked({ end_date: "2025-07-10" })).queryKey)).toBeDefined();
    vi.advanceTimersByTime(2);
    expect(client.getQueryData(reportQuery(asked({ end_date: "2025-07-10" })).queryKey)).toBeUndefined();
  });

  it("counts the five minutes again from when an answer is shown again", () => {
    const key = reportQuery(asked()).queryKey;
    client.setQueryData(key, { ...asked(), result: result(0) });
    vi.advanceTimersByTime(4 * 60_000);
    // Still fresh (under REPORT_STALE_MS): shown again without a fetch.
    const again = new QueryObserver(client, reportQuery(asked()));
    again.subscribe(() => undefined)();
    vi.advanceTimersByTime(4 * 60_000);
    expect(client.getQueryData(key)).toBeDefined();
    vi.advanceTimersByTime(60_000 + 1);
    expect(client.getQueryData(key)).toBeUndefined();
    expect(desk.posts).toEqual([]);
  });
});

describe("a dashboard's look", () => {
  it("starts from the server's look without fetching or telling its screen, and asks again only while a tile waits", async () => {
    const observer = new QueryObserver(client, dashboardQuery("a=1", "d1", look([drawn(0)])));
    let told = 0;
    const stop = observer.subscribe(() => told++);
    expect(observer.getCurrentResult()).toMatchObject({ isFetching: false, data: look([drawn(0)]) });
    await new Promise((r) => setTimeout(r, 400));
    expect(desk.dashboardCalls).toEqual([]);
    expect(told).toBe(0);
    stop();
  });

  it("asks again while any tile waits, and stops once every tile is drawn", async () => {
    desk.dashboard = (call) => look([drawn(0), call < 3 ? pending(1) : drawn(1)]);
    const observer = new QueryObserver(client, dashboardQuery("a=2", null, undefined));
    const stop = observer.subscribe(() => undefined);
    await until(() => observer.getCurrentResult().data?.tiles[1]?.outcome.status === "failed", "every tile drawn");
    expect(desk.dashboardCalls).toHaveLength(3);
    expect(desk.dashboardCalls[0]).toEqual({ params: "a=2" });
    await new Promise((r) => setTimeout(r, 500));
    expect(desk.dashboardCalls).toHaveLength(3);
    // Another dashboard's look keeps this one's on screen until it comes.
    observer.setOptions(dashboardQuery("a=3", "d2", undefined));
    expect(observer.getCurrentResult()).toMatchObject({ isPlaceholderData: true, data: { tiles: [{ index: 0 }, { index: 1 }] } });
    await until(() => desk.dashboardCalls.length === 4, "the other look");
    expect(desk.dashboardCalls[3]).toEqual({ params: "a=3", id: "d2" });
    stop();
  });
});

describe("the quota", () => {
  it("is read on sight, again the moment a call leaves the window, then only after the idle time", async () => {
    desk.status = () => quota(desk.statusCalls === 1 ? new Date(Date.now() + 300).toISOString() : null);
    const observer = new QueryObserver(client, upstreamStatusQuery(10_000));
    const stop = observer.subscribe(() => undefined);
    await until(() => desk.statusCalls === 2, "the second read", 3_000);
    await new Promise((r) => setTimeout(r, 800));
    expect(desk.statusCalls).toBe(2);
    expect(observer.getCurrentResult().data).toMatchObject({ next_free_at: null, calls_in_window: 0 });
    stop();
  });
});
