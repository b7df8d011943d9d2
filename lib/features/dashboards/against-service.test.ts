/**
 * A dashboard against the real service (a real socket over a real DuckDB file): every tile, run
 * through the planner, the gateway and derivation, shows exactly what its own requests answered
 * straight from the service give; the cold run costs fewer service calls than one per tile request,
 * a second look costs none, and a tile whose filters cannot both hold costs nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Operation } from "@/lib/contract";
import type { ReportRecord } from "@/lib/contract/schemas";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { reportCalls, startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { runDashboard } from "./run";
import type { DashboardAnswer } from "./answer";
import { parseDashboard, serializeDashboard, type DashboardState } from "@/lib/report/state/dashboard";
import { effectiveTile, tileRequests } from "@/lib/features/dashboards/tile-spec";
import { buildTileModel } from "./tiles";

const END = "2025-07-31";
const TODAY = END;


const pathOf = (op: Operation) => (op === "orders" ? "/api/data" : "/api/data/cohort");

/** A dashboard from its URL: parsed with nothing to complain about, and the same after a round trip. */
function fromUrl(pairs: [string, string][]): DashboardState {
  const url = new URLSearchParams(pairs).toString();
  const parsed = parseDashboard(url, TODAY);
  expect(parsed.hasReport).toBe(true);
  expect(parsed.problems).toEqual([]);
  const again = parseDashboard(serializeDashboard(parsed.state), TODAY);
  expect(again.problems).toEqual([]);
  expect(again.state).toEqual(parsed.state);
  return again.state;
}

/** Looks until no tile is pending (each look long-polls the first pending query). */
async function runToEnd(g: ReportGateway, state: DashboardState, owner = "u1"): Promise<{ answer: DashboardAnswer; looks: number }> {
  for (let looks = 1; looks <= 50; looks++) {
    const answer = await runDashboard(g, state, TODAY, { owner, waitMs: 5_000 });
    if (!answer.tiles.some((t) => t.outcome.status === "pending")) return { answer, looks };
  }
  throw new Error("the dashboard was still pending after 50 looks");
}

const describePlan = (a: DashboardAnswer) =>
  a.plan.map((s, i) => `  ${i + 1}. ${s.op} ${JSON.stringify(s.query)} calls=${s.calls} status=${s.status.state} tiles=${s.tiles.map((t) => t.index).join(",")}`).join("\n");

// The six tiles a finance team reads: a KPI (which always compares with the previous period), the
// trend, where the money comes from, brands by month over a quarter (its own range and grain), the
// top BINs, and how customers stay.
const SIX_TILES: [string, string][] = [
  ["range", "last30"],
  ["t", "kpi.1|op=orders&range=last30&by=date&m=revenue|Revenue"],
  ["t", "chart.4|op=orders&range=last30&by=date&m=revenue,approvals&chart=line|"],
  ["t", "table.2|op=orders&range=last30&by=gateway_alias&m=revenue,attempts,approvals&kpi=approval_rate&sort=-revenue|"],
  ["t", "pivot.2.rg|op=orders&range=last90&by=date,card_brand&grain=month&m=revenue&table=pivot|Brands by month"],
  ["t", "table.2|op=orders&range=last30&by=bin&m=revenue,attempts&kpi=approval_rate&sort=-revenue|Top BINs by revenue"],
  ["t", "cohort.4|range=last90|"],
];

describe("a six-tile dashboard against the real service", () => {
  let svc: TestService;
  let state: DashboardState;
  let gateway: ReportGateway;
  let cold: DashboardAnswer;
  let coldCalls = 0;

  beforeAll(async () => {
    svc = await startTestService({ data: { days: 150, ordersPerDay: 40, seed: 18, endDate: END }, env: { REPORT_RATE_LIMIT: "100000" } });
  });
  afterAll(async () => svc?.stop());

  it("parses from its URL into six tiles", () => {
    state = fromUrl(SIX_TILES);
    expect(state.tiles.map((t) => t.kind)).toEqual(["kpi", "chart", "table", "pivot", "table", "cohort"]);
    expect(state.tiles[3]!.pins).toEqual({ range: true, grain: true, compare: false, filters: false });
  });

  it("runs cold to every tile done, each exactly what its own requests give straight from the service", async () => {
    gateway = gatewayFor(svc);
    svc.logLines.length = 0;
    const { answer, looks } = await runToEnd(gateway, state);
    coldCalls = reportCalls(svc);
    cold = answer;
    console.log(`cold run: ${coldCalls} service calls in ${looks} look(s); planned ${answer.plannedCalls}, naive estimate ${answer.naiveCalls}\n${describePlan(answer)}`);
    expect(answer.tiles.map((t) => t.outcome.status)).toEqual(state.tiles.map(() => "done"));
    expect(gateway.client.reportCalls).toBe(coldCalls);

    for (const [i, tile] of state.tiles.entries()) {
      const spec = effectiveTile(state, tile);
      const requests = tileRequests(spec, TODAY)!;
      const main = (await svc.allRecords(pathOf(requests.main.op), { ...requests.main.request })) as ReportRecord[];
      const comparison = requests.comparison
        ? ((await svc.allRecords(pathOf(requests.comparison.op), { ...requests.comparison.request })) as ReportRecord[])
        : null;
      expect(main.length, `tile ${i + 1} has data`).toBeGreaterThan(0);
      const outcome = answer.tiles[i]!.outcome;
      if (outcome.status !== "done") throw new Error(`tile ${i + 1} is ${outcome.status}`);
      expect(outcome.stale).toBe(false);
      expect(outcome.model, `tile ${i + 1} (${tile.kind})`).toEqual(buildTileModel(spec, requests, { main, comparison }, TODAY));
    }
  });

  it("costs fewer service calls cold than one call per tile request", async () => {
    // Every tile request on its own, all at once on a fresh gateway: nothing planned, nothing derived.
    const naive = gatewayFor(svc);
    svc.logLines.length = 0;
    const requests = state.tiles.flatMap((tile) => {
      const r = tileRequests(effectiveTile(state, tile), TODAY)!;
      return r.comparison ? [r.main, r.comparison] : [r.main];
    });
    await Promise.all(
      requests.map((r) => {
        const out = naive.submit(r.op, naive.parse(r.op, r.request), "u1");
        return "cached" in out ? out.cached : naive.wait(out.job.id);
      }),
    );
    const oneEach = reportCalls(svc);
    console.log(`service calls: cold dashboard ${coldCalls}, one call per tile request ${oneEach} (${requests.length} requests for ${state.tiles.length} tiles)`);
    expect(oneEach).toBeGreaterThanOrEqual(requests.length);
    expect(coldCalls).toBeLessThan(oneEach);

    // The cold run fetched each planned query once, nothing more: its calls are their pages.
    let pages = 0;
    for (const step of cold.plan) pages += Math.max(1, Math.ceil((await svc.allRecords(pathOf(step.op), { ...step.query })).length / 1000));
    expect(coldCalls).toBe(pages);
    // Not 3 or fewer: two operations (orders, cohort) are two queries at least, and the table by
    // gateway and the BIN table cannot share one answer within the page cap (by the planner's
    // default cardinalities, 20 gateways × 5,000 BINs), nor either join the by-date answer (the
    // planner adds date for the KPI's compared days). So 4 queries, the BIN table's taking 2 pages.
    console.log(`cold needs ${cold.plan.length} queries (${pages} pages):\n${describePlan(cold)}`);
    expect(cold.plan.length).toBe(4);
  });

  it("costs no call the second time, every tile done", async () => {
    svc.logLines.length = 0;
    const again = await runDashboard(gateway, state, TODAY, { owner: "u2", waitMs: 0 });
    expect(reportCalls(svc)).toBe(0);
    expect(again.tiles.map((t) => t.outcome.status)).toEqual(state.tiles.map(() => "done"));
    expect(again.plannedCalls).toBe(0);
    expect(again.plan.every((s) => s.status.state === "cached")).toBe(true);
    // The same pictures as the cold run.
    expect(again.tiles.map((t) => (t.outcome.status === "done" ? t.outcome.model : null))).toEqual(
      cold.tiles.map((t) => (t.outcome.status === "done" ? t.outcome.model : null)),
    );
  });

  it("names a tile whose filter and the dashboard's keep nothing in common, and asks nothing for it", async () => {
    const conflicting: [string, string][] = [
      ["range", "last30"],
      ["f.card_brand", "VISA"],
      ["t", "table.2|op=orders&range=last30&by=gateway_alias&m=revenue&f.card_brand=MASTERCARD|Mastercard by gateway"],
      ["t", "kpi.1|op=orders&range=last30&by=date&m=revenue|Visa revenue"],
    ];
    const d = fromUrl(conflicting);
    expect(d.filters).toEqual({ card_brand: ["VISA"] });
    expect(tileRequests(effectiveTile(d, d.tiles[0]!), TODAY)).toBeNull();

    // Alone, the conflicting tile costs nothing at all.
    const g = gatewayFor(svc);
    svc.logLines.length = 0;
    const alone = await runDashboard(g, { ...d, tiles: [d.tiles[0]!] }, TODAY, { owner: "u1", waitMs: 1_000 });
    expect(alone.tiles[0]!.outcome.status).toBe("conflict");
    expect(alone.tiles[0]!.outcome.status === "conflict" && alone.tiles[0]!.outcome.message).toMatch(/no value in common/);
    expect(alone.plan).toEqual([]);
    expect(reportCalls(svc)).toBe(0);

    // Next to a tile that runs: that one is drawn (Visa only), the conflict is in no plan step.
    const { answer } = await runToEnd(g, d);
    expect(answer.tiles.map((t) => t.outcome.status)).toEqual(["conflict", "done"]);
    expect(answer.plan.flatMap((s) => s.tiles.map((t) => t.index))).not.toContain(1);
    const spec = effectiveTile(d, d.tiles[1]!);
    const requests = tileRequests(spec, TODAY)!;
    expect(requests.main.request.filters).toEqual({ card_brand: ["VISA"] });
    const main = (await svc.allRecords("/api/data", { ...requests.main.request })) as ReportRecord[];
    const comparison = (await svc.allRecords("/api/data", { ...requests.comparison!.request })) as ReportRecord[];
    const outcome = answer.tiles[1]!.outcome;
    expect(outcome.status === "done" && outcome.model).toEqual(buildTileModel(spec, requests, { main, comparison }, TODAY));
  });

  // A failed query is no longer in flight: unless a look remembers it, it would plan and send the
  // same query again on every look (the page polls while a tile is pending), and never say why.
  it("shows a tile whose query fails as failed, without spending a call on every look", async () => {
    // 90 days by BIN is about 1,240 records: 2 pages, past a page cap of 1.
    const d = fromUrl([
      ["range", "last90"],
      ["t", "table.2|op=orders&range=last90&by=bin&m=revenue&sort=-revenue|"],
    ]);
    const g = gatewayFor(svc, { pageCap: 1 });
    svc.logLines.length = 0;
    const seen: string[] = [];
    for (let look = 0; look < 5; look++) {
      const a = await runDashboard(g, d, TODAY, { owner: "u1", waitMs: 2_000 });
      const o = a.tiles[0]!.outcome;
      seen.push(o.status === "failed" ? `failed: ${o.message}` : o.status);
      if (o.status !== "pending") break;
    }
    console.log(`a failing tile over ${seen.length} looks: ${JSON.stringify(seen)}; service calls ${reportCalls(svc)}`);
    expect(seen.at(-1)).toMatch(/^failed: .*cap of 1/);
    expect(reportCalls(svc)).toBeLessThanOrEqual(2);
  });

  // Values seen in earlier answers are no estimate of a dimension's size (a report filtered to one BIN
  // has seen one): planning must not merge a chart by date and a table by BIN over 90 days (1 + 2
  // calls apart) into one date × BIN query past a page cap of 3 because of such a report.
  it("plans a dashboard that fits the page cap on a fresh gateway within it after a filtered report", async () => {
    const d = fromUrl([
      ["range", "last90"],
      ["t", "chart.4|op=orders&range=last90&by=date&m=revenue|"],
      ["t", "table.2|op=orders&range=last90&by=bin&m=revenue&sort=-revenue|"],
    ]);
    const finish = async (g: ReportGateway) => {
      let a: DashboardAnswer | null = null;
      for (let look = 0; look < 5; look++) {
        a = await runDashboard(g, d, TODAY, { owner: "u1", waitMs: 2_000 });
        if (!a.tiles.some((t) => t.outcome.status === "pending")) break;
      }
      return a!;
    };
    const fresh = await finish(gatewayFor(svc, { pageCap: 3 }));
    expect(fresh.tiles.map((t) => t.outcome.status)).toEqual(["done", "done"]);

    const g = gatewayFor(svc, { pageCap: 3 });
    const oneBin = (await svc.allRecords("/api/data", { start_date: "2025-05-03", end_date: END, group_by: ["bin"], metrics: ["revenue"] }))[0]!.bin!;
    const out = g.submit("orders", g.parse("orders", { start_date: "2025-05-03", end_date: END, group_by: ["bin"], filters: { bin: [oneBin] } }), "u1");
    if ("job" in out) await g.wait(out.job.id);
    const after = await finish(g);
    console.log(`after a one-BIN report: ${JSON.stringify(after.tiles.map((t) => t.outcome.status))}, plan ${JSON.stringify(after.plan.map((s) => s.query.group_by))}`);
    expect(after.tiles.map((t) => t.outcome.status)).toEqual(["done", "done"]);
  });
});
