/**
 * The cache warmer and the gateway's view of stale answers and jobs in flight, against the real
 * service: what a tick warms is then answered with no service call; a tick while someone waits
 * submits nothing; errors are one log line; a person joining a background job takes it over.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays, type Operation } from "@/lib/contract";
import { reportCalls, startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { BACKGROUND_OWNER, type ReportGateway } from "./gateway";
import type { ReportQuery } from "./records";
import { Warmer, type WarmQuery } from "./warmer";

const END = "2025-07-31";
const TTL = 86_400; // gatewayFor's ttlPastSeconds: every range here ended before today


const query = (g: ReportGateway, op: Operation, body: unknown): WarmQuery => ({ op, query: g.parse(op, body) });

describe("the warmer", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ data: { days: 90, ordersPerDay: 10, seed: 13, endDate: END }, env: { REPORT_RATE_LIMIT: "100000" } });
  });
  afterAll(async () => svc.stop());

  it("warms what its source names as background jobs; afterwards lookups and submits cost no service call", async () => {
    const g = gatewayFor(svc, { reportRateLimit: 5, rateWindowSeconds: 2 });
    const broad = query(g, "orders", { start_date: addDays(END, -29), end_date: END, group_by: ["date", "gateway_id"], metrics: ["attempts", "revenue"] });
    const cohort = query(g, "cohort", { start_date: addDays(END, -29), end_date: END, group_by: ["billing_cycle"] });
    // Derivable from `broad`: listed after it, it is not fetched on its own.
    const narrow = query(g, "orders", { start_date: addDays(END, -6), end_date: END, group_by: ["gateway_id"], metrics: ["revenue"] });
    const w = new Warmer(g, async () => [broad, cohort, narrow], { intervalMs: 60_000, refreshBeforeSeconds: 60 });
    svc.logLines.length = 0;

    const submitted = await w.tick();
    expect(submitted.map((s) => s.op)).toEqual(["orders", "cohort"]);
    await Promise.all(submitted.map((s) => g.wait(s.job.id)));
    expect(reportCalls(svc)).toBe(2);

    svc.logLines.length = 0;
    for (const { op, query: q } of [broad, cohort, narrow]) {
      expect(g.lookup(op, q)).not.toBeNull();
      expect("cached" in g.submit(op, q, "analyst")).toBe(true);
    }
    expect(await w.tick()).toEqual([]); // all warm: nothing to do
    expect(reportCalls(svc)).toBe(0);

    // An hour before they expire, 60 s of notice is not yet due; 30 s before, it is.
    expect(await w.tick(Date.now() + (TTL - 3600) * 1000)).toEqual([]);
    const refresh = await w.tick(Date.now() + (TTL - 30) * 1000);
    expect(refresh.map((s) => s.op)).toEqual(["orders", "cohort"]);
    expect(refresh.map((s) => s.job.status.state).filter((st) => st !== "queued" && st !== "fetching"), "refresh jobs neither queued nor fetching").toEqual([]);
    await Promise.all(refresh.map((s) => g.wait(s.job.id)));
    expect(reportCalls(svc)).toBe(2);
  });

  it("fetches a question marked once only while no answer to it is kept, fresh or not", async () => {
    const g = gatewayFor(svc, { reportRateLimit: 5, rateWindowSeconds: 2 });
    const look = { ...query(g, "orders", { start_date: addDays(END, -9), end_date: END, group_by: ["date"], metrics: ["refund_amount"] }), once: true };
    const w = new Warmer(g, async () => [look], { intervalMs: 60_000, refreshBeforeSeconds: 60 });
    svc.logLines.length = 0;
    const first = await w.tick();
    expect(first.map((s) => s.query)).toEqual([look.query]);
    await Promise.all(first.map((s) => g.wait(s.job.id)));
    // A day after, its answer expired: a question kept fresh would be asked again, this one is not.
    const dayAfter = Date.now() + (TTL + 3600) * 1000;
    expect(g.lookup(look.op, look.query, dayAfter)).toBeNull();
    expect(await w.tick(dayAfter)).toEqual([]);
    expect(reportCalls(svc)).toBe(1);
  });

  it("submits nothing, and does not even ask its source, while a person's call waits", async () => {
    const g = gatewayFor(svc, { reportRateLimit: 1, rateWindowSeconds: 60 });
    let asked = 0;
    const warm = query(g, "orders", { start_date: addDays(END, -3), end_date: END, group_by: ["card_type"] });
    const w = new Warmer(
      g,
      async () => {
        asked++;
        return [warm];
      },
      { intervalMs: 60_000, refreshBeforeSeconds: 60 },
    );
    svc.logLines.length = 0;
    const jobs = [0, 1].map((i) => g.submit("orders", g.parse("orders", { start_date: addDays(END, -i), end_date: END, group_by: ["date"] }), "analyst"));
    const ids = jobs.map((o) => ("job" in o ? o.job.id : ""));
    expect(g.status().queue_length).toBe(1); // one started, one waits for the window
    expect(await w.tick()).toEqual([]);
    expect(asked).toBe(0);
    expect(g.inFlight(warm.op, warm.query)).toBeNull();
    for (const id of ids) g.cancel(id);
    // Cancelling does not take back the call already sent: let the service answer it within this
    // test, not count it in a later one's calls (on a busy machine it answered two tests later).
    await expect.poll(() => reportCalls(svc), { message: "the started call reached the service", timeout: 60_000 }).toBe(1);
  });

  it("logs a failing source as one JSON line without its secrets, never throws, and never overlaps ticks", async () => {
    const g = gatewayFor(svc);
    const lines: string[] = [];
    const failing = new Warmer(
      g,
      () => Promise.reject(new Error("connect ECONNREFUSED postgres://dash:hunter2@db:5432/store token=abc123")),
      { intervalMs: 10, refreshBeforeSeconds: 60, log: (l) => lines.push(l) },
    );
    expect(await failing.tick()).toEqual([]);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: "error", msg: "report warmer tick failed" });
    expect(lines[0]).toContain("ECONNREFUSED");
    expect(lines[0]).not.toMatch(/hunter2|abc123/);
    // On its timer too: errors are logged, not thrown (an unhandled rejection would fail the run).
    failing.start();
    await new Promise((r) => setTimeout(r, 60));
    failing.stop();
    expect(lines.length).toBeGreaterThan(1);

    let asked = 0;
    let release: () => void = () => {};
    const slow = new Warmer(
      g,
      async () => {
        asked++;
        await new Promise<void>((r) => (release = r));
        return [];
      },
      { intervalMs: 60_000, refreshBeforeSeconds: 60 },
    );
    const first = slow.tick();
    expect(await slow.tick()).toEqual([]); // the first is still under way
    release();
    expect(await first).toEqual([]);
    expect(asked).toBe(1);
  });

  it("logs a query it cannot submit (a cap) and goes on with the next", async () => {
    const g = gatewayFor(svc, { reportRateLimit: 1, rateWindowSeconds: 60, maxJobsPerOwner: 1 });
    const lines: string[] = [];
    // Different metrics, so the second is not derivable from the first.
    const qs = ["approvals", "attempts"].map((m) => query(g, "orders", { start_date: addDays(END, -20), end_date: END, group_by: ["date"], metrics: [m] }));
    const w = new Warmer(g, async () => qs, { intervalMs: 60_000, refreshBeforeSeconds: 60, maxPerTick: 5, log: (l) => lines.push(l) });
    const submitted = await w.tick();
    expect(submitted).toHaveLength(1);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: "report warmer could not submit", operation: "orders", status: 429 });
    await g.wait(submitted[0]!.job.id);
  });

  it("logs a background job that fails, and does not spend a call on it again at the next tick", async () => {
    // 20 days in 10-day pieces: 2 calls, past a cap of 1, found out after the first call.
    const g = gatewayFor(svc, { pageCap: 1, maxPieceDays: 9 });
    const lines: string[] = [];
    const q = query(g, "orders", { start_date: addDays(END, -19), end_date: END, group_by: ["date"] });
    const w = new Warmer(g, async () => [q], { intervalMs: 60_000, refreshBeforeSeconds: 60, log: (l) => lines.push(l) });
    svc.logLines.length = 0;
    const [sub] = await w.tick();
    await expect(g.wait(sub!.job.id)).rejects.toThrow(/cap of 1/);
    await new Promise((r) => setTimeout(r, 0)); // the warmer's own handler runs after ours
    expect(lines.map((l) => JSON.parse(l) as { msg: string; status: number })).toMatchObject([{ msg: "report warmer job failed", status: 400 }]);
    expect(await w.tick()).toEqual([]);
    expect(reportCalls(svc)).toBe(1);
    // Once the back-off has passed, it is tried again.
    const again = await w.tick(Date.now() + 16 * 60_000);
    expect(again).toHaveLength(1);
    await g.wait(again[0]!.job.id).catch(() => undefined);
  });
});

describe("the gateway's stale answers and jobs in flight", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ data: { days: 40, ordersPerDay: 10, seed: 17, endDate: END }, env: { REPORT_RATE_LIMIT: "100000" } });
  });
  afterAll(async () => svc.stop());

  it("answers an expired query from latest() as not fresh while lookup() misses", async () => {
    const g = gatewayFor(svc);
    const q: ReportQuery = g.parse("orders", { start_date: addDays(END, -9), end_date: END, group_by: ["date"], metrics: ["revenue"] });
    const out = g.submit("orders", q, "analyst");
    const fetched = "job" in out ? await g.wait(out.job.id) : out.cached;
    const later = Date.now() + (TTL + 10) * 1000;
    expect(g.lookup("orders", q, later)).toBeNull();
    const stale = g.latest("orders", q, later)!;
    expect(stale).toMatchObject({ fresh: false });
    expect(stale.ageSeconds).toBeGreaterThanOrEqual(TTL + 9);
    expect(stale.result.data).toEqual(fetched.data);
    const sub = { ...q, start_date: addDays(END, -3) };
    expect(g.latest("orders", sub, later)!.result.source).toBe("derived");
    expect(g.latest("orders", sub)).toMatchObject({ fresh: true, ageSeconds: 0 });
  });

  it("shows a job in flight without joining it, and hands a background job to a person who joins it", async () => {
    const g = gatewayFor(svc, { reportRateLimit: 1, rateWindowSeconds: 60 });
    const body = (i: number) => ({ start_date: addDays(END, -i), end_date: END, group_by: ["gateway_id"], metrics: ["attempts"] });
    const first = g.submit("orders", g.parse("orders", body(1)), "other"); // takes the only slot
    const warm = g.parse("orders", body(2));
    const bgA = g.submit("orders", warm, BACKGROUND_OWNER);
    const bgB = g.submit("orders", g.parse("orders", body(3)), BACKGROUND_OWNER);
    const ids = [first, bgA, bgB].map((o) => ("job" in o ? o.job.id : ""));
    // Looking shows the job, not anyone's handle to it (a handle is `<job id>.<owner>.<tag>`).
    const jobOfHandle = (h: string) => h.split(".")[0];
    expect(g.inFlight("orders", warm)?.id).toBe(jobOfHandle(ids[1]!));
    expect(g.get(ids[1]!)!.status).toMatchObject({ state: "queued", position: 0 });
    expect(g.get(ids[2]!)!.status).toMatchObject({ state: "queued", position: 1 });
    expect(g.status()).toMatchObject({ queue_length: 0, background_queue_length: 2 });

    // An analyst asks for the same report: they join the job, which now waits as theirs.
    const joined = g.submit("orders", warm, "analyst");
    if (!("job" in joined)) throw new Error("expected to join the job");
    expect(jobOfHandle(joined.job.id)).toBe(jobOfHandle(ids[1]!));
    expect(joined.job.id).not.toBe(ids[1]); // the same job, under the analyst's own handle
    expect(g.status()).toMatchObject({ queue_length: 1, background_queue_length: 1 });
    expect(g.get(ids[2]!)!.status).toMatchObject({ state: "queued", position: 1 }); // behind the analyst's
    // Background jobs are not reaped for want of polling (the warmer never polls); the analyst's
    // (once background) one is, as any person's.
    await g.wait(ids[0]!);
    expect(g.reapIdle(Date.now() + 10 * 60_000)).toBe(1);
    await g.wait(ids[1]!).catch(() => undefined);
    expect(g.get(ids[1]!)!.status.state).toBe("cancelled");
    expect(g.get(ids[2]!)!.status.state).toBe("queued");
    g.cancel(ids[2]!);
    await g.wait(ids[2]!).catch(() => undefined);
    expect(g.inFlight("orders", g.parse("orders", body(3)))).toBeNull();
  });
});
