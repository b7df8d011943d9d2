// Dashboards benchmark: `npm run bench:dashboards` after `npx next build`.
// A finance team's six-tile dashboard over the last 30 days compared with the previous period: a revenue
// KPI, a revenue and approvals trend by date, a breakdown by gateway, a month × card brand pivot
// (pinned to 90 days by month, as in the starter), the top BINs and a cohort grid. Saved, and opened
// as the dashboards list links it (/dashboards/<id>), in headless Chromium.
//  1. Cold (nothing cached, the quota free): upstream calls spent, read from the gateway's own
//     counter (GET /api/upstream/status → upstream_report_calls) before and after, and the time from
//     navigation start to every tile painted. Against it, one query per tile request: each tile's
//     request(s) submitted on their own, all at once, through the report routes of a second fresh
//     stack, counted the same way (and the planner's own naiveCalls estimate, for reference).
//  2. Warm: the same dashboard opened again 15 times (the first 2 warm-ups): upstream calls and the
//     time from navigation start to every tile painted.
// "Painted" is measured in the page: an init script looks at every animation frame, from the new
// document's start, for six <article> tiles with no role="status" inside and each one's body drawn
// (the KPI's value, the chart's SVG, the table's, pivot's or grid's rows); the time is
// performance.now() (milliseconds since the navigation started) at the frame after that.
import { loadavg } from "node:os";
import { chromium, type BrowserContext } from "@playwright/test";
import { chromiumPath } from "../lib/core/pdf/chromium";
import { OPERATION_TABLE } from "../lib/contract/operations";
import { planQueries } from "../lib/features/dashboards/plan";
import { canonicalQuery } from "../lib/core/upstream/records";
import { parseDashboard, parseTile, serializeDashboard, type DashboardState } from "@/lib/report/state/dashboard";
import { effectiveTile, tileRequests } from "@/lib/features/dashboards/tile-spec";
import type { DashboardAnswer } from "../lib/features/dashboards/answer";
import { machine, median, percentile } from "./lib";
import { startStack, type Stack } from "./stack";

const COLD_DIR = ".bench-dashboards";
const NAIVE_DIR = ".bench-dashboards/naive"; // made after the cold stack has stopped
// Ports of our own: the e2e suite uses 4100/3100 and bench:ui 4800/3800.
const PORTS = { cold: [4830, 3830], naive: [4831, 3831] } as const;
const WARM_RUNS = 15;
const WARM_UPS = 2;
const COLD_CALL_TARGET = 3;
const WARM_MS_TARGET = 500;

/** That dashboard, in the URL form the page and the API take. */
function issueDashboard(): DashboardState {
  const raw = [
    "kpi.1|op=orders&range=last30&by=date&m=revenue|Revenue",
    "chart.4|op=orders&range=last30&by=date&m=revenue,approvals&chart=line|",
    "table.2|op=orders&range=last30&by=gateway_alias&m=revenue,attempts,approvals&kpi=approval_rate&sort=-revenue|",
    "pivot.2.rg|op=orders&range=last90&by=date,card_brand&grain=month&m=revenue&table=pivot|",
    "table.2|op=orders&range=last30&by=bin&m=revenue,attempts&kpi=approval_rate&sort=-revenue|Top BINs by revenue",
    "cohort.4|range=last30|",
  ];
  const tiles = raw.map((t, i) => {
    const parsed = parseTile(t, i);
    if (!parsed.tile || parsed.problems.length > 0) throw new Error(`tile ${i + 1}: ${JSON.stringify(parsed.problems)}`);
    return parsed.tile;
  });
  return { range: { preset: "last30" }, grain: "day", compare: { kind: "previous" }, filters: {}, tiles };
}

// A string, not a function: tsx would wrap a function with helpers the page does not have.
const PAINT_WATCH = `(() => {
  const bodyDrawn = {
    kpi: '[data-testid="kpi-value"]',
    chart: 'svg[data-chart] polyline, svg[data-chart] rect',
    table: 'table tbody tr',
    pivot: 'table tbody tr',
    cohort: 'table tbody tr',
  };
  const drawnAt = (window.__tileDrawn = {});
  const check = () => {
    const tiles = [...document.querySelectorAll('article[data-tile]')];
    for (const a of tiles) {
      const key = a.dataset.tile + ' ' + a.dataset.kind;
      if (!(key in drawnAt) && a.dataset.status === 'done' && a.querySelector(bodyDrawn[a.dataset.kind] || 'none')) drawnAt[key] = performance.now();
    }
    const broken = tiles.find((a) => a.dataset.status === 'failed' || a.dataset.status === 'conflict');
    if (broken) { window.__dashBroken = broken.innerText; return; }
    const drawn = tiles.length === ${issueDashboard().tiles.length} && tiles.every((a) =>
      a.dataset.status === 'done' && !a.querySelector('[role="status"]') && a.querySelector(bodyDrawn[a.dataset.kind] || 'none'));
    if (drawn) requestAnimationFrame(() => { window.__dashPainted = performance.now(); });
    else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})()`;

async function upstream(stack: Stack): Promise<{ upstream_report_calls: number; limit_per_window: number; window_seconds: number; queue_length: number; jobs_running: number }> {
  const res = await fetch(`${stack.env.dashboardUrl}/api/upstream/status`, { headers: { cookie: stack.cookie } });
  if (!res.ok) throw new Error(`upstream status: ${res.status}`);
  return (await res.json()) as Awaited<ReturnType<typeof upstream>>;
}

/** Waits until no job is queued or running, so the counter has every call a look started. */
async function settled(stack: Stack): Promise<number> {
  for (let i = 0; i < 600; i++) {
    const s = await upstream(stack);
    if (s.queue_length === 0 && s.jobs_running === 0) return s.upstream_report_calls;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the gateway never settled");
}

async function newContext(stack: Stack): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--no-first-run"],
  });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.addCookies(
    stack.cookie.split("; ").map((c) => {
      const [name, ...rest] = c.split("=");
      return { name: name!, value: rest.join("="), url: stack.env.dashboardUrl };
    }),
  );
  await context.addInitScript(PAINT_WATCH);
  return { context, close: () => browser.close() };
}

interface Look {
  /** In the page: performance.now() at the frame after every tile was drawn (ms since navigation start). */
  pageMs: number;
  /** Around page.goto and the wait, from this process (includes the browser protocol's overhead). */
  wallMs: number;
  calls: number;
  /** In the page, ms since navigation start: the HTML's last byte, DOMContentLoaded, and each look at the run route (request sent → answer's last byte). */
  htmlEnd: number;
  domReady: number;
  runs: [number, number][];
  /** "<place> <kind>" → when that tile's body was first seen drawn (ms since navigation start). */
  tiles: Record<string, number>;
  /** When the last script the page loaded had arrived (the chart's chunk is loaded on demand). */
  lastScript: number;
}

// Read in the page once the tiles are painted (a string: page.evaluate is not subject to the CSP).
const TIMINGS = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const runs = performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/dashboards/run')).map((e) => [e.startTime, e.responseEnd]);
  const scripts = performance.getEntriesByType('resource').filter((e) => e.initiatorType === 'script' || /\\.js(\\?|$)/.test(e.name));
  const lastScript = scripts.reduce((t, e) => Math.max(t, e.responseEnd), 0);
  return { htmlEnd: nav ? nav.responseEnd : NaN, domReady: nav ? nav.domContentLoadedEventEnd : NaN, runs, tiles: window.__tileDrawn, lastScript };
})()`;

/** Part 1 and 2: the saved dashboard from cold, then warm. */
async function coldAndWarm(params: string) {
  const stack = await startStack(COLD_DIR, PORTS.cold[0], PORTS.cold[1]);
  try {
    const saved = await fetch(`${stack.env.dashboardUrl}/api/saved-reports`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: stack.cookie },
      body: JSON.stringify({ name: "Dashboards benchmark", page: "dashboard", params }),
    });
    if (saved.status !== 201) throw new Error(`saving the dashboard: ${saved.status} ${await saved.text()}`);
    const { report } = (await saved.json()) as { report: { id: string; params: string } };
    const url = `${stack.env.dashboardUrl}/dashboards/${report.id}`;
    const quota = await upstream(stack);

    const { context, close } = await newContext(stack);
    try {
      const page = await context.newPage();
      const looks: DashboardAnswer[] = [];
      page.on("response", (r) => {
        if (r.url().includes("/api/dashboards/run") && r.ok()) void r.json().then((a: DashboardAnswer) => looks.push(a), () => undefined);
      });
      const open = async (): Promise<Look> => {
        const before = await settled(stack);
        const t0 = Date.now();
        await page.goto(url, { waitUntil: "commit" });
        // A function, not a string: the page's CSP forbids eval, which a string predicate needs.
        await page.waitForFunction(
          () => {
            const w = window as unknown as { __dashPainted?: number; __dashBroken?: string };
            return w.__dashPainted !== undefined || w.__dashBroken !== undefined;
          },
          null,
          { timeout: 180_000, polling: "raf" },
        );
        const wallMs = Date.now() - t0;
        const broken = (await page.evaluate("window.__dashBroken")) as string | undefined;
        if (broken) throw new Error(`a tile failed: ${broken}`);
        const pageMs = (await page.evaluate("window.__dashPainted")) as number;
        const timings = (await page.evaluate(TIMINGS)) as Pick<Look, "htmlEnd" | "domReady" | "runs" | "tiles" | "lastScript">;
        return { pageMs, wallMs, calls: (await settled(stack)) - before, ...timings };
      };
      const cold = await open();
      const first = looks[0];
      const warm: Look[] = [];
      for (let i = 0; i < WARM_RUNS; i++) warm.push(await open());
      return { cold, first, warm, quota, today: first?.today ?? stack.env.endDate };
    } finally {
      await close();
    }
  } finally {
    stack.stop();
  }
}

interface NaiveRequest {
  tile: number;
  part: "main" | "comparison";
  path: string;
  body: unknown;
}

/** Every tile's request(s): its own and, with a comparison, the same over the compared days. */
function tileRequestList(state: DashboardState, today: string) {
  return state.tiles.flatMap((tile, i) => {
    const r = tileRequests(effectiveTile(state, tile), today);
    if (!r) throw new Error(`tile ${i + 1} cannot run`);
    return ([["main", r.main], ["comparison", r.comparison]] as const).flatMap(([part, spec]) => (spec ? [{ tile: i + 1, part, spec }] : []));
  });
}

/**
 * What the planner makes of those requests with nothing cached (its estimate; the gateway's default
 * page cap of 50), for the report only: the calls counted are the gateway's own.
 */
function coldPlan(state: DashboardState, today: string) {
  const requests = tileRequestList(state, today).map((r) => ({ key: `t${r.tile}:${r.part}`, op: r.spec.op, query: canonicalQuery(r.spec.op, r.spec.request) }));
  return planQueries(requests, { pageCap: 50 });
}

/** One query per tile request, all submitted at once on a fresh stack, so none answers another. */
async function naive(state: DashboardState, today: string) {
  const requests: NaiveRequest[] = tileRequestList(state, today).map((r) => ({
    tile: r.tile,
    part: r.part,
    path: OPERATION_TABLE[r.spec.op].dashboardPath,
    body: r.spec.request,
  }));
  const stack = await startStack(NAIVE_DIR, PORTS.naive[0], PORTS.naive[1]);
  try {
    const before = await settled(stack);
    const answers = await Promise.all(
      requests.map(async (r) => {
        const res = await fetch(`${stack.env.dashboardUrl}${r.path}?wait=25000`, {
          method: "POST",
          headers: { "content-type": "application/json", cookie: stack.cookie },
          body: JSON.stringify(r.body),
        });
        if (res.status !== 200) throw new Error(`tile ${r.tile} ${r.part}: ${res.status} ${await res.text()}`);
        const job = (await res.json()) as { status: { state: string; result?: { source: string; upstream_calls: number } } };
        if (job.status.state !== "done" || !job.status.result) throw new Error(`tile ${r.tile} ${r.part}: ${JSON.stringify(job.status)}`);
        return { ...r, source: job.status.result.source, calls: job.status.result.upstream_calls };
      }),
    );
    return { answers, calls: (await settled(stack)) - before };
  } finally {
    stack.stop();
  }
}

const verdict = (ok: boolean) => (ok ? "met" : "**not met**");

async function main(): Promise<void> {
  const state = issueDashboard();
  const params = serializeDashboard(state);
  const check = parseDashboard(params, new Date().toISOString().slice(0, 10));
  if (check.problems.length > 0) throw new Error(`the dashboard does not parse: ${JSON.stringify(check.problems)}`);

  const load = loadavg()[0]!;
  const { cold, first, warm, quota, today } = await coldAndWarm(params);
  const naiveRun = await naive(state, today);
  const plan = coldPlan(state, today);
  const estimated = plan.queries.reduce((n, q) => n + q.estimatedCalls, 0);

  const warmSamples = warm.slice(WARM_UPS);
  const warmPage = warmSamples.map((l) => l.pageMs);
  const warmWall = warmSamples.map((l) => l.wallMs);
  const warmCalls = warm.reduce((s, l) => s + l.calls, 0);
  const notFresh = naiveRun.answers.filter((a) => a.source !== "upstream");
  const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
  const med = (pick: (l: Look) => number) => fmt(median(warmSamples.map(pick)));

  console.log(`### Dashboards (${new Date().toISOString().slice(0, 10)})

Command: \`npx next build && npm run bench:dashboards\`. Machine: ${machine()}. Production build, \`next start\`, headless Chromium.
Dashboard: ${params}
Upstream quota of the stack: ${quota.limit_per_window} calls per ${quota.window_seconds} s (bench/stack.ts), free at the start. Load average at the start: ${load.toFixed(2)}.

| measure | result | target |
|---|---:|---:|
| cold: upstream calls | ${cold.calls} | ≤ ${COLD_CALL_TARGET} (${verdict(cold.calls <= COLD_CALL_TARGET)}) |
| cold: one query per tile request, measured (${naiveRun.answers.length} requests at once, fresh stack) | ${naiveRun.calls} | |
| cold: the planner's estimates, planned / one query per request (naiveCalls of the first answer) | ${estimated} / ${first?.naiveCalls ?? "?"} | |
| cold: navigation → every tile painted (in page / around goto) | ${fmt(cold.pageMs)} / ${fmt(cold.wallMs)} | |
| cold: looks at /api/dashboards/run until painted | ${cold.runs.length} | |
| warm: upstream calls over ${warm.length} opens | ${warmCalls} | 0 (${verdict(warmCalls === 0)}) |
| warm: navigation → every tile painted, in page (median / p95 of ${warmPage.length}) | ${fmt(median(warmPage))} / ${fmt(percentile(warmPage, 95))} | ≤ ${WARM_MS_TARGET} ms median (${verdict(median(warmPage) <= WARM_MS_TARGET)}) |
| warm: the same around page.goto + wait (median / p95) | ${fmt(median(warmWall))} / ${fmt(percentile(warmWall, 95))} | |

Cold, where the time goes (in page, ms since navigation start): HTML received ${fmt(cold.htmlEnd)}, DOMContentLoaded ${fmt(cold.domReady)}, looks at the run route (asked → answered) ${cold.runs.map(([a, b]) => `${a.toFixed(0)} → ${b.toFixed(0)}`).join(", ")}, the last script arrived ${fmt(cold.lastScript)}, every tile painted ${fmt(cold.pageMs)}. Each tile's body first seen drawn: ${Object.entries(cold.tiles)
    .map(([k, v]) => `${k} ${fmt(v)}`)
    .join(", ")}.

Warm, where the time goes (in page, medians, ms since navigation start): HTML received ${med((l) => l.htmlEnd)}, DOMContentLoaded ${med((l) => l.domReady)}, looks at the run route ${warmSamples.filter((l) => l.runs.length > 0).length} of ${warmSamples.length} opens (the HTML holds the cached tiles), the last script arrived ${med((l) => l.lastScript)}, every tile painted ${med((l) => l.pageMs)}. Each tile's body first seen drawn: ${Object.keys(warmSamples[0]?.tiles ?? {})
    .map((k) => `${k} ${med((l) => l.tiles[k] ?? NaN)}`)
    .join(", ")}.

The plan from cold (planQueries with nothing cached; estimated calls):
${plan.queries.map((q, i) => `${i + 1}. ${q.op} ${q.query.start_date}..${q.query.end_date} by ${q.query.group_by?.join(",") || "—"} [${q.query.metrics?.join(",") ?? ""}]${q.query.filters ? ` filters ${JSON.stringify(q.query.filters)}` : ""}: ~${q.estimatedRows} rows, ${q.estimatedCalls} call(s), serves ${q.serves.join(" ")}`).join("\n")}

One query per tile request (source and calls of each):
${naiveRun.answers.map((a) => `- tile ${a.tile} ${a.part}: ${a.source}, ${a.calls} call(s)`).join("\n")}${notFresh.length > 0 ? `\nNOTE: ${notFresh.length} request(s) were answered from another's answer, so the measured count understates one-per-request.` : ""}

Warm samples (in page, ms): ${warmPage.map((v) => v.toFixed(0)).join(", ")}
`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
