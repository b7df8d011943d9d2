/**
 * Jobs belong to their users: two users asking the same report share its upstream work, each under a
 * handle of their own that only they can poll or cancel. Against the real service, with the jobs in
 * memory and as rows in a real PostgreSQL server (a second instance answering polls from the rows).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "@/lib/core/store/open";
import type { Store } from "@/lib/core/store/sql";
import { postgresBinDir, startTestPostgres, type TestPostgres } from "@/lib/core/store/testing/postgres";
import { startTestService, type TestService } from "@/service/testing/harness";
import { ReportGateway, type GatewayConfig, type JobView } from "./gateway";
import { pgSharedState } from "./pg-shared";
import type { ReportQuery } from "./records";

const END = "2025-07-31";
const pgAvailable = process.env.TEST_DATABASE_URL !== undefined || postgresBinDir() !== null;

let svc: TestService;
let pg: TestPostgres | null = null;
let stores: Store[] = [];

const reportingCalls = () => svc.logLines.filter((l) => /"path":"\/api\/data(\/cohort)?"/.test(l)).length;

/** One call per 2 s: a report of several pages stays in flight long enough to act on. */
function config(): GatewayConfig {
  return {
    baseUrl: svc.url,
    clientId: svc.client.client_id,
    clientSecret: svc.client.client_secret,
    tokenUrl: `${svc.url}/api/auth/token`,
    reportRateLimit: 1,
    rateWindowSeconds: 2,
    pageCap: 50,
    ttlPastSeconds: 86_400,
    ttlTodaySeconds: 300,
    timeZone: "UTC",
  };
}

/** The gateway that runs jobs and one that answers polls (the same one in memory; another instance on PostgreSQL). */
async function gateways(kind: "memory" | "postgres"): Promise<{ runner: ReportGateway; poller: ReportGateway }> {
  if (kind === "memory") {
    const g = new ReportGateway(config());
    return { runner: g, poller: g };
  }
  if (stores.length === 0) {
    const url = process.env.TEST_DATABASE_URL ?? (pg = await startTestPostgres()).url;
    stores = await Promise.all(["a", "b"].map((owner) => openStore({ kind: "postgres", url }, { owner })));
  }
  const c = config();
  return {
    runner: new ReportGateway(c, pgSharedState(stores[0]!, c, "instance-a", { jobLeaseSeconds: 2 })),
    poller: new ReportGateway(c, pgSharedState(stores[1]!, c, "instance-b", { jobLeaseSeconds: 2 })),
  };
}

async function settleDone(g: ReportGateway, id: string, owner: string): Promise<JobView> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const v = await g.settle(id, 2_000, owner);
    if (!v) throw new Error(`job ${id} not found for ${owner}`);
    if (v.status.state !== "queued" && v.status.state !== "fetching") return v;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${v.status.state}`);
  }
}

function jobOf(out: ReturnType<ReportGateway["submit"]>): JobView {
  if (!("job" in out)) throw new Error("expected a job, not a cached answer");
  return out.job;
}

beforeAll(async () => {
  svc = await startTestService({ data: { days: 120, ordersPerDay: 40, seed: 13, endDate: END }, env: { REPORT_RATE_LIMIT: "100000" } });
});
afterAll(async () => {
  await svc?.stop();
  await Promise.all(stores.map((s) => s.close()));
  await pg?.stop();
});

describe.each([
  ["memory", true],
  ["postgres", pgAvailable],
] as const)("report job handles (jobs in %s)", (kind, available) => {
  it.skipIf(!available)("gives two users asking the same report one upstream job but a handle each; one cancelling leaves the other's running", async () => {
    const { runner, poller } = await gateways(kind);
    const start = kind === "memory" ? "2025-04-25" : "2025-04-26";
    const q: ReportQuery = { start_date: start, end_date: END, group_by: ["date", "bin"], metrics: ["attempts"] };
    const before = reportingCalls();
    const alice = jobOf(runner.submit("orders", runner.parse("orders", q), "alice"));
    const bob = jobOf(runner.submit("orders", runner.parse("orders", q), "bob"));
    expect(bob.id).not.toBe(alice.id);

    // Each handle is its owner's alone: another user finds nothing under it, here or on another instance.
    for (const g of [runner, poller]) {
      expect(await g.settle(alice.id, 0, "bob")).toBeNull();
      expect(g.get(alice.id, "bob")).toBeNull();
    }
    expect(runner.cancel(alice.id, "bob")).toBeNull();
    // A handle made up from Alice's (her job, Bob's name) is no handle at all.
    const [jobId, , tag] = alice.id.split(".");
    const forged = `${jobId}.${Buffer.from("bob").toString("base64url")}.${tag}`;
    expect(await poller.settle(forged, 0, "bob")).toBeNull();
    expect(await poller.settle(forged, 0)).toBeNull();

    // Bob lets go: his handle reads cancelled, Alice's keeps going and finishes with the records.
    expect(runner.cancel(bob.id, "bob")?.status.state).toBe("cancelled");
    expect((await runner.settle(bob.id, 0, "bob"))?.status.state).toBe("cancelled");
    expect((await poller.settle(alice.id, 0, "alice"))?.status.state).toMatch(/queued|fetching/);
    const done = await settleDone(poller, alice.id, "alice");
    expect(done.id).toBe(alice.id);
    if (done.status.state !== "done") throw new Error(JSON.stringify(done.status));
    const spent = reportingCalls() - before;
    expect(done.status.result.data).toEqual(await svc.allRecords("/api/data", { ...q }));
    // Bob's handle never carries the records he cancelled.
    expect((await runner.settle(bob.id, 0, "bob"))?.status.state).toBe("cancelled");
    // One upstream fetch for both: one call per page.
    expect(spent).toBe(Math.ceil(done.status.result.data.length / 1000));
  });

  it.skipIf(!available)("stops the upstream work once every handle to it is cancelled", async () => {
    const { runner } = await gateways(kind);
    // An empty window, as once the previous test's calls have aged out of it: the memory gateway
    // is new, and on PostgreSQL the shared window's calls (rows) are cleared; that test's job has ended.
    if (kind === "postgres") await stores[0]!.query("DELETE FROM upstream_calls");
    const start = kind === "memory" ? "2025-04-10" : "2025-04-11";
    const q: ReportQuery = { start_date: start, end_date: END, group_by: ["date", "bin"], metrics: ["revenue"] };
    const before = reportingCalls();
    const alice = jobOf(runner.submit("orders", runner.parse("orders", q), "alice"));
    const bob = jobOf(runner.submit("orders", runner.parse("orders", q), "bob"));
    // Alice in two tabs: her second submit is one more hold on her handle.
    const alice2 = jobOf(runner.submit("orders", runner.parse("orders", q), "alice"));
    expect(alice2.id).toBe(alice.id);
    await new Promise((r) => setTimeout(r, 300)); // the first page is asked
    runner.cancel(alice.id, "alice");
    expect(runner.get(alice.id, "alice")?.status.state).toMatch(/queued|fetching/);
    runner.cancel(bob.id, "bob");
    expect(runner.get(alice.id, "alice")?.status.state).toMatch(/queued|fetching/);
    runner.cancel(alice.id, "alice");
    await expect(runner.wait(alice.id)).rejects.toThrow();
    const calls = reportingCalls() - before;
    await new Promise((r) => setTimeout(r, 4_500)); // two more windows: no further page is asked
    expect(reportingCalls() - before).toBe(calls);
    expect(calls).toBeLessThanOrEqual(1);
  });
});
