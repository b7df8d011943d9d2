/**
 * Keeping shared dashboards warm, over a real PGlite store, the real service and the real report
 * gateway: which links the background warmer keeps fresh, a share opened after a background refresh
 * costing no service call, a share shown at once from its last (stale) answers while they are
 * refreshed, and a snapshot drawn from its frozen answers alone.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { hashPassword } from "@/lib/core/auth/password";
import type { SessionUser } from "@/lib/core/auth/session";
import type { Operation } from "@/lib/contract";
import { todayIn } from "@/lib/contract/dates";
import type { ReportQuery } from "@/lib/contract/schemas";
import { dashboardQueries, runDashboard } from "@/lib/features/dashboards/run";
import type { DashboardAnswer } from "@/lib/features/dashboards/answer";
import { parseDashboard, serializeDashboard, starterDashboard, type DashboardState } from "@/lib/report/state/dashboard";
import { canonicalParams } from "@/lib/features/saved-reports";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import type { SavedReport } from "@/lib/features/saved-reports/model";
import { shareLinksRepo } from "@/lib/features/sharing/links-store";
import type { Store } from "@/lib/core/store/sql";
import { usersRepo } from "@/lib/core/auth/users";
import { SHARE_OWNER, type ReportGateway } from "@/lib/core/upstream/gateway";
import { Warmer } from "@/lib/core/upstream/warmer";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { sharedDashboardState, sharedDashboardView } from "@/lib/features/sharing/dashboard";
import { createShareLink } from "@/lib/features/sharing/links";
import { monitorMonths, monitorQuery } from "@/lib/features/monitor/months";
import { reportQuery } from "@/lib/features/sharing/service";
import { coverageRequest } from "@/lib/report/periods/coverage";
import { alertsRepo } from "@/lib/features/notifications/alerts-store";
import { AlertDefinition } from "@/lib/features/notifications/definition";
import { alertRequests } from "@/lib/features/notifications/evaluate";
import { subscriptionsRepo } from "@/lib/features/notifications/subscriptions-store";
import { noteLook, recentLooksRepo } from "./looks";
import { warmQueries } from "./warm";

const TZ = "UTC";
const DAY_MS = 86_400_000;
const WARMING = { SHARE_WARM_DAYS: 7, REPORT_TIMEZONE: TZ };
let dir: string;
let store: Store;
let svc: TestService;
let gateway: ReportGateway;
let analyst: SessionUser;
let report: SavedReport;
let state: DashboardState;
let today: string;

const REPORTING = new Set(["/api/data", "/api/data/cohort"]);
/** The service's reporting calls so far. */
const reportCalls = () =>
  svc.logLines.map((l) => JSON.parse(l) as { msg: string; path: string }).filter((l) => l.msg === "request" && REPORTING.has(l.path)).length;

/**
 * Stops the clock every `Date.now()` in this process reads (the gateway's cache lifetimes and quota
 * window, the service's) where it is; `pass` moves it on. Timers stay real. A lifetime of one second
 * then ends when the test says, not when a busy machine has taken a second over a dashboard's calls.
 */
function stopClock(): { pass(ms: number): void } {
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
  return { pass: (ms) => vi.setSystemTime(Date.now() + ms) };
}
afterEach(() => {
  vi.useRealTimers();
});

/** Looks until no tile is pending, as the dashboard page polls. */
async function runToEnd(g: ReportGateway, s: DashboardState): Promise<DashboardAnswer> {
  for (let look = 0; look < 50; look++) {
    const answer = await runDashboard(g, s, today, { owner: analyst.id, waitMs: 5_000 });
    if (!answer.tiles.some((t) => t.outcome.status === "pending")) return answer;
  }
  throw new Error("the dashboard was still pending after 50 looks");
}

const statuses = (a: DashboardAnswer) => a.tiles.map((t) => t.outcome.status);
const staleness = (a: DashboardAnswer) => a.tiles.map((t) => (t.outcome.status === "done" ? t.outcome.stale : null));
const models = (a: DashboardAnswer) => a.tiles.map((t) => (t.outcome.status === "done" ? t.outcome.model : null));

const saveDashboard = (name: string, params: string) =>
  savedReportsRepo(store).create({ ownerId: analyst.id, name, page: "dashboard", params: canonicalParams("dashboard", params, TZ), sharedWithTeam: false });

/** The share page's view of the dashboard (its default range, no snapshot). */
const shareView = (g: ReportGateway, r: SavedReport = report, waitMs?: number) =>
  sharedDashboardView(g, r, { owner: SHARE_OWNER, sharedBy: analyst.email, timeZone: TZ, preset: null, allowed: [], snapshot: null, ...(waitMs === undefined ? {} : { waitMs }) });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "share-warm-"));
  store = await openTestPglite(dir, "share warm test");
  const u = await usersRepo(store).create({ email: "warm@test.local", role: "analyst", passwordHash: await hashPassword("irrelevant-password") });
  analyst = { id: u.id, email: u.email, role: "analyst" } as SessionUser;
  today = todayIn(TZ);
  // Data up to today, so that the links' presets resolve to days that have it.
  svc = await startTestService({ data: { days: 60, ordersPerDay: 15, seed: 11, endDate: today }, env: { REPORT_RATE_LIMIT: "100000" } });
  gateway = gatewayFor(svc);
  // The starter dashboard: KPIs compared with the previous period, trend, gateways, brands, BINs, cohorts.
  report = await saveDashboard("Finance overview", serializeDashboard(starterDashboard()));
  state = sharedDashboardState(report, null);
  expect(state.tiles.length).toBe(starterDashboard().tiles.length);
});

afterAll(async () => {
  await svc?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("warmQueries", () => {
  it("keeps warm the planned queries of a dashboard behind a live link viewed lately, and no other", async () => {
    const links = shareLinksRepo(store);
    const live = await createShareLink(store, gateway, TZ, analyst, report, { mode: "live" });
    expect(await warmQueries(store, gateway, TZ, 7)).toEqual([]); // never viewed yet
    await links.recordView(live.link.id, "address-hash-1");

    // Links that must not be warmed, each on a dashboard of its own (other ranges, so other queries).
    const revokedReport = await saveDashboard("Revoked", "range=last7&t=kpi.1|op=orders%26range=last7%26by=date%26m=revenue|");
    const revoked = await createShareLink(store, gateway, TZ, analyst, revokedReport, { mode: "live" });
    await links.recordView(revoked.link.id, "address-hash-2");
    await links.revoke(revoked.link.id);

    const expiredReport = await saveDashboard("Expired", "range=yesterday&t=kpi.1|op=orders%26range=last7%26by=date%26m=revenue|");
    const expired = await createShareLink(store, gateway, TZ, analyst, expiredReport, { mode: "live", expiresInDays: 1 });
    await links.recordView(expired.link.id, "address-hash-3");
    await store.query("UPDATE share_links SET expires_at = now() - interval '1 second' WHERE id = $1", [expired.link.id]);

    const snapshotReport = await saveDashboard("Snapshot", "range=last90&t=kpi.1|op=orders%26range=last7%26by=date%26m=revenue|");
    const snapshot = await createShareLink(store, gateway, TZ, analyst, snapshotReport, { mode: "snapshot" });
    await links.recordView(snapshot.link.id, "address-hash-4");

    const oldReport = await saveDashboard("Viewed 8 days ago", "range=mtd&t=kpi.1|op=orders%26range=last7%26by=date%26m=revenue|");
    const old = await createShareLink(store, gateway, TZ, analyst, oldReport, { mode: "live" });
    await links.recordView(old.link.id, "address-hash-5", new Date(Date.now() - 8 * DAY_MS));

    const expected = dashboardQueries(gateway, state, today);
    expect(expected.length).toBeGreaterThan(0);
    expect(await warmQueries(store, gateway, TZ, 7)).toEqual(expected);
    // The 8-day-old view is left out by the window alone: with 9 days it is warmed too, after the newer one.
    expect(await warmQueries(store, gateway, TZ, 9)).toEqual([...expected, ...dashboardQueries(gateway, sharedDashboardState(oldReport, null), today)]);
  });
});

describe("a shared dashboard", () => {
  it("opened after a background refresh costs no service call", async () => {
    const clock = stopClock();
    const g = gatewayFor(svc, { ttlTodaySeconds: 1, ttlPastSeconds: 1 });
    const first = await runToEnd(g, state);
    expect(statuses(first).every((s) => s === "done")).toBe(true);
    clock.pass(1_100);
    const planned = dashboardQueries(g, state, today);
    expect(planned.every((q) => g.lookup(q.op, q.query) === null)).toBe(true); // all expired

    const warmer = new Warmer(g, () => warmQueries(store, g, TZ, 7), { intervalMs: 60_000, refreshBeforeSeconds: 0 });
    const submitted = await warmer.tick();
    expect(submitted.map((s) => ({ op: s.op, query: s.query }))).toEqual(planned);
    await Promise.all(submitted.map((s) => g.wait(s.job.id)));

    const before = reportCalls();
    const view = await shareView(g);
    expect(reportCalls()).toBe(before);
    expect(statuses(view.answer).every((s) => s === "done")).toBe(true);
    expect(staleness(view.answer).every((s) => s === false)).toBe(true);
    expect(view.answer.plan.every((s) => s.status.state === "cached")).toBe(true);
    expect(view.mode).toBe("live");
  });

  describe("once its answers expire", () => {
    /** What came first: the stale view's answer, or a timer as long as the view may hold on, set beside it. */
    let first: "view" | "timer" | null = null;

    it("shows its last answers, marked stale, while they are refreshed, and fresh ones after the refresh", async () => {
      // The refresh must not finish within the view for "stale" to be what the visitor sees, so the
      // quota is set to what the first run spends in a 6-second window: the refresh queues behind it
      // until the stopped clock is moved past the window.
      const probe = gatewayFor(svc);
      await runToEnd(probe, state);
      const clock = stopClock();
      const g = gatewayFor(svc, { ttlTodaySeconds: 1, ttlPastSeconds: 1, reportRateLimit: probe.client.reportCalls, rateWindowSeconds: 6 });
      const firstRun = await runToEnd(g, state);
      expect(g.client.reportCalls).toBe(probe.client.reportCalls);
      clock.pass(1_100);

      const before = reportCalls();
      // Were the view to hold on for the refresh, its own timer of HOLD_MS would be set after this one.
      const HOLD_MS = 3_000;
      const started = performance.now();
      let timer: NodeJS.Timeout | undefined;
      const viewing = shareView(g, report, HOLD_MS);
      first = await Promise.race([viewing.then(() => "view" as const), new Promise<"timer">((r) => (timer = setTimeout(() => r("timer"), HOLD_MS)))]);
      clearTimeout(timer);
      const stale = await viewing;
      console.log(`stale share view answered in ${(performance.now() - started).toFixed(0)} ms (refresh queued behind the quota)`);
      expect(statuses(stale.answer).every((s) => s === "done")).toBe(true);
      expect(staleness(stale.answer).every((s) => s === true)).toBe(true);
      expect(models(stale.answer)).toEqual(models(firstRun));
      expect(reportCalls()).toBe(before);

      // The refresh it started: its jobs, found by the queries its plan shows, waited for through a
      // handle of the test's own (job ids are not handles).
      const running = stale.answer.plan.filter((s) => g.inFlight(s.op, s.query) !== null);
      expect(running.length).toBeGreaterThan(0);
      const handles = running.flatMap((s) => {
        const out = g.submit(s.op, s.query, "warm test");
        return "job" in out ? [out.job.id] : [];
      });
      // Past the quota's window: the queue's timer, which fires at the window's end, starts the refresh.
      clock.pass(6_500);
      await Promise.all(handles.map((h) => g.wait(h)));
      const fresh = await shareView(g);
      expect(statuses(fresh.answer).every((s) => s === "done")).toBe(true);
      expect(staleness(fresh.answer).every((s) => s === false)).toBe(true);
    });

    // A visitor with a stale answer for every tile is not held while the refresh is queued.
    it("answers at once when every tile has a stale answer", () => {
      expect(first, "the stale view answered before a timer as long as its hold, set beside it").toBe("view");
    });
  });

  it("as a snapshot, draws every tile from its frozen answers with no service call, as the live dashboard was", async () => {
    const links = shareLinksRepo(store);
    const { link } = await createShareLink(store, gateway, TZ, analyst, report, { mode: "snapshot" });
    const live = await runToEnd(gateway, state); // from the cache the snapshot was taken from
    const stored = (await links.get(link.id))!.snapshot;
    expect(stored?.dashboard?.today).toBe(today);
    expect(stored?.dashboard?.answers.length).toBeGreaterThan(0);

    // A gateway that has nothing cached: the snapshot needs none of it.
    const empty = gatewayFor(svc);
    const before = reportCalls();
    const view = await sharedDashboardView(empty, report, { owner: SHARE_OWNER, sharedBy: analyst.email, timeZone: TZ, preset: null, allowed: [], snapshot: stored });
    expect(reportCalls()).toBe(before);
    expect(empty.client.reportCalls).toBe(0);
    expect(view.mode).toBe("snapshot");
    expect(statuses(view.answer).every((s) => s === "done")).toBe(true);
    expect(models(view.answer)).toEqual(models(live));
  });
});

describe("what signed-in people opened, shared or not", () => {
  /** Noon of the test's day: the window is counted from it, so a run across midnight counts as one day. */
  const noon = () => new Date(`${today}T12:00:00Z`);
  /** Questions as the warmer lists a look's: fetched once for the day, not kept fresh. */
  const once = (qs: { op: Operation; query: ReportQuery }[]) => qs.map((q) => ({ ...q, once: true }));

  afterAll(async () => {
    await store.exec("DELETE FROM recent_looks");
  });

  it("is fetched for today in the background, so the next look at the dashboard and the Monitor costs no call", async () => {
    // A dashboard nobody shared, over other days than the shared one, and the Monitor: each noted as
    // its page notes it. The gateway has nothing yet, as on the morning of a new day.
    const lastWeek: DashboardState = { ...starterDashboard(), range: { preset: "last7" } };
    await noteLook(store, WARMING, analyst.id, { kind: "dashboard", params: serializeDashboard(lastWeek) });
    await noteLook(store, WARMING, analyst.id, { kind: "monitor", params: "" });
    const g = gatewayFor(svc);
    const dashboard = dashboardQueries(g, lastWeek, today);
    const monitor = monitorMonths(today).map((m) => ({ op: "orders" as const, query: monitorQuery(m) }));
    const warm = await warmQueries(store, g, TZ, 7, noon());
    expect(warm).toEqual(expect.arrayContaining(once([...dashboard, ...monitor])));
    // The top BINs and the Monitor's months are breakdowns kept whole, not by day: warming is what
    // makes them ready.
    expect(dashboard.some((q) => q.query.group_by?.includes("bin") && !q.query.group_by.includes("date"))).toBe(true);

    const warmer = new Warmer(g, () => warmQueries(store, g, TZ, 7, noon()), { intervalMs: 60_000, refreshBeforeSeconds: 0 });
    for (let tick = 0; tick < 20; tick++) {
      const submitted = await warmer.tick();
      if (submitted.length === 0) break;
      await Promise.all(submitted.map((s) => g.wait(s.job.id)));
    }
    expect([...dashboard, ...monitor].filter((q) => g.lookup(q.op, q.query) === null)).toEqual([]);

    const before = reportCalls();
    const answer = await runDashboard(g, lastWeek, today, { owner: analyst.id, waitMs: 0 });
    expect(statuses(answer).every((s) => s === "done")).toBe(true);
    expect(answer.plannedCalls).toBe(0);
    expect(reportCalls()).toBe(before);
  });

  it("names a saved report's questions for today: its own, its comparison's and the comparison's coverage", async () => {
    const params = "op=orders&range=last7&cmp=prev&by=gateway_alias&m=revenue,attempts";
    await noteLook(store, WARMING, analyst.id, { kind: "explore", params });
    const { op, query, comparison } = reportQuery({ page: "explore", params }, TZ);
    expect(comparison).not.toBeNull();
    const coverage = coverageRequest(op, comparison!);
    const expected = [{ op, query }, { op, query: comparison! }, ...(coverage ? [{ op, query: coverage }] : [])];
    expect(expected.length).toBe(3);
    expect(await warmQueries(store, gateway, TZ, 7, noon())).toEqual(expect.arrayContaining(once(expected)));
  });

  it("leaves out a look whose settings this code cannot apply exactly, and warms the others", async () => {
    const lines: string[] = [];
    // Written as an older version might have: not through noteLook, which refuses them.
    await recentLooksRepo(store).note(analyst.id, { kind: "explore", params: "op=orders&range=last14&by=date&m=initial_attempt" }, noon());
    await noteLook(store, WARMING, analyst.id, { kind: "monitor", params: "" });
    const warm = await warmQueries(store, gateway, TZ, 7, noon(), (line) => lines.push(line));
    expect(warm.filter((q) => q.query.metrics?.includes("initial_attempt"))).toEqual([]);
    expect(warm).toEqual(expect.arrayContaining(once(monitorMonths(today).map((m) => ({ op: "orders" as const, query: monitorQuery(m) })))));
    expect(lines).toEqual([]);
  });

  it("leaves out looks older than the window", async () => {
    const params = "range=last90&t=kpi.1|op=orders%26range=last90%26by=date%26m=refund_amount|";
    await recentLooksRepo(store).note(analyst.id, { kind: "dashboard", params }, new Date(noon().getTime() - 8 * DAY_MS));
    const queries = once(dashboardQueries(gateway, parseDashboard(params, today).state, today));
    expect(queries.length).toBeGreaterThan(0);
    expect(await warmQueries(store, gateway, TZ, 7, noon())).not.toEqual(expect.arrayContaining([queries[0]]));
    expect(await warmQueries(store, gateway, TZ, 9, noon())).toEqual(expect.arrayContaining(queries));
  });

  it("names every scheduled report's and alert rule's questions for today, once, and none of a paused one", async () => {
    const monthly = await saveDashboard("Mailed monthly", "range=last30&t=kpi.1|op=orders%26range=last30%26by=date%26m=cb_amount|");
    const pausedReport = await saveDashboard("Mailed, paused", "range=yesterday&t=kpi.1|op=orders%26range=yesterday%26by=date%26m=refund_count|");
    const mailed = (reportId: string, paused: boolean) =>
      subscriptionsRepo(store).create({ ownerId: analyst.id, reportId, schedule: { every: "day", at: "08:00" }, recipients: { users: [], emails: [] }, paused, shareLinkId: null, shareTokenSealed: null, formats: ["csv"] });
    await mailed(monthly.id, false);
    await mailed(pausedReport.id, true);
    const perMid = AlertDefinition.parse({
      target: { kind: "measure", measure: "approval_rate" },
      condition: { kind: "change", direction: "either", by: "percent", amount: 10 },
      group_by: "gateway_id",
      filters: {},
      window: "last7",
    });
    const pausedRule = AlertDefinition.parse({ target: { kind: "measure", measure: "refund_rate" }, condition: { kind: "above", value: 0.2 }, group_by: "card_brand", filters: {}, window: "yesterday" });
    const rule = (definition: AlertDefinition, paused: boolean) =>
      alertsRepo(store).create({ ownerId: analyst.id, name: "Warm test rule", definition, schedule: { every: "hour" }, recipients: { users: [], emails: [] }, cooldownMinutes: 60, paused });
    await rule(perMid, false);
    await rule(pausedRule, true);
    try {
      const warm = await warmQueries(store, gateway, TZ, 7, noon());
      const requests = alertRequests(perMid, today);
      // A change per MID: its window, the previous one and that one's coverage, a breakdown kept whole.
      const alert = [requests.main, requests.previous!, requests.coverage!].map((query) => ({ op: "orders" as const, query }));
      expect(requests.main.group_by).toEqual(["gateway_id", "gateway_alias"]);
      expect(warm).toEqual(expect.arrayContaining(once([...dashboardQueries(gateway, sharedDashboardState(monthly, null), today), ...alert])));
      const pausedQueries = [
        ...dashboardQueries(gateway, sharedDashboardState(pausedReport, null), today),
        { op: "orders" as const, query: alertRequests(pausedRule, today).main },
      ];
      for (const q of pausedQueries) expect(warm.map((w) => ({ op: w.op, query: w.query })), "a paused one's question").not.toContainEqual(q);
    } finally {
      await store.exec("DELETE FROM subscriptions; DELETE FROM alert_rules");
    }
  });
});
