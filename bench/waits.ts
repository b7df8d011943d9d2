// Wait estimate benchmark: `npm run bench:waits`.
// The trial's dashboards (the starter dashboard, and it switched to last month, last quarter and the
// year to date) and the Monitor, each opened cold on an idle quota (by a dashboard process that has
// made one unrelated call before, so it knows how long a call takes) through the dashboard's own code
// (lib/features/dashboards/run.ts, lib/features/monitor/load.ts, the gateway, the quota queue) against the real
// service at the contract's 5 reporting calls per window. For each: the wait the first look
// estimates (the page's "ready in about …", lib/features/dashboards/wait.ts), the wait it actually took (first
// look to every answer there), their difference, and the calls planned and made. The window is 10 s
// instead of 60 s so that a run takes a couple of minutes: a wait is whole windows plus the calls'
// own time, and the windows scale.
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { runDashboard } from "@/lib/features/dashboards/run";
import { starterDashboard, type DashboardState } from "@/lib/report/state/dashboard";
import { dashboardWait } from "@/lib/features/dashboards/wait";
import { DEFAULT_MONITOR_CONFIG } from "@/lib/features/monitor/definitions";
import { loadMonitor, type MonitorAnswer } from "@/lib/features/monitor/load";
import { reportCalls, startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { machine, median } from "./lib";

const DAYS = 400;
const ORDERS_PER_DAY = 200;
const END = new Date().toISOString().slice(0, 10);
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 10);
const REPS = Number(process.env.BENCH_REPS ?? 3);

interface Measured {
  estimateMs: number;
  /** The wait still to come as the look after the first answer estimated it, and as it was. */
  laterEstimateMs: number | null;
  laterActualMs: number | null;
  actualMs: number;
  planned: number;
  made: number;
}

/** The service's reporting calls it refused for the quota (429), since its log was last cleared. */
const refused = (svc: TestService) => svc.logLines.filter((l) => /"status":429/.test(l) && /"msg":"request"/.test(l)).length;

/** The starter dashboard with its range switched, as a person switches it (its tiles unchanged). */
function starterWith(preset: "lastmonth" | "lastquarter" | "ytd"): () => DashboardState {
  return () => ({ ...starterDashboard(), range: { preset } });
}

async function openDashboard(svc: TestService, g: ReportGateway, state: DashboardState): Promise<Measured> {
  const before = reportCalls(svc);
  const t0 = Date.now();
  const first = await runDashboard(g, state, END, { owner: "bench", waitMs: 0 });
  const ready = dashboardWait(first).readyAt;
  let last = first;
  let later: { at: number; ready: number | null } | null = null;
  for (let looks = 0; looks < 500 && last.tiles.some((t) => t.outcome.status === "pending"); looks++) {
    last = await runDashboard(g, state, END, { owner: "bench", waitMs: 5_000 });
    if (!later && last.tiles.some((t) => t.outcome.status === "pending")) {
      const r = dashboardWait(last).readyAt;
      later = { at: Date.now(), ready: r ? Date.parse(r) : null };
    }
  }
  const end = Date.now();
  const failed = last.tiles.find((t) => t.outcome.status !== "done");
  if (failed) throw new Error(`${failed.title}: ${JSON.stringify(failed.outcome).slice(0, 300)}`);
  return {
    estimateMs: ready ? Math.max(0, Date.parse(ready) - t0) : 0,
    laterEstimateMs: later ? Math.max(0, (later.ready ?? later.at) - later.at) : null,
    laterActualMs: later ? end - later.at : null,
    actualMs: end - t0,
    planned: first.plannedCalls,
    made: reportCalls(svc) - before,
  };
}

/** When the Monitor's last call should start, by the same rule as a dashboard's (the latest month's). */
function monitorReadyAt(a: MonitorAnswer): number | null {
  let at: number | null = null;
  for (const m of a.months) {
    const s = m.status;
    const done = s.state === "queued" ? s.estimated_done : s.state === "fetching" ? (s.estimated_done ?? null) : null;
    if (done !== null) at = Math.max(at ?? 0, Date.parse(done));
  }
  return at;
}

async function openMonitor(svc: TestService, g: ReportGateway): Promise<Measured> {
  const before = reportCalls(svc);
  const t0 = Date.now();
  const first = await loadMonitor(g, DEFAULT_MONITOR_CONFIG, END, "bench", 0);
  const ready = monitorReadyAt(first);
  let last = first;
  let later: { at: number; ready: number | null } | null = null;
  for (let looks = 0; looks < 500 && last.kind === "pending"; looks++) {
    last = await loadMonitor(g, DEFAULT_MONITOR_CONFIG, END, "bench", 5_000);
    if (!later && last.kind === "pending") later = { at: Date.now(), ready: monitorReadyAt(last) };
  }
  const end = Date.now();
  if (last.kind !== "ok") throw new Error(`the Monitor did not finish: ${JSON.stringify(last.months).slice(0, 300)}`);
  return {
    estimateMs: ready ? Math.max(0, ready - t0) : 0,
    laterEstimateMs: later ? Math.max(0, (later.ready ?? later.at) - later.at) : null,
    laterActualMs: later ? end - later.at : null,
    actualMs: end - t0,
    planned: first.plannedCalls,
    made: reportCalls(svc) - before,
  };
}

const cases: [string, (svc: TestService, g: ReportGateway) => Promise<Measured>][] = [
  ["starter dashboard (last 30 days)", (svc, g) => openDashboard(svc, g, starterDashboard())],
  ["starter, last month", (svc, g) => openDashboard(svc, g, starterWith("lastmonth")())],
  ["starter, last quarter", (svc, g) => openDashboard(svc, g, starterWith("lastquarter")())],
  ["starter, year to date", (svc, g) => openDashboard(svc, g, starterWith("ytd")())],
  ["Monitor", (svc, g) => openMonitor(svc, g)],
];

async function main() {
  const svc = await startTestService({
    data: { days: DAYS, ordersPerDay: ORDERS_PER_DAY, seed: 7, endDate: END },
    env: { REPORT_RATE_LIMIT: "5", RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_S), TOKEN_RATE_LIMIT: "10000", TOKEN_ADDRESS_RATE_LIMIT: "10000" },
  });
  const rows: string[] = [];
  try {
    for (const [name, run] of cases) {
      const got: Measured[] = [];
      for (let rep = 0; rep < REPS; rep++) {
        // A dashboard process that has made a call before (so it knows how long one takes), with
        // nothing cached that the case asks; then an idle quota: every call has left the window.
        const g = gatewayFor(svc, { reportRateLimit: 5, rateWindowSeconds: WINDOW_S });
        const warm = g.submit("orders", g.parse("orders", { start_date: "2020-01-01", end_date: "2020-01-01", metrics: ["refund_count"] }), "bench");
        if ("job" in warm) await g.wait(warm.job.id);
        await new Promise((r) => setTimeout(r, WINDOW_S * 1000 + 1000));
        svc.logLines.length = 0;
        got.push(await run(svc, g));
        const r = refused(svc);
        if (r > 0) console.error(`${name}: the service refused ${r} call(s) for the quota`);
      }
      const est = median(got.map((m) => m.estimateMs));
      const act = median(got.map((m) => m.actualMs));
      const laters = got.filter((m) => m.laterEstimateMs !== null);
      const lEst = laters.length ? median(laters.map((m) => m.laterEstimateMs!)) : null;
      const lAct = laters.length ? median(laters.map((m) => m.laterActualMs!)) : null;
      const s = (ms: number | null) => (ms === null ? "—" : `${(ms / 1000).toFixed(1)} s`);
      // A wait under a second is told as "now": a percentage of it says nothing (0.0 s for 0.1 s
      // would read −100 %), so those rows show none.
      const pct = (e: number | null, a: number | null) => (e === null || a === null || a < 1_000 ? "—" : `${e >= a ? "+" : ""}${(((e - a) / a) * 100).toFixed(0)} %`);
      rows.push(
        `| ${name} | ${median(got.map((m) => m.planned))} | ${median(got.map((m) => m.made))} | ${s(est)} | ${s(act)} | ${pct(est, act)} | ${s(lEst)} | ${s(lAct)} | ${pct(lEst, lAct)} |`,
      );
      console.error(rows.at(-1));
    }
  } finally {
    await svc.stop();
  }
  console.log(`Machine: ${machine()}. Data: ${DAYS} days × ${ORDERS_PER_DAY} orders a day ending ${END}. Quota: 5 calls per ${WINDOW_S} s, idle at each start. ${REPS} run(s)${REPS > 1 ? ", medians" : ""}.\n`);
  console.log(
    "| opened cold | calls planned | calls made | estimated wait (first look) | actual wait | off by | estimated wait still to come (after the first answer) | actual | off by |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  console.log(rows.join("\n"));
}

await main();
