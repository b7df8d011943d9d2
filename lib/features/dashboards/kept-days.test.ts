/**
 * A dashboard over the day store (lib/core/upstream/day-store.ts), against the real service and a real
 * PGlite store: opened again after a restart it costs no call, and the next day only the calls for
 * the days not yet settled; each time the plan's predicted calls are the calls the service counts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { DayStore } from "@/lib/core/upstream/day-store";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { reportCalls, startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { runDashboard } from "./run";
import type { DashboardAnswer } from "./answer";
import { parseDashboard } from "@/lib/report/state/dashboard";

const END = "2025-07-31";
const NOON = Date.parse(`${END}T12:00:00Z`);
const DAY = 86_400_000;


// A finance team's year to date and last month side by side: a KPI compared with the period before,
// the trend, brands by month and the cohorts.
const DASHBOARD = new URLSearchParams([
  ["range", "ytd"],
  ["t", "kpi.1|op=orders&range=ytd&by=date&m=revenue|Revenue"],
  ["t", "chart.4|op=orders&range=ytd&by=date&m=revenue,approvals&chart=line|"],
  ["t", "pivot.2.rg|op=orders&range=last90&by=date,card_brand&grain=month&m=revenue&table=pivot|Brands by month"],
  ["t", "cohort.4|range=last90|"],
]).toString();

describe("a dashboard over kept days", () => {
  let svc: TestService;
  let store: Store;
  let dir: string;
  let now = NOON;
  const state = () => {
    const parsed = parseDashboard(DASHBOARD, END);
    expect(parsed.problems).toEqual([]);
    return parsed.state;
  };
  /** A dashboard process started afresh: nothing in memory, the same store. */
  const restart = () =>
    gatewayFor(svc, {}, { days: new DayStore(store, { timeZone: "UTC", ttlTodaySeconds: 300, ttlPastSeconds: 86_400, maxBytes: 256 * 1024 * 1024 }, () => now) });

  /** Looks until no tile is pending; the first look's plan is what was predicted. */
  async function open(g: ReportGateway): Promise<{ predicted: number; last: DashboardAnswer }> {
    const first = await runDashboard(g, state(), END, { owner: "u1", waitMs: 0 });
    let last = first;
    for (let looks = 0; looks < 50 && last.tiles.some((t) => t.outcome.status === "pending"); looks++) {
      last = await runDashboard(g, state(), END, { owner: "u1", waitMs: 5_000 });
    }
    expect(last.tiles.map((t) => t.outcome.status)).toEqual(["done", "done", "done", "done"]);
    return { predicted: first.plan.reduce((n, s) => n + s.plannedCalls, 0), last };
  }

  beforeAll(async () => {
    svc = await startTestService({ data: { days: 400, ordersPerDay: 10, seed: 8, endDate: END }, env: { REPORT_RATE_LIMIT: "100000", TOKEN_RATE_LIMIT: "100000", TOKEN_ADDRESS_RATE_LIMIT: "100000" } });
    dir = mkdtempSync(join(tmpdir(), "kept-days-"));
    store = await openTestPglite(dir, "kept days test");
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
    await svc?.stop();
  });

  it("costs its predicted calls cold, none after a restart, and only the unsettled days' calls the next day", async () => {
    svc.logLines.length = 0;
    const cold = await open(restart());
    const coldCalls = reportCalls(svc);
    expect(coldCalls, "cold: some calls").toBeGreaterThan(0);
    // Cold, pages are counted from the planner's cardinality model, which errs high until it has
    // seen the data (lib/features/dashboards/plan-rows.ts); the days are what this test is about.
    expect(cold.predicted, "cold: no more calls than predicted").toBeGreaterThanOrEqual(coldCalls);

    svc.logLines.length = 0;
    const again = await open(restart());
    expect(reportCalls(svc), "after a restart: every day is kept").toBe(0);
    expect(again.predicted).toBe(0);

    now = NOON + DAY;
    svc.logLines.length = 0;
    const nextDay = await open(restart());
    const nextCalls = reportCalls(svc);
    expect(nextDay.predicted, "the next day: predicted as made").toBe(nextCalls);
    // The orders questions ask only their last days again (one call each); the cohorts, still
    // maturing, are asked again whole.
    expect(nextCalls).toBeLessThan(coldCalls);
  });
});
