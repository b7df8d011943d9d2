/**
 * The planner's call count against the real service: the starter dashboard, and the same dashboard
 * switched to last month, last quarter and the year to date, each run on one dashboard process (one
 * gateway) as a person would switch them. The calls the first look predicts are the calls the
 * service then counts, within one; a step whose count the service's record counts changed says what
 * it had been planned at.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays } from "@/lib/contract/dates";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import type { RangePreset } from "@/lib/report/state/range";
import { reportCalls, startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { runDashboard } from "./run";
import type { DashboardAnswer } from "./answer";
import { starterDashboard, type DashboardState } from "@/lib/report/state/dashboard";

// Late in a year, so the year to date spans four of the fetcher's 101-day pieces, as in October.
const END = "2025-10-20";
const DAYS = 400;

/** Looks until no tile is pending, keeping every look's plan. */
async function runToEnd(g: ReportGateway, state: DashboardState): Promise<DashboardAnswer[]> {
  const looks: DashboardAnswer[] = [];
  for (let n = 1; n <= 100; n++) {
    const answer = await runDashboard(g, state, END, { owner: "u1", waitMs: n === 1 ? 0 : 5_000 });
    looks.push(answer);
    if (!answer.tiles.some((t) => t.outcome.status === "pending")) return looks;
  }
  throw new Error("the dashboard was still pending after 100 looks");
}

const describePlan = (a: DashboardAnswer) =>
  a.plan.map((s, i) => `  ${i + 1}. ${s.op} ${JSON.stringify(s.query)} calls=${s.calls}${s.callsKnown ? "" : "?"} planned=${s.plannedCalls} ${s.status.state}`).join("\n");

describe("the planner's calls for the starter dashboard and its presets, against the real service", () => {
  let svc: TestService;
  let gateway: ReportGateway;

  beforeAll(async () => {
    // 400 days, so the year to date's comparison (the 293 days before it) has data too.
    svc = await startTestService({ data: { days: 400, ordersPerDay: 300, seed: 42, endDate: END }, env: { REPORT_RATE_LIMIT: "100000" } });
    gateway = gatewayFor(svc);
  }, 300_000);
  afterAll(async () => svc?.stop());

  const presets: (RangePreset | null)[] = [null, "lastmonth", "lastquarter", "ytd"];
  for (const preset of presets) {
    it(`${preset ?? "the starter dashboard (last 30 days)"}: the service counts the calls the first look predicted, within one`, async () => {
      const starter = starterDashboard();
      const state = preset ? { ...starter, range: { preset } } : starter;
      svc.logLines.length = 0;
      const looks = await runToEnd(gateway, state);
      const made = reportCalls(svc);
      const first = looks[0]!;
      console.log(`${preset ?? "starter"}: predicted ${first.plannedCalls}, the service counted ${made}\n${describePlan(first)}`);
      expect(looks.at(-1)!.tiles.every((t) => t.outcome.status === "done")).toBe(true);
      expect(made).toBeGreaterThan(0);
      expect(Math.abs(made - first.plannedCalls), `predicted ${first.plannedCalls}, made ${made}`).toBeLessThanOrEqual(1);
      // Every step of every look keeps the count it was planned at; one whose count is known and
      // differs is one the service's record counts changed, and it says so (the fetch panel's words).
      for (const look of looks) {
        for (const step of look.plan) {
          if (step.status.state === "cached") continue;
          expect(step.plannedCalls, describePlan(look)).toBeGreaterThan(0);
          if (!step.callsKnown) expect(step.calls).toBeGreaterThanOrEqual(step.plannedCalls);
        }
      }
    }, 300_000);
  }
});

/**
 * Opened cold by a process that has drawn nothing yet (a restart, or the first look of the day): the
 * planner counts with its cardinality model, not with dimensions it has seen. Each upstream query's
 * calls are read from its own job, so a difference is found where it arises.
 */
describe("the planner's calls for a dashboard opened cold, against the real service", () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService({ data: { days: DAYS, ordersPerDay: 300, seed: 42, endDate: END }, env: { REPORT_RATE_LIMIT: "100000" } });
  }, 300_000);
  afterAll(async () => svc?.stop());

  /** Opens the dashboard on a new process; each query's planned and made calls. */
  async function openCold(preset: RangePreset) {
    const g = gatewayFor(svc);
    const state = { ...starterDashboard(), range: { preset } };
    const before = reportCalls(svc);
    const first = await runDashboard(g, state, END, { owner: "u1", waitMs: 0 });
    const steps = first.plan.map((s) => {
      // The same owner's handle on the job the look started (submitting it again joins it).
      const out = g.submit(s.op, s.query, "u1");
      if (!("job" in out)) throw new Error(`no job for ${JSON.stringify(s.query)}\n${describePlan(first)}`);
      return { step: s, job: out.job.id };
    });
    const looks = await runToEnd(g, state);
    expect(looks.at(-1)!.tiles.every((t) => t.outcome.status === "done")).toBe(true);
    const queries = steps.map(({ step, job }) => {
      const s = g.get(job)?.status;
      if (s?.state !== "done") throw new Error(`job ${job} ended ${JSON.stringify(s)}`);
      return { op: step.op, query: step.query, planned: step.calls, made: s.result.upstream_calls };
    });
    const made = reportCalls(svc) - before;
    console.log(`${preset} cold: predicted ${first.plannedCalls}, the service counted ${made}\n${queries.map((q) => `  ${q.op} ${JSON.stringify(q.query)} planned=${q.planned} made=${q.made}`).join("\n")}`);
    // Every call the service counted is one of the plan's queries'.
    expect(queries.reduce((n, q) => n + q.made, 0)).toBe(made);
    return { first, queries, made };
  }

  it("last quarter: the service counts the calls the first look predicted, within one", async () => {
    const { first, made } = await openCold("lastquarter");
    expect(Math.abs(made - first.plannedCalls), `predicted ${first.plannedCalls}, made ${made}`).toBeLessThanOrEqual(1);
  }, 300_000);

  it("year to date: the service counts the calls the first look predicted, within one; a query off by more reaches before the data begins", async () => {
    const { first, queries, made } = await openCold("ytd");
    // A cold process cannot know where the data begins when it plans: a part of a range before it
    // holds no records and costs one call, where the model counted a part's worth of BINs.
    const dataBegins = addDays(END, -(DAYS - 1));
    expect(queries.some((q) => q.query.start_date < dataBegins)).toBe(true);
    for (const q of queries) {
      if (q.query.start_date < dataBegins) expect(q.made, `${JSON.stringify(q.query)}`).toBeLessThanOrEqual(q.planned + 1);
      else expect(Math.abs(q.made - q.planned), `${JSON.stringify(q.query)}`).toBeLessThanOrEqual(1);
    }
    expect(Math.abs(made - first.plannedCalls), `predicted ${first.plannedCalls}, made ${made}`).toBeLessThanOrEqual(1);
  }, 300_000);
});
