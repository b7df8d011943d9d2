/**
 * The queue under load, against the real service: first come first served, caps on waiting jobs,
 * jobs nobody waits for, the wait estimate of a several-call report checked against the real queue,
 * and the cache's size bound.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays } from "@/lib/contract";
import { ApiError } from "@/lib/contract/errors";
import { startTestService, type TestService } from "@/service/testing/harness";
import { QuotaQueue, type QueueTicket } from "./quota";
import { gatewayFor } from "@/service/testing/test-gateway";
import { BACKGROUND_OWNER } from "./gateway";

const END = "2025-07-31";
/**
 * Awaits `p`, calling `look` at every turn of the event loop until it settles: the queue's own
 * state seen as it changes, so tests assert order and counts rather than time on the clock.
 */
async function watch<T>(p: Promise<T>, look: () => void): Promise<T> {
  let settled = false;
  const done = p.finally(() => (settled = true));
  while (!settled) {
    look();
    await new Promise((r) => setImmediate(r));
  }
  return done;
}

/** The i-th of many distinct small reports. */
const body = (i: number) => ({ start_date: addDays(END, -(i % 100)), end_date: END, group_by: [i < 100 ? "date" : "gateway_id"], metrics: ["revenue"] });

describe("the quota queue's order", () => {
  it("serves calls in the order they came, whoever's they are: a newcomer goes behind every call waiting, and nobody's position rises", () => {
    const q = new QuotaQueue(1, 60_000);
    const hold = new Promise<void>(() => {}); // the first call never ends; the slot stays spent
    void q.run(() => hold, undefined, "a");
    const tickets: QueueTicket[] = [];
    for (let i = 0; i < 5; i++) void q.run(async () => undefined, (t) => tickets.push(t), "a").catch(() => undefined);
    const before = tickets.map((t) => t.position());
    void q.run(async () => undefined, (t) => tickets.push(t), "b").catch(() => undefined);
    void q.run(async () => undefined, (t) => tickets.push(t), "c").catch(() => undefined);
    expect(before).toEqual([0, 1, 2, 3, 4]);
    expect(tickets.map((t) => t.position())).toEqual([...before, 5, 6]);
    expect(q.status().queueLength).toBe(7);
  });
});

describe("the gateway under a flood", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ data: { days: 120, ordersPerDay: 10, seed: 11, endDate: END }, env: { REPORT_RATE_LIMIT: "5", RATE_LIMIT_WINDOW_SECONDS: "2" } });
  });
  afterAll(async () => svc.stop());

  let clients = 0;
  /**
   * A gateway calling as a client of its own at the service, whose window there (counted per
   * client) starts empty whatever the earlier tests spent: instead of sleeping until theirs has passed.
   */
  async function ownClientGateway(overrides: Parameters<typeof gatewayFor>[1]) {
    const c = await svc.newClient(`fairness-${++clients}`);
    return gatewayFor(svc, { clientId: c.client_id, clientSecret: c.client_secret, ...overrides });
  }

  it("refuses one user's reports past their cap, and another user's report waits behind what was there before it, its position only falling", async () => {
    const g = gatewayFor(svc, { reportRateLimit: 5, rateWindowSeconds: 2, maxJobsPerOwner: 20 });
    const accepted: string[] = [];
    const refused: string[] = [];
    for (let i = 0; i < 150; i++) {
      try {
        const out = g.submit("orders", g.parse("orders", body(i)), "flooder");
        if ("job" in out) accepted.push(out.job.id);
      } catch (e) {
        expect(e).toBeInstanceOf(ApiError);
        expect((e as ApiError).status).toBe(429);
        refused.push((e as ApiError).message);
      }
    }
    expect(accepted).toHaveLength(20);
    expect(refused).toHaveLength(130);
    expect(refused[0]).toMatch(/most one person may have at once \(20\)/);

    try {
      const other = g.submit("orders", g.parse("orders", { start_date: END, end_date: END, group_by: ["gateway_id"] }), "someone-else");
      expect("job" in other, "someone else's report was refused or answered from cache").toBe(true);
      const id = "job" in other ? other.job.id : "";
      // Behind the flooder's calls that were waiting when it came (at most their capped 20), never
      // ahead of them: a queue that let a newcomer cut in would move everyone behind it back. Its
      // position only falls, and no call that came after it starts before it.
      const waitingAtArrival = g.status().queue_length - 1;
      const positions: number[] = [];
      const result = await watch(g.wait(id), () => {
        const s = g.get(id)?.status;
        if (s?.state === "queued") positions.push(s.position);
      });
      expect(result.source).toBe("upstream");
      expect(positions[0]).toBe(waitingAtArrival);
      expect(waitingAtArrival).toBeLessThanOrEqual(20);
      expect(positions.filter((p, i) => i > 0 && p > positions[i - 1]!), `someone else's queue positions while waiting (${positions.length} looks)`).toEqual([]);
    } finally {
      // The flooder gives up: their jobs stop (and stop spending the service's quota), also when an
      // assertion above failed, so the next test's count of calls is its own.
      for (const j of accepted) g.cancel(j);
    }
  });

  it("cancels jobs nobody asks about any more", async () => {
    const g = gatewayFor(svc, { reportRateLimit: 1, rateWindowSeconds: 60, jobIdleSeconds: 30 });
    const a = g.submit("orders", g.parse("orders", body(200)), "u");
    const b = g.submit("orders", g.parse("orders", body(201)), "u");
    expect("job" in a && "job" in b).toBe(true);
    const idB = "job" in b ? b.job.id : "";
    expect(g.reapIdle(Date.now() + 10_000)).toBe(0);
    expect(g.reapIdle(Date.now() + 31_000)).toBeGreaterThanOrEqual(1);
    await expect(g.wait(idB)).rejects.toThrow();
    expect(g.get(idB)?.status.state).toBe("cancelled");
  });

  it("estimates when every call of a several-call report will have answered, and keeps to it", async () => {
    // A process that has made a call before knows how long one takes: a window is counted from a
    // call's answer (the service counts it on arrival, somewhere before), so each window turn
    // includes a call's time, and the estimate counts it.
    const g = gatewayFor(svc, { reportRateLimit: 2, rateWindowSeconds: 2, maxPieceDays: 9 });
    const first = g.submit("orders", g.parse("orders", body(399)), "other");
    if ("job" in first) await g.wait(first.job.id);
    await new Promise((r) => setTimeout(r, 2_800)); // an empty window here and at the service
    svc.logLines.length = 0;
    // Someone else's 3 one-call reports first (two start at once, one waits), then a 40-day report:
    // 4 parts of 10 days, one call each, taking turns with the other owner's waiting call.
    const others = [0, 1, 2].map((i) => g.submit("orders", g.parse("orders", body(300 + i)), "other"));
    const q = { start_date: addDays(END, -39), end_date: END, group_by: ["date"], metrics: ["attempts"] };
    const out = g.submit("orders", g.parse("orders", q), "me");
    const id = "job" in out ? out.job.id : "";
    const s = g.get(id)!.status;
    expect(s.state).toBe("queued");
    if (s.state !== "queued") return;
    expect(s).toMatchObject({ call: 1, calls: 4, calls_exact: false });
    const estimate = Date.parse(s.estimated_done);
    // The machine's own lateness, measured in this run: every window the report waits through starts
    // when a timer fires, late by the event loop's delay on a busy machine, and the estimate cannot
    // know that. Allowed once per window turn and once for the call's way to the service.
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    await g.wait(id);
    await Promise.all(others.map((o) => ("job" in o ? g.wait(o.job.id) : null)));
    delay.disable();
    const lateMs = delay.max / 1e6;
    const turns = Math.ceil(7 / 2) - 1; // 7 calls, 2 a window: the last starts after 3 turns
    // The service's own log: when each reporting call was answered. The report's 4th call is the last.
    const answers = svc.logLines
      .map((l) => JSON.parse(l) as { msg: string; path: string; ts: string })
      .filter((l) => l.msg === "request" && l.path === "/api/data")
      .map((l) => Date.parse(l.ts))
      .sort((a, b) => a - b);
    expect(answers).toHaveLength(7);
    const off = answers.at(-1)! - estimate;
    expect(Math.abs(off), `the 4th call was answered ${Math.round(off)} ms from its estimate (event loop late by up to ${Math.round(lateMs)} ms)`).toBeLessThan(
      300 + (turns + 1) * lateMs,
    );
  });

  it("starts an analyst's report before a background one submitted earlier, and keeps a slot from it", async () => {
    const g = await ownClientGateway({ reportRateLimit: 2, rateWindowSeconds: 2 });
    svc.logLines.length = 0;
    // Someone fills the window; then the warmer asks (a cohort report, so the service's log tells
    // its call apart), then an analyst (an orders report). Both wait for the window.
    const others = [500, 501].map((i) => g.submit("orders", g.parse("orders", body(i)), "other"));
    const bg = g.submit("cohort", g.parse("cohort", { start_date: addDays(END, -9), end_date: END, group_by: ["billing_cycle"] }), BACKGROUND_OWNER);
    const analyst = g.submit("orders", g.parse("orders", body(502)), "analyst");
    const ids = [...others, bg, analyst].map((o) => ("job" in o ? o.job.id : ""));
    const [bgId, analystId] = ids.slice(2) as [string, string];
    // The analyst's position does not count the background call; the background's counts theirs.
    expect(g.get(analystId)!.status).toMatchObject({ state: "queued", position: 0 });
    expect(g.get(bgId)!.status).toMatchObject({ state: "queued", position: 1 });
    expect(g.status()).toMatchObject({ queue_length: 1, background_queue_length: 1 });
    // With a limit of 2 the background call waits until it would leave one slot free: until the
    // analyst's call has left the window too. Seen in the quota's own count of its window the
    // moment the background call leaves the queue, so a slow machine's late arrivals cannot blur it.
    let inWindowAsBackgroundStarted: number | null = null;
    await watch(Promise.all(ids.map((id) => g.wait(id))), () => {
      if (inWindowAsBackgroundStarted === null && g.status().background_queue_length === 0) inWindowAsBackgroundStarted = g.queue.status().callsInWindow;
    });
    const calls = svc.logLines
      .map((l) => JSON.parse(l) as { msg: string; path: string; ts: string; duration_ms: number })
      .filter((l) => l.msg === "request" && (l.path === "/api/data" || l.path === "/api/data/cohort"))
      .map((l) => ({ path: l.path, at: Date.parse(l.ts) - l.duration_ms }))
      .sort((a, b) => a.at - b.at);
    expect(calls.map((c) => c.path)).toEqual(["/api/data", "/api/data", "/api/data", "/api/data/cohort"]);
    expect(inWindowAsBackgroundStarted, "calls in the quota's window once the background call had started (itself included)").toBe(1);
  });

  it("bounds the cache by size as well as entries", async () => {
    const g = await ownClientGateway({ reportRateLimit: 5, rateWindowSeconds: 2 });
    const small = await g.wait((g.submit("orders", g.parse("orders", body(400)), "u") as { job: { id: string } }).job.id);
    const bytes = JSON.stringify(small.data).length;
    const bounded = gatewayFor(svc, { clientId: g.config.clientId, clientSecret: g.config.clientSecret, reportRateLimit: 5, rateWindowSeconds: 2, cacheMaxBytes: Math.floor(bytes * 1.5) });
    for (const i of [400, 401]) {
      const out = bounded.submit("orders", bounded.parse("orders", body(i)), "u");
      if ("job" in out) await bounded.wait(out.job.id);
    }
    const st = bounded.status();
    expect(st.cache_bytes).toBeLessThanOrEqual(Math.floor(bytes * 1.5));
    expect(st.cache_entries).toBe(1);
    // The older answer was evicted; the newer one is served from cache.
    const again = bounded.submit("orders", bounded.parse("orders", body(401)), "u");
    expect("cached" in again).toBe(true);
  });
});
