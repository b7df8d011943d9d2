// Kept days benchmark: `npm run bench:days`.
// The starter dashboard, a year-to-date dashboard and the starter switched to year to date, run through the dashboard's own code
// (lib/features/dashboards/run.ts, the gateway, the quota queue) against the real service at the contract's
// 5 reporting calls per window, as a dashboard process would on four occasions:
//   cold        nothing kept;
//   restarted   a new process (empty memory) opening it again the same day;
//   next day    a new process the next day (the store's clock a day on);
//   next day, warmed  a new process the day after, whose background warmer (lib/core/upstream/warmer.ts,
//               given the dashboard's questions as lib/features/warming/warm.ts names a recent look's)
//               ran at idle quota before the look: its calls are counted apart, as "warmer's calls".
// Before: the gateway without the store (what a restart keeps: nothing). After: as the dashboard
// is wired, with the day store and whole answers kept in a PGlite store. Upstream calls are counted at the service; the wall time of each open is from the
// first look to every tile done. The window is 10 s unless BENCH_WINDOW_S says otherwise (60:
// the contract's 5 calls a minute): a run then takes minutes, not half an hour; calls are what the
// quota costs, and the times scale with the window.
// Also: the store's size per million attempts kept, and its growth per day of data.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addDays } from "../lib/contract/dates";
import { openStore } from "../lib/core/store/open";
import { dashboardQueries, runDashboard } from "../lib/features/dashboards/run";
import { parseDashboard, starterDashboard, type DashboardState } from "@/lib/report/state/dashboard";
import type { Store } from "../lib/core/store/sql";
import { DayStore } from "../lib/core/upstream/day-store";
import { PgCache } from "../lib/core/upstream/pg-cache";
import { Warmer } from "../lib/core/upstream/warmer";
import { reportCalls, startTestService, type TestService } from "../service/testing/harness";
import { gatewayFor } from "../service/testing/test-gateway";
import { machine, median } from "./lib";

const DAYS = 400;
const ORDERS_PER_DAY = 200;
const END = new Date().toISOString().slice(0, 10);
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 10);
const REPS = Number(process.env.BENCH_REPS ?? 3);


const YTD = new URLSearchParams([
  ["range", "ytd"],
  ["t", "kpi.1|op=orders&range=ytd&by=date&m=revenue|Revenue"],
  ["t", "kpi.1|op=orders&range=ytd&by=date&m=approvals|Approvals"],
  ["t", "chart.4|op=orders&range=ytd&by=date&m=revenue,approvals&chart=line|"],
  ["t", "pivot.2.rg|op=orders&range=ytd&by=date,card_brand&grain=month&m=revenue&table=pivot|Brands by month"],
]).toString();

const dashboards: [string, () => DashboardState][] = [
  ["starter dashboard", () => starterDashboard()],
  ["year to date", () => parseDashboard(YTD, END).state],
  // The case people waited longest on: the starter dashboard switched to "Year to date".
  ["starter dashboard, year to date", () => ({ ...starterDashboard(), range: { preset: "ytd" } })],
];

interface Open {
  /** Calls the warmer made before the look (0 when it did not run). */
  warmCalls: number;
  calls: number;
  predicted: number;
  ms: number;
}

async function openDashboard(svc: TestService, state: DashboardState, days: DayStore | null, store: Store | null, today: string, warm: boolean): Promise<Open> {
  // As the dashboard process is wired (lib/core/upstream/index.ts): whole answers in the store beside the days.
  const g = gatewayFor(svc, { reportRateLimit: 5, rateWindowSeconds: WINDOW_S }, days && store ? { days, cache: new PgCache({ db: store, maxBytes: 256 * 1024 * 1024 }) } : {});
  let warmCalls = 0;
  if (warm) {
    const atStart = reportCalls(svc);
    const warmer = new Warmer(g, async () => dashboardQueries(g, state, today), { intervalMs: 60_000, refreshBeforeSeconds: 60 });
    for (let tick = 0; tick < 100; tick++) {
      const submitted = await warmer.tick();
      if (submitted.length === 0) break;
      await Promise.all(submitted.map((s) => g.wait(s.job.id)));
    }
    warmCalls = reportCalls(svc) - atStart;
    await new Promise((r) => setTimeout(r, WINDOW_S * 1000)); // the look finds the quota as the night left it
  }
  const before = reportCalls(svc);
  const t0 = performance.now();
  const first = await runDashboard(g, state, today, { owner: "bench", waitMs: 0 });
  let last = first;
  for (let looks = 0; looks < 500 && last.tiles.some((t) => t.outcome.status === "pending"); looks++) {
    last = await runDashboard(g, state, today, { owner: "bench", waitMs: 5_000 });
  }
  const failed = last.tiles.find((t) => t.outcome.status !== "done");
  if (failed) throw new Error(`${failed.title}: ${JSON.stringify(failed.outcome).slice(0, 300)}`);
  return { warmCalls, calls: reportCalls(svc) - before, predicted: first.plan.reduce((n, s) => n + s.plannedCalls, 0), ms: performance.now() - t0 };
}

async function main() {
  const svc = await startTestService({
    data: { days: DAYS, ordersPerDay: ORDERS_PER_DAY, seed: 7, endDate: END },
    env: { REPORT_RATE_LIMIT: "5", RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_S), TOKEN_RATE_LIMIT: "10000", TOKEN_ADDRESS_RATE_LIMIT: "10000" },
  });
  const rows: string[] = [];
  const sizes: string[] = [];
  try {
    for (const [name, state] of dashboards) {
      const result: Record<string, Record<string, Open[]>> = { before: {}, after: {} };
      let bytes = 0;
      let keptDays = 0;
      let span: { first: string; last: string } | null = null;
      for (let rep = 0; rep < REPS; rep++) {
        for (const variant of ["before", "after"] as const) {
          const dir = mkdtempSync(join(tmpdir(), "bench-days-"));
          const store = variant === "after" ? await openStore({ kind: "pglite", dir }, { owner: "bench days" }) : null;
          let now = Date.now();
          const days = store ? new DayStore(store, { timeZone: "UTC", ttlTodaySeconds: 300, ttlPastSeconds: 86_400, maxBytes: 1024 * 1024 * 1024 }, () => now) : null;
          // Each occasion waits out the window first, so no run inherits the last one's calls.
          const occasion = async (label: string, today: string, warm = false) => {
            await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
            ((result[variant]![label] ??= []) as Open[]).push(await openDashboard(svc, state(), days, store, today, warm));
          };
          await occasion("cold", END);
          await occasion("restarted", END);
          now += 86_400_000;
          await occasion("next day", addDays(END, 1));
          now += 86_400_000;
          await occasion("next day, warmed", addDays(END, 2), true);
          if (store && days) {
            const s = await days.stats();
            bytes = s.bytes;
            keptDays = s.days;
            const [r] = await store.query<{ first: string; last: string }>("SELECT min(day) AS first, max(day) AS last FROM report_days WHERE records::text <> '[]'");
            span = r ?? null;
            await store.close();
          }
          rmSync(dir, { recursive: true, force: true });
        }
      }
      for (const label of ["cold", "restarted", "next day", "next day, warmed"]) {
        const b = result.before![label]!;
        const a = result.after![label]!;
        const mb = median(b.map((o) => o.ms));
        const ma = median(a.map((o) => o.ms));
        const warmer = (os: Open[]) => median(os.map((o) => o.warmCalls));
        rows.push(
          `| ${name} | ${label} | ${median(b.map((o) => o.calls))} | ${median(a.map((o) => o.calls))} (predicted ${median(a.map((o) => o.predicted))}) | ${warmer(b)} / ${warmer(a)} | ${(mb / 1000).toFixed(1)} s | ${(ma / 1000).toFixed(1)} s | ${ma > 0 ? (mb / ma).toFixed(1) : "∞"}× |`,
        );
      }
      // Attempts in the days kept (the service's own count over their span), for the size per million.
      let attempts = 0;
      if (span) {
        await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
        const g = gatewayFor(svc, { reportRateLimit: 5, rateWindowSeconds: WINDOW_S });
        const out = g.submit("orders", g.parse("orders", { start_date: span.first, end_date: span.last, group_by: [], metrics: ["attempts"] }));
        const res = "cached" in out ? out.cached : await g.wait(out.job.id);
        attempts = Number(res.data[0]?.attempts ?? 0);
      }
      const perMillion = attempts > 0 ? `${((bytes / attempts) * 1e6 / 1024 / 1024).toFixed(1)} MiB` : "—";
      sizes.push(`| ${name} | ${keptDays} | ${(bytes / 1024).toFixed(0)} KiB | ${keptDays > 0 ? (bytes / keptDays / 1024).toFixed(2) : "—"} KiB | ${attempts.toLocaleString("en-US")} | ${perMillion} |`);
    }
  } finally {
    await svc.stop();
  }
  console.log(`Machine: ${machine()}. Data: ${DAYS} days × ${ORDERS_PER_DAY} orders a day ending ${END}. Quota: 5 calls per ${WINDOW_S} s. ${REPS} runs, medians.\n`);
  console.log("| dashboard | occasion | calls before | calls after | warmer's calls before / after | time before | time after | before ÷ after |\n|---|---|---|---|---|---|---|---|");
  console.log(rows.join("\n"));
  console.log("\n| dashboard | shape-days kept | store size | per shape-day | attempts in the kept days | per million attempts |\n|---|---|---|---|---|---|");
  console.log(sizes.join("\n"));
}

await main();
