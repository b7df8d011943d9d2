/**
 * The Monitor's planned calls against the real service: the count its first look plans for the four
 * months is the count the service then records, cold, a second time on the same process (none), and
 * after a restart on the same PGlite store (what the store does not keep, here the month to date).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { DayStore } from "@/lib/core/upstream/day-store";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { PgCache } from "@/lib/core/upstream/pg-cache";
import { reportCalls, startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { DEFAULT_MONITOR_CONFIG } from "./definitions";
import { loadMonitor, type MonitorAnswer } from "./load";

const TODAY = "2025-07-20";
const NOON = Date.parse(`${TODAY}T12:00:00Z`);

let svc: TestService;
let dir: string;
let store: Store;

beforeAll(async () => {
  svc = await startTestService({ data: { days: 150, ordersPerDay: 300, seed: 5, endDate: TODAY }, env: { REPORT_RATE_LIMIT: "100000" } });
  dir = mkdtempSync(join(tmpdir(), "monitor-plan-"));
  store = await openTestPglite(dir, "monitor plan test");
}, 300_000);

afterAll(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  await svc?.stop();
});

/** A dashboard process as it is wired: whole answers and kept days in the store, the clock at noon. */
function dashboardProcess(): ReportGateway {
  const days = new DayStore(store, { timeZone: "UTC", ttlTodaySeconds: 300, ttlPastSeconds: 86_400, maxBytes: 64 * 1024 * 1024 }, () => NOON);
  return gatewayFor(svc, {}, { days, cache: new PgCache({ db: store, maxBytes: 64 * 1024 * 1024 }) });
}

/** Looks as the page does (a short long poll each time) until the Monitor answers; every look kept. */
async function lookToEnd(g: ReportGateway, owner: string): Promise<MonitorAnswer[]> {
  const looks: MonitorAnswer[] = [];
  for (let n = 0; n < 100; n++) {
    const a = await loadMonitor(g, DEFAULT_MONITOR_CONFIG, TODAY, owner, n === 0 ? 0 : 2_000);
    looks.push(a);
    if (a.kind !== "pending") return looks;
  }
  throw new Error("the Monitor was still pending after 100 looks");
}

/** Calls the months' jobs made, as the answers that saw them finish say (each job's once). */
function madeByJobs(looks: MonitorAnswer[]): number {
  const last = looks.at(-1)!;
  if (last.kind !== "ok") throw new Error(`the Monitor did not finish: ${JSON.stringify(last.months)}`);
  return last.months.reduce((n, m) => n + (m.status.state === "done" ? m.status.result.upstream_calls : 0), 0);
}

describe("the Monitor's planned calls, against the real service", () => {
  it("plans the calls the service then counts: cold, again on the same process, and after a restart", async () => {
    const g = dashboardProcess();

    svc.logLines.length = 0;
    const cold = await lookToEnd(g, "viewer-1");
    const coldMade = reportCalls(svc);
    expect(cold[0]!.plannedCalls, JSON.stringify(cold[0]!.months)).toBe(coldMade);
    expect(coldMade).toBeGreaterThanOrEqual(4);
    // Every look while the months ran showed the count the first one planned.
    for (const look of cold) if (look.kind === "pending") expect(look.plannedCalls).toBe(cold[0]!.plannedCalls);

    svc.logLines.length = 0;
    const again = await lookToEnd(g, "viewer-3");
    expect(again).toHaveLength(1);
    expect(again[0]!.plannedCalls).toBe(0);
    expect(reportCalls(svc)).toBe(0);

    // A new process on the same store: the whole answers kept there answer all four months.
    svc.logLines.length = 0;
    const restarted = await lookToEnd(dashboardProcess(), "viewer-4");
    expect(restarted[0]!.plannedCalls).toBe(reportCalls(svc));
    expect(madeByJobs(restarted)).toBe(reportCalls(svc));
  }, 300_000);

  it("counts each month's calls where it plans them, and a fetch through one long look matches them month by month", async () => {
    const fresh = gatewayFor(svc);
    svc.logLines.length = 0;
    const answer = await loadMonitor(fresh, DEFAULT_MONITOR_CONFIG, TODAY, "viewer-5", 60_000);
    if (answer.kind !== "ok") throw new Error(`the Monitor did not finish: ${JSON.stringify(answer.months)}`);
    expect(answer.months.map((m) => m.plannedCalls)).toEqual(answer.months.map((m) => (m.status.state === "done" ? m.status.result.upstream_calls : -1)));
    expect(answer.plannedCalls).toBe(reportCalls(svc));
  });
});
