// The shared upstream quota (./pg-quota.ts) over a real PostgreSQL server: a throwaway cluster this
// file starts (lib/core/store/testing/postgres.ts), or the scratch database TEST_DATABASE_URL names. It is
// skipped only on a machine without PostgreSQL, which .ci/run installs.
import { AsyncLocalStorage } from "node:async_hooks";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { addDays } from "@/lib/contract";
import { openStore } from "@/lib/core/store/open";
import type { Store } from "@/lib/core/store/sql";
import { postgresBinDir, startTestPostgres, type TestPostgres } from "@/lib/core/store/testing/postgres";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { ReportGateway, type JobResult } from "./gateway";
import { PgQuota } from "./pg-quota";
import { QuotaQueue } from "./quota";

const external = process.env.TEST_DATABASE_URL;
const available = external !== undefined || postgresBinDir() !== null;
if (!available) console.warn("lib/core/upstream/pg-quota.test.ts: no PostgreSQL server installed (apt-get install postgresql); skipped");

const END = "2025-07-31";
const LIMIT = 5;
const WINDOW_MS = 2000;

let server: TestPostgres | null = null;
/** Three connections (pools), as three dashboard instances would have. */
let stores: Store[] = [];

beforeAll(async () => {
  if (!available) return;
  let url: string;
  if (external) url = external;
  else {
    server = await startTestPostgres();
    url = server.url;
  }
  stores = await Promise.all(["a", "b", "c"].map((owner) => openStore({ kind: "postgres", url }, { owner })));
  // Every call row any instance inserts, kept here for the assertions (acquire deletes old ones).
  await stores[0]!.exec(`
    CREATE TABLE IF NOT EXISTS test_call_log (at timestamptz NOT NULL, instance text NOT NULL);
    CREATE OR REPLACE FUNCTION test_log_call() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO test_call_log VALUES (NEW.at, NEW.instance); RETURN NEW; END $$;
    DROP TRIGGER IF EXISTS test_log_call ON upstream_calls;
    CREATE TRIGGER test_log_call AFTER INSERT ON upstream_calls FOR EACH ROW EXECUTE FUNCTION test_log_call();
  `);
});

afterAll(async () => {
  if (external && stores[0]) {
    await stores[0].exec("DROP TRIGGER IF EXISTS test_log_call ON upstream_calls; DROP FUNCTION IF EXISTS test_log_call(); DROP TABLE IF EXISTS test_call_log");
  }
  await Promise.all(stores.map((s) => s.close()));
  await server?.stop();
});

async function reset(): Promise<void> {
  await stores[0]!.exec("DELETE FROM upstream_calls; DELETE FROM upstream_pause; DELETE FROM test_call_log");
}

/** The smallest span (ms) between a call and the LIMIT-th call after it, by the database's clock. */
async function tightestSpan(): Promise<{ calls: number; span: number | null }> {
  const [row] = await stores[0]!.query<{ calls: number; span: number | null }>(`
    SELECT count(*)::int AS calls, min(1000 * extract(epoch FROM at - before))::float8 AS span
    FROM (SELECT at, lag(at, $1) OVER (ORDER BY at) AS before FROM test_call_log) t`, [LIMIT]);
  return row!;
}

const quotas = (pollMs?: number) =>
  stores.map((db, i) => new PgQuota({ db, limit: LIMIT, windowMs: WINDOW_MS, instance: `instance-${i}`, ...(pollMs ? { pollMs } : {}) }));

/**
 * Quotas whose store counts, for each `acquire` run inside `track`, the transactions it took (one
 * per look at the window), and notes the longest transaction: what the machine's load adds to a turn.
 */
function countedQuotas(): { qs: PgQuota[]; track<T>(fn: () => Promise<T>): Promise<{ value: T; looks: number }>; longestMs(): number } {
  const acquiring = new AsyncLocalStorage<{ looks: number }>();
  let longest = 0;
  const qs = stores.map((store, i) => {
    const db: Pick<Store, "transaction"> = {
      async transaction(fn) {
        const a = acquiring.getStore();
        if (a) a.looks++;
        const t0 = performance.now();
        try {
          return await store.transaction(fn);
        } finally {
          longest = Math.max(longest, performance.now() - t0);
        }
      },
    };
    return new PgQuota({ db, limit: LIMIT, windowMs: WINDOW_MS, instance: `instance-${i}` });
  });
  return {
    qs,
    track: (fn) => {
      const a = { looks: 0 };
      return acquiring.run(a, async () => ({ value: await fn(), looks: a.looks }));
    },
    longestMs: () => longest,
  };
}

describe.runIf(available)("PgQuota", () => {
  beforeEach(reset);

  it("keeps the local queue's margin", () => {
    const [q] = quotas();
    expect(q!.windowMs).toBe(new QuotaQueue(LIMIT, WINDOW_MS).windowMs);
    expect(new PgQuota({ db: stores[0]!, limit: 60, windowMs: 60_000, instance: "x" }).windowMs).toBe(new QuotaQueue(60, 60_000).windowMs);
    expect(new PgQuota({ db: stores[0]!, limit: 5, windowMs: 2000, marginMs: 0, instance: "x" }).windowMs).toBe(2000);
  });

  it("lets at most 5 calls start in any window (plus margin) across three instances, 30 at once", async () => {
    const { qs, track, longestMs } = countedQuotas();
    const windowMs = qs[0]!.windowMs;
    const started = Date.now();
    const granted: { at: number; looks: number }[] = [];
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => track(() => qs[i % 3]!.acquire()).then(({ looks }) => granted.push({ at: Date.now() - started, looks }))),
    );
    delay.disable();
    const { calls, span } = await tightestSpan();
    expect(calls).toBe(30);
    expect(span).not.toBeNull();
    expect(span!).toBeGreaterThanOrEqual(windowMs);
    // And not much slower than the quota allows. The first LIMIT calls start at their first look at
    // the window, without waiting; the rest take 6 windows' worth, the last starting after 5, allowed
    // the machine's own lateness measured in this run once per window turn: the event loop's delay
    // in waking a waiter and the longest look at the window.
    granted.sort((a, b) => a.at - b.at);
    expect(granted.slice(0, LIMIT).map((g) => g.looks), "looks at the window the first calls took").toEqual(Array(LIMIT).fill(1));
    const lateMs = delay.max / 1e6 + longestMs();
    expect(granted.at(-1)!.at, `the last call started ${granted.at(-1)!.at} ms after the first asked (event loop late by up to ${Math.round(delay.max / 1e6)} ms, a look up to ${Math.round(longestMs())} ms)`).toBeLessThan(
      5 * windowMs + 2000 + 6 * lateMs,
    );
    const perInstance = await stores[0]!.query<{ instance: string; n: number }>("SELECT instance, count(*)::int AS n FROM test_call_log GROUP BY instance ORDER BY instance");
    expect(perInstance.map((r) => r.instance)).toEqual(["instance-0", "instance-1", "instance-2"]);
  });

  it("pauses every instance after a 429 seen by one, and never shortens a pause", async () => {
    const qs = quotas(200);
    const t0 = Date.now();
    await qs[0]!.pause(t0 + 1500);
    await qs[1]!.pause(t0 + 300); // a shorter pause from another instance does not shorten it
    const done = await Promise.all(qs.map((q) => q.acquire().then(() => Date.now())));
    for (const t of done) expect(t - t0).toBeGreaterThanOrEqual(1450);
    const [row] = await stores[0]!.query<{ ok: boolean }>("SELECT bool_and(c.at >= p.until) AS ok FROM test_call_log c, upstream_pause p");
    expect(row!.ok).toBe(true);
  });

  it("stops waiting when the signal aborts, and takes no call", async () => {
    const [q] = quotas();
    for (let i = 0; i < LIMIT; i++) await q!.acquire();
    const ctl = new AbortController();
    const waiting = q!.acquire(ctl.signal);
    setTimeout(() => ctl.abort(new Error("gone")), 100);
    await expect(waiting).rejects.toThrow("gone");
    const [row] = await stores[0]!.query<{ n: number }>("SELECT count(*)::int AS n FROM upstream_calls");
    expect(row!.n).toBe(LIMIT);
    await expect(q!.acquire(AbortSignal.abort(new Error("already")))).rejects.toThrow("already");
  });
});

/** Arrival times (ms) of reporting calls in the service's own request log. */
function reportingArrivals(svc: TestService): number[] {
  return svc.logLines
    .map((l) => JSON.parse(l) as { msg: string; path: string; ts: string; duration_ms: number })
    .filter((l) => l.msg === "request" && (l.path === "/api/data" || l.path === "/api/data/cohort"))
    .map((l) => Date.parse(l.ts) - l.duration_ms)
    .sort((a, b) => a - b);
}

describe.runIf(available)("three gateways sharing a PgQuota in front of the real service", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ data: { days: 200, ordersPerDay: 15, seed: 5, endDate: END }, env: { REPORT_RATE_LIMIT: "5", RATE_LIMIT_WINDOW_SECONDS: "2" } });
  });
  afterAll(async () => svc?.stop());
  beforeEach(reset);

  it("sends at most 5 reporting calls in any window for 30 different reports spread over them, with no 429, and finishes all", async () => {
    const config = gatewayFor(svc, { reportRateLimit: LIMIT, rateWindowSeconds: WINDOW_MS / 1000 }).config;
    // A margin of a second, wider than the default: a call granted by the quota reaches the service
    // (in this process) later by however late the event loop runs, which on a busy machine can exceed
    // the default tenth of a second, and the service counts arrivals.
    const gateways = stores.map((db, i) => new ReportGateway(config, { quota: new PgQuota({ db, limit: LIMIT, windowMs: WINDOW_MS, marginMs: 1000, instance: `gateway-${i}` }) }));
    svc.logLines.length = 0;
    const results = await Promise.all(
      Array.from({ length: 30 }, async (_, i): Promise<JobResult> => {
        const g = gateways[i % 3]!;
        const out = g.submit("orders", g.parse("orders", { start_date: addDays(END, -i), end_date: END, group_by: ["date"], metrics: ["revenue"] }));
        return "cached" in out ? out.cached : g.wait(out.job.id);
      }),
    );
    expect(results.filter((r) => !(r.source === "upstream" && r.upstream_calls === 1)).map((r) => ({ source: r.source, calls: r.upstream_calls })), "answers not fetched in one upstream call").toEqual([]);
    const statuses = svc.logLines.map((l) => (JSON.parse(l) as { status?: number }).status);
    expect(statuses).not.toContain(429);
    const arrivals = reportingArrivals(svc);
    expect(arrivals.length).toBe(30); // no retries either
    for (let i = 0; i + LIMIT < arrivals.length; i++) expect(arrivals[i + LIMIT]! - arrivals[i]!).toBeGreaterThanOrEqual(WINDOW_MS);
    // The quota's own record, by the database's clock: no LIMIT + 1 calls started within its window.
    const { calls, span } = await tightestSpan();
    expect(calls).toBe(30);
    expect(span!).toBeGreaterThanOrEqual(WINDOW_MS + 1000);
    expect(gateways.map((g) => g.client.reportCalls)).toEqual([10, 10, 10]);
  });

  it("tells a wait from a pause another instance's 429 set: the queue holds its later calls until the pause ends, and says so", async () => {
    const config = gatewayFor(svc, { reportRateLimit: LIMIT, rateWindowSeconds: WINDOW_MS / 1000 }).config;
    const [a, b] = [0, 1].map((i) => new PgQuota({ db: stores[i]!, limit: LIMIT, windowMs: WINDOW_MS, instance: `pause-${i}` }));
    const g = new ReportGateway(config, { quota: a! });
    // Another instance saw a 429 and paused everyone for 12 s (long enough for a busy machine to take
    // the looks below while it runs); this instance's own queue knows nothing of it.
    await b!.pause(Date.now() + 12_000);
    const [pause] = await stores[0]!.query<{ until: Date }>("SELECT until FROM upstream_pause");
    const until = new Date(pause!.until).getTime();
    expect(g.status().paused_until).toBeNull();
    const ask = (day: number) => {
      const out = g.submit("orders", g.parse("orders", { start_date: addDays(END, -day), end_date: addDays(END, -day), group_by: ["date"], metrics: ["attempts"] }));
      if (!("job" in out)) throw new Error("expected a job");
      return out.job.id;
    };
    const first = ask(1);
    // Its first call meets the pause in the shared window: the queue is paused to the same end.
    await expect.poll(() => g.status().paused_until, { timeout: 12_000 }).not.toBeNull();
    expect(Date.parse(g.status().paused_until!)).toBeGreaterThanOrEqual(until - 5);
    // A report asked now is told it starts when the pause ends, not now.
    const second = ask(2);
    const view = await g.settle(second, 0);
    expect(view?.status.state).toBe("queued");
    const status = view!.status as { estimated_start: string };
    expect(Date.parse(status.estimated_start)).toBeGreaterThanOrEqual(until - 5);
    for (const id of [first, second]) {
      const done = await g.wait(id);
      expect(done.source).toBe("upstream");
    }
    // Nothing reached the service before the pause ended.
    const [row] = await stores[0]!.query<{ ok: boolean }>("SELECT bool_and(c.at >= p.until) AS ok FROM test_call_log c, upstream_pause p WHERE c.instance = 'pause-0'");
    expect(row!.ok).toBe(true);
  });

  it("holds a burst of reports on every instance behind another's pause: none reaches the service before it ends, and each asked after its instance met the pause is told so", async () => {
    const config = gatewayFor(svc, { reportRateLimit: LIMIT, rateWindowSeconds: WINDOW_MS / 1000 }).config;
    // A margin of a second, as above: the burst's calls all go when the pause ends, and the service
    // counts their arrivals, later than their grants by however late a busy machine's event loop runs.
    const gateways = stores.map((db, i) => new ReportGateway(config, { quota: new PgQuota({ db, limit: LIMIT, windowMs: WINDOW_MS, marginMs: 1000, instance: `burst-${i}` }) }));
    // A fourth instance saw a 429 and paused everyone.
    await new PgQuota({ db: stores[0]!, limit: LIMIT, windowMs: WINDOW_MS, instance: "burst-429" }).pause(Date.now() + 12_000);
    const [pause] = await stores[0]!.query<{ until: Date }>("SELECT until FROM upstream_pause");
    const until = new Date(pause!.until).getTime();
    svc.logLines.length = 0;
    let day = 0;
    const ask = (g: ReportGateway) => {
      day++;
      const out = g.submit("orders", g.parse("orders", { start_date: addDays(END, -day), end_date: addDays(END, -day), group_by: ["date"], metrics: ["refund_count"] }));
      if (!("job" in out)) throw new Error("expected a job");
      return out.job.id;
    };
    // Three reports on each instance at once.
    const burst = gateways.flatMap((g) => [ask(g), ask(g), ask(g)].map((id) => ({ g, id })));
    // Each instance's first call meets the pause, and its queue takes the same end.
    for (const [i, g] of gateways.entries()) {
      await expect.poll(() => g.status().paused_until, { timeout: 12_000, message: `instance ${i} learns of the pause` }).not.toBeNull();
      expect(Date.parse(g.status().paused_until!), `instance ${i}'s pause ends with the shared one`).toBeGreaterThanOrEqual(until - 5);
    }
    // Reports asked now, on every instance at once, are each told they start when the pause ends.
    const late = gateways.map((g) => ({ g, id: ask(g) }));
    const views = await Promise.all(late.map(({ g, id }) => g.settle(id, 0)));
    for (const [i, view] of views.entries()) {
      expect(view?.status.state, `instance ${i}'s late report waits`).toBe("queued");
      expect(Date.parse((view!.status as { estimated_start: string }).estimated_start), `instance ${i}'s late report starts after the pause`).toBeGreaterThanOrEqual(until - 5);
    }
    const results = await Promise.all([...burst, ...late].map(({ g, id }) => g.wait(id)));
    expect(results.map((r) => r.source)).toEqual(Array(12).fill("upstream"));
    // Nothing reached the service before the pause ended, and the window held afterwards.
    const arrivals = reportingArrivals(svc);
    expect(arrivals.length, "one call per report, no retries").toBe(12);
    expect(arrivals[0]!, "the first call arrived after the pause").toBeGreaterThanOrEqual(until - 5);
    expect(svc.logLines.map((l) => (JSON.parse(l) as { status?: number }).status)).not.toContain(429);
    const [row] = await stores[0]!.query<{ ok: boolean }>("SELECT bool_and(c.at >= p.until) AS ok FROM test_call_log c, upstream_pause p");
    expect(row!.ok).toBe(true);
  });
});
