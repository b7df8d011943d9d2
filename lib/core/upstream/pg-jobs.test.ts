// Report jobs as rows (./pg-jobs.ts) with the shared quota and cache, over a real PostgreSQL server
// and the real service: instances on separate connections (and one in a process of its own, killed
// mid-job). Skipped only on a machine without PostgreSQL, which .ci/run installs.
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReportRecord } from "@/lib/contract";
import { openStore } from "@/lib/core/store/open";
import type { Store } from "@/lib/core/store/sql";
import { postgresBinDir, startTestPostgres, type TestPostgres } from "@/lib/core/store/testing/postgres";
import { startTestService, type TestService } from "@/service/testing/harness";
import { ReportGateway, type GatewayConfig, type JobView } from "./gateway";
import { JOB_LEASE_SECONDS, PgJobs } from "./pg-jobs";
import { pgSharedState } from "./pg-shared";
import type { ReportQuery } from "./records";

const external = process.env.TEST_DATABASE_URL;
const available = external !== undefined || postgresBinDir() !== null;
if (!available) console.warn("lib/core/upstream/pg-jobs.test.ts: no PostgreSQL server installed (apt-get install postgresql); skipped");

const END = "2025-07-31";
const LEASE_SECONDS = 2;

let server: TestPostgres | null = null;
let url: string;
let stores: Store[] = [];
let svc: TestService;

const reportingCalls = () => svc.logLines.filter((l) => /"path":"\/api\/data(\/cohort)?"/.test(l)).length;

function config(limit: number, windowSeconds: number): GatewayConfig {
  return {
    baseUrl: svc.url,
    clientId: svc.client.client_id,
    clientSecret: svc.client.client_secret,
    tokenUrl: `${svc.url}/api/auth/token`,
    reportRateLimit: limit,
    rateWindowSeconds: windowSeconds,
    pageCap: 50,
    ttlPastSeconds: 86_400,
    ttlTodaySeconds: 300,
    timeZone: "UTC",
  };
}

/** A gateway on store `i`; its jobs' lease is the tests' short one unless `leaseSeconds` says otherwise. */
function instance(i: number, limit = 100, windowSeconds = 60, jobIdleSeconds?: number, leaseSeconds = LEASE_SECONDS): ReportGateway {
  const c = { ...config(limit, windowSeconds), ...(jobIdleSeconds === undefined ? {} : { jobIdleSeconds }) };
  return new ReportGateway(c, pgSharedState(stores[i]!, c, `instance-${i}`, { jobLeaseSeconds: leaseSeconds }));
}

async function settleDone(g: ReportGateway, id: string, ms = 30_000): Promise<JobView> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await g.settle(id, 2_000);
    if (!v) throw new Error(`job ${id} unknown to this instance`);
    if (v.status.state !== "queued" && v.status.state !== "fetching") return v;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${v.status.state}`);
  }
}

/**
 * The shared window as it is once every earlier call has aged out of it (the calls are rows in
 * `upstream_calls`; every earlier test's jobs have ended), without sleeping through the window.
 */
async function emptyWindow(): Promise<void> {
  await stores[0]!.query("DELETE FROM upstream_calls");
}

const dataOf = (v: JobView): ReportRecord[] => {
  if (v.status.state !== "done") throw new Error(`job ended ${JSON.stringify(v.status)}`);
  return v.status.result.data;
};

beforeAll(async () => {
  if (!available) return;
  if (external) url = external;
  else {
    server = await startTestPostgres();
    url = server.url;
  }
  stores = await Promise.all(["a", "b", "c"].map((owner) => openStore({ kind: "postgres", url }, { owner })));
  svc = await startTestService({ data: { days: 120, ordersPerDay: 40, seed: 11, endDate: END }, env: { REPORT_RATE_LIMIT: "100000" } });
});

afterAll(async () => {
  await svc?.stop();
  await Promise.all(stores.map((s) => s.close()));
  await server?.stop();
});

describe.skipIf(!available)("report jobs shared by instances", () => {
  it("answers a job wherever it is polled, and a report repeated on another instance costs no call", async () => {
    const [a, b] = [instance(0), instance(1)];
    const q: ReportQuery = { start_date: "2025-06-01", end_date: END, group_by: ["date", "card_brand"], metrics: ["revenue", "attempts"] };
    const before = reportingCalls();
    const out = a.submit("orders", a.parse("orders", q), "u1");
    if (!("job" in out)) throw new Error("expected a job");
    const onB = dataOf(await settleDone(b, out.job.id));
    const onA = dataOf(await settleDone(a, out.job.id));
    expect(onB).toEqual(onA);
    const fetched = reportingCalls() - before;
    expect(fetched).toBeGreaterThan(0);

    // The same report, and a coarser one, through the third instance: from the shared answer.
    const c = instance(2);
    for (const wanted of [q, { ...q, group_by: ["card_brand"] }]) {
      const again = c.submit("orders", c.parse("orders", wanted), "u2");
      const result = "cached" in again ? again.cached.data : dataOf(await settleDone(c, again.job.id));
      expect(result.length).toBeGreaterThan(0);
    }
    expect(reportingCalls() - before).toBe(fetched);
  });

  it("an identical report asked on another instance while the first fetches waits for it instead of fetching twice", async () => {
    // One call per 2 s: a 3-page report takes a few seconds, long enough for the second to ask.
    const [a, b] = [instance(0, 1, 2), instance(1, 1, 2)];
    const q: ReportQuery = { start_date: "2025-05-01", end_date: END, group_by: ["date", "bin"], metrics: ["revenue"] };
    const before = reportingCalls();
    const first = a.submit("orders", a.parse("orders", q), "u1");
    if (!("job" in first)) throw new Error("expected a job");
    await new Promise((r) => setTimeout(r, 500)); // the first job's row is written
    const second = b.submit("orders", b.parse("orders", q), "u2");
    if (!("job" in second)) throw new Error("expected a job");
    const [x, y] = await Promise.all([settleDone(a, first.job.id, 60_000), settleDone(b, second.job.id, 60_000)]);
    expect(dataOf(y)).toEqual(dataOf(x));
    const pages = Math.ceil(dataOf(x).length / 1000);
    expect(reportingCalls() - before).toBe(pages);
  });

  it("two instances asked the same report at once never follow each other: only the job whose row is older is followed", async () => {
    const [onA, onB] = [new PgJobs(stores[0]!, "instance-a"), new PgJobs(stores[1]!, "instance-b")];
    const key = `same-report-${Date.now()}`;
    const view = (id: string): JobView => ({
      id,
      operation: "orders",
      query: { start_date: END, end_date: END, group_by: ["date"], metrics: ["attempts"] },
      created_at: new Date().toISOString(),
      status: { state: "queued", position: 0, estimated_start: new Date().toISOString(), estimated_done: new Date().toISOString(), call: 1, calls: 1, calls_exact: false },
    });
    // Each instance has started its job; A's row is written first, then B's, before either looks
    // for another instance's job (a busy instance may look only after the other has written).
    await onA.record(view("job-a"), key, "alice");
    await onB.record(view("job-b"), key, "bob");
    expect((await onB.live(key, "job-b"))?.view.id, "B follows the older job").toBe("job-a");
    expect(await onA.live(key, "job-a"), "A follows nothing: B's job is younger").toBeNull();
    // Before its own row is written, a job follows whichever job is there.
    expect((await onA.live(key, "job-not-written-yet"))?.view.id).toBe("job-b");
    await stores[0]!.query("DELETE FROM report_jobs WHERE key = $1", [key]);
  });

  it("a job cancelled while it waits for the shared window makes no call", async () => {
    // One call per 3 s over all instances, in a window the earlier tests' calls have left.
    await emptyWindow();
    const [a, b] = [instance(0, 1, 3), instance(1, 1, 3)];
    const before = reportingCalls();
    const x = b.submit("orders", b.parse("orders", { start_date: "2025-04-02", end_date: "2025-04-20", group_by: ["date"], metrics: ["attempts"] }), "u1");
    if (!("job" in x)) throw new Error("expected a job");
    expect((await settleDone(b, x.job.id)).status.state).toBe("done");
    // Instance a's own queue lets the call go at once; the shared window, spent by b, holds it.
    const y = a.submit("orders", a.parse("orders", { start_date: "2025-04-03", end_date: "2025-04-21", group_by: ["date"], metrics: ["revenue"] }), "u2");
    if (!("job" in y)) throw new Error("expected a job");
    await new Promise((r) => setTimeout(r, 300));
    expect(a.get(y.job.id)?.status.state).toBe("queued");
    a.cancel(y.job.id);
    expect((await settleDone(a, y.job.id)).status.state).toBe("cancelled");
    // Past the window: still only b's call.
    await new Promise((r) => setTimeout(r, 3_500));
    expect(reportingCalls() - before).toBe(1);
  });

  it("keeps a job its callers poll only on other instances (its own instance does not cancel it as forgotten)", async () => {
    // Idle after 6 s on its own instance, which nobody asks; a 4-page report at one call per 4 s
    // outlives that twice. The other instance polls every 2 s, and a poll reaches the job's own
    // instance at its next lease renewal (a third of the 2 s lease): 6 s leaves a busy machine
    // seconds of slack, where 2 s left none (a poll could be 2.7 s old when the reaper looked).
    const a = instance(0, 1, 4, 6);
    const b = instance(1);
    const q: ReportQuery = { start_date: "2025-05-10", end_date: END, group_by: ["date", "bin"], metrics: ["attempts"] };
    const out = a.submit("orders", a.parse("orders", q), "u1");
    if (!("job" in out)) throw new Error("expected a job");
    const done = await settleDone(b, out.job.id, 60_000);
    expect(done.status.state).toBe("done");
  });

  it("a report's place in line only falls, polled on its own instance and on another in turn, and for the same report asked on the other", async () => {
    // One call per 2 s over both instances, in a window the earlier tests' calls have left. The jobs
    // keep the production lease: with the tests' 2 s one, a renewal a busy machine made late would
    // let the other instance take the watched job over when it is polled there, and a job taken over
    // starts afresh in that instance's line. Taking over is the killed-instance test's question.
    await emptyWindow();
    const [a, b] = [instance(0, 1, 2, undefined, JOB_LEASE_SECONDS), instance(1, 1, 2, undefined, JOB_LEASE_SECONDS)];
    const ask = (g: ReportGateway, day: number, owner: string) => {
      const d = `2025-03-${String(day).padStart(2, "0")}`;
      const out = g.submit("orders", g.parse("orders", { start_date: d, end_date: d, group_by: ["date"], metrics: ["refund_count", "attempts"] }), owner);
      if (!("job" in out)) throw new Error("expected a job");
      return out.job.id;
    };
    // Eight one-call reports ahead of the one watched, each a person's of their own: the line lasts
    // 16 s, so the looks below see it waiting behind at least three however slowly a busy machine
    // takes them, up to 10 s (with four ahead it once took its first look after the line had gone).
    const ahead = [1, 2, 3, 4, 5, 6, 7, 8].map((day) => ask(a, day, `ahead-${day}`));
    const watched = ask(a, 9, "watcher");
    await new Promise((r) => setTimeout(r, 300));
    // The same report asked on the other instance follows the first one's job there.
    const follower = ask(b, 9, "other-watcher");
    await new Promise((r) => setTimeout(r, 300));

    /** Calls before its last one: the place a waiting page shows. */
    const place = (v: JobView | null): number | null => {
      const st = v?.status;
      if (!st) throw new Error("job unknown");
      if (st.state === "queued") return st.last_position ?? st.position;
      if (st.state === "fetching") return st.last_position ?? 0;
      return null;
    };
    const seen: { on: string; place: number }[] = [];
    for (let i = 0; i < 400; i++) {
      const [on, g, id] = [["a", a, watched], ["b", b, watched], ["b follower", b, follower]][i % 3] as [string, ReportGateway, string];
      const p = place(await g.settle(id, 0));
      if (p === null) break;
      seen.push({ on, place: p });
      await new Promise((r) => setTimeout(r, 100));
    }
    const places = seen.map((x) => x.place);
    expect(places, JSON.stringify(seen)).toSatisfy((xs: number[]) => xs.every((x, i) => i === 0 || x <= xs[i - 1]!));
    // It did wait, and both instances told where.
    expect(Math.max(...places)).toBeGreaterThanOrEqual(3);
    expect(new Set(seen.filter((x) => x.place > 0).map((x) => x.on))).toEqual(new Set(["a", "b", "b follower"]));
    for (const id of [...ahead, watched]) expect((await settleDone(a, id, 60_000)).status.state).toBe("done");
    expect((await settleDone(b, follower, 60_000)).status.state).toBe("done");
  });

  it("a job whose instance is killed mid-fetch is taken over by the instance it is polled on, never left fetching", async () => {
    const q: ReportQuery = { start_date: "2025-04-25", end_date: END, group_by: ["date", "bin"], metrics: ["attempts"] };
    let child: ChildProcess | null = null;
    try {
      child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "lib/core/upstream/testing/instance.ts", "--query", JSON.stringify(q)], {
        env: {
          ...process.env,
          DATABASE_URL: url,
          SERVICE_URL: svc.url,
          CLIENT_ID: svc.client.client_id,
          CLIENT_SECRET: svc.client.client_secret,
          // One call per 3 s: the killed instance is mid-way through its pages.
          RATE_LIMIT: "1",
          RATE_WINDOW_SECONDS: "3",
          LEASE_SECONDS: String(LEASE_SECONDS),
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const id = await new Promise<string>((resolve, reject) => {
        let out = "";
        child!.stdout!.on("data", (b: Buffer) => {
          out += b.toString();
          const line = out.split("\n").find((l) => l.startsWith("{"));
          if (line) resolve((JSON.parse(line) as { id: string }).id);
        });
        child!.once("exit", (code) => reject(new Error(`instance exited ${code}`)));
        setTimeout(() => reject(new Error("no job id")), 20_000);
      });
      await new Promise((r) => setTimeout(r, 1_000)); // its first call is made
      child.kill("SIGKILL");

      const b = instance(1);
      const seen = await b.settle(id, 0);
      expect(seen?.status.state).toMatch(/queued|fetching/);
      const done = await settleDone(b, id, 60_000);
      const direct = await svc.allRecords("/api/data", { ...q });
      expect(dataOf(done)).toEqual(direct);
    } finally {
      child?.kill("SIGKILL");
    }
  });
});
