// Dashboard front-end benchmark: `npm run bench:ui` after `npx next build`.
//  1. First-load JavaScript of each page: the script chunks its HTML loads, gzipped, from .next/static
//     (every page users open, the saved and shared ones included, signed in or out as they
//     are opened; each run keeps its sizes in bench/results/ui-sizes.json and prints them beside the last).
//  2. Time from pressing "Run report" on a cached report to its table painted, in Chromium, measured
//     in the page from the click to the frame after the totals row shows that report's numbers.
//  3. The same for a 365-day monthly report compared with the previous period, alternated with the
//     same report a day shorter, and the upstream calls the first costs from cold, read
//     from the gateway's own counter.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "@playwright/test";
import { chromiumPath } from "../lib/core/pdf/chromium";
import type { Page } from "@playwright/test";
import { addDays } from "../lib/contract/dates";
import { encodeTile, newTile } from "@/lib/report/state/dashboard";
import { machine, median, percentile } from "./lib";
import { startStack } from "./stack";

/** Opened signed in (as an admin, who may open every page). */
const PAGES = ["/", "/explore", "/cohorts", "/bin-lookup", "/reports", "/users", "/definitions", "/dashboards", "/dashboards/new", "/monitor", "/alerts", "/inbox"];
/** Last run's sizes (gzipped bytes by page); ignored by git, and outside .bench-ui, which each run starts afresh. */
const SIZES_FILE = "bench/results/ui-sizes.json";

/**
 * The script chunks a page's HTML loads, raw and gzipped bytes: its script tags and script preloads
 * (next/dynamic's for what the server drew). Not the `nomodule` polyfills, which every browser with
 * JavaScript modules skips without downloading them (counted apart, in `legacy`).
 */
function scriptBytes(html: string): { raw: number; gz: number; legacy: number } {
  const legacy = new Set([...html.matchAll(/<script(?=[^>]+noModule)[^>]+src="(\/_next\/static\/[^"]+\.js)"/gi)].map((m) => m[1]!));
  const srcs = new Set([
    ...[...html.matchAll(/<script[^>]+src="(\/_next\/static\/[^"]+\.js)"/g)].map((m) => m[1]!).filter((src) => !legacy.has(src)),
    ...[...html.matchAll(/<link(?=[^>]+rel="preload")(?=[^>]+as="script")[^>]+href="(\/_next\/static\/[^"]+\.js)"/g)].map((m) => m[1]!),
  ]);
  // A chunk's URL is percent-encoded (webpack names a dynamic segment's chunk "…/%5Bid%5D/…"); its file is not.
  const file = (src: string) => `.next${decodeURIComponent(src.replace("/_next", ""))}`;
  const gzipped = (src: string) => gzipSync(readFileSync(file(src)), { level: 9 }).length;
  let raw = 0;
  let gz = 0;
  for (const src of srcs) {
    raw += readFileSync(file(src)).length;
    gz += gzipped(src);
  }
  return { raw, gz, legacy: [...legacy].reduce((t, src) => t + gzipped(src), 0) };
}

/** "183 → 141" against the last run's size of the page, or the size alone on a first run. */
function beside(before: number | undefined, gz: number): string {
  const kb = (n: number) => (n / 1024).toFixed(0);
  return before === undefined ? kb(gz) : `${kb(before)} → ${kb(gz)}`;
}

/** From a click on "Run report" to the frame after the totals row reads `expected`, in ms. */
async function timeRun(page: Page, expected: string): Promise<number> {
  // A string, not a function: tsx would wrap a function with helpers the page does not have.
  return (await page.evaluate(`new Promise((resolve) => {
    const expected = ${JSON.stringify(expected)};
    const t0 = performance.now();
    document.querySelector('form[aria-label="Report settings"] button[type="submit"]').click();
    const check = () => {
      const row = document.querySelector('[aria-label="Totals"]');
      if (row && row.innerText === expected) requestAnimationFrame(() => resolve(performance.now() - t0));
      else requestAnimationFrame(check);
    };
    check();
  })`)) as number;
}

/** Two cached reports A and B alternated `runs` times with `select(i)`; the first two are warm-ups. */
async function alternate(page: Page, select: (toA: boolean) => Promise<void>, aText: string, bText: string, runs = 16): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    await select(i % 2 === 0);
    const ms = await timeRun(page, i % 2 === 0 ? aText : bText);
    if (i > 1) samples.push(ms);
  }
  return samples;
}

async function main(): Promise<void> {
  // An admin, who may open every page (admin ⊇ analyst).
  const { env, cookie, stop } = await startStack(".bench-ui", 4800, 3800, "admin");
  try {
    const base = env.dashboardUrl;
    const sizes: [string, number, number][] = [];
    let legacyGz = 0;
    const measure = async (label: string, path: string, signedIn: boolean) => {
      // A saved or shared report's first view fetches its data and says so; measured once it is in.
      let html = "";
      for (let i = 0; i < 120; i++) {
        html = await (await fetch(`${base}${path}`, { headers: signedIn ? { cookie } : {} })).text();
        if (!html.includes("The data is being fetched from the reporting service")) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      const { raw, gz, legacy } = scriptBytes(html);
      sizes.push([label, raw, gz]);
      legacyGz = Math.max(legacyGz, legacy);
    };
    // These fetch no report on the server: the timings below still start from cold.
    for (const path of PAGES) await measure(path, path, true);
    await measure("/login (signed out)", "/login", false);

    const browser = await chromium.launch({
      executablePath: chromiumPath(),
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--no-first-run"],
    });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await context.addCookies(
      cookie.split("; ").map((c) => {
        const [name, ...rest] = c.split("=");
        return { name: name!, value: rest.join("="), url: env.dashboardUrl };
      }),
    );
    const page = await context.newPage();
    // Report A (30 days) and report B (its last 7 days): both fetched once, then alternated with the
    // form's own Period select and "Run report" button, each time answered from cache.
    await page.goto(`${env.dashboardUrl}/explore?op=orders&range=last30&by=date,gateway_id&m=attempts,approvals,revenue&kpi=approval_rate`);
    const totals = page.getByRole("row", { name: "Totals" });
    const period = page.getByLabel("Period");
    const run = page.getByRole("button", { name: "Run report" });
    await totals.waitFor();
    const aText = await totals.innerText();
    await period.selectOption("last7");
    await run.click();
    await page.waitForFunction((a) => (document.querySelector('[aria-label="Totals"]') as HTMLElement | null)?.innerText !== a, aText);
    const bText = await totals.innerText();
    const samples = await alternate(page, (toA) => period.selectOption(toA ? "last30" : "last7").then(() => undefined), aText, bText);

    // 365 days by month against the previous 365, from cold (calls counted).
    const calls = async () => ((await (await fetch(`${env.dashboardUrl}/api/upstream/status`, { headers: { cookie } })).json()) as { upstream_report_calls: number }).upstream_report_calls;
    const start = addDays(env.endDate, -364);
    const before = await calls();
    await page.goto(`${env.dashboardUrl}/explore?op=orders&range=${start}..${env.endDate}&by=date&grain=month&cmp=prev&m=attempts,approvals,revenue&kpi=approval_rate`);
    await totals.waitFor();
    const coldCalls = (await calls()) - before;
    const prevText = await totals.innerText();
    // B: the same report a day shorter (ending yesterday), fetched once here; then A and B alternate.
    const to = page.getByLabel("To", { exact: true });
    await to.fill(addDays(env.endDate, -1));
    await run.click();
    await page.waitForFunction((a) => (document.querySelector('[aria-label="Totals"]') as HTMLElement | null)?.innerText !== a, prevText);
    const shorterText = await totals.innerText();
    const yearSamples = await alternate(page, (toA) => to.fill(toA ? env.endDate : addDays(env.endDate, -1)), prevText, shorterText);
    // The Monitor from cold (its four monthly reports fetched) and again from warm cache.
    const monitorRun = async () => {
      const before = await calls();
      const t0 = Date.now();
      await page.goto(`${env.dashboardUrl}/monitor`);
      await page.getByRole("region", { name: /Mastercard Excessive Chargeback Program/ }).first().waitFor();
      return { ms: Date.now() - t0, calls: (await calls()) - before };
    };
    const monitorCold = await monitorRun();
    const monitorWarm = await monitorRun();
    await browser.close();

    // The saved and shared pages (after the timings, whose cold starts these would warm): an Explore
    // report with its chart, a cohort grid, the Monitor and a dashboard with a KPI, a table and a chart tile.
    const post = async <T,>(path: string, body: unknown): Promise<T> => {
      const res = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", cookie }, body: JSON.stringify(body) });
      if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    };
    const saved = async (page: string, params: string) => (await post<{ report: { id: string } }>("/api/saved-reports", { name: `bench:ui ${page}`, page, params })).report.id;
    const shareOf = async (id: string) => new URL((await post<{ url: string }>(`/api/saved-reports/${id}/links`, { mode: "live" })).url).pathname;
    const tiles = ["kpi.1|op=orders&range=last30&by=date&m=revenue|", "table.2|op=orders&range=last30&by=gateway_alias&m=revenue,attempts,approvals&kpi=approval_rate&sort=-revenue|", encodeTile(newTile("chart"))];
    const exploreId = await saved("explore", "op=orders&range=last30&by=date&m=attempts,approvals,revenue&kpi=approval_rate");
    const cohortId = await saved("cohorts", "range=last90&rows=week&cell=retention&cycles=6");
    const monitorId = await saved("monitor", "");
    const dashboardId = await saved("dashboard", `range=last30&${tiles.map((t) => `t=${encodeURIComponent(t)}`).join("&")}`);
    await measure("/reports/[id] (explore)", `/reports/${exploreId}`, true);
    await measure("/dashboards/[id]", `/dashboards/${dashboardId}`, true);
    for (const [kind, id] of [["explore", exploreId], ["cohorts", cohortId], ["monitor", monitorId], ["dashboard", dashboardId]] as const) {
      await measure(`/share/[token] (${kind})`, await shareOf(id), false);
    }
    const previous = existsSync(SIZES_FILE) ? (JSON.parse(readFileSync(SIZES_FILE, "utf8")) as { gzipped: Record<string, number> }).gzipped : {};
    mkdirSync(dirname(SIZES_FILE), { recursive: true });
    writeFileSync(SIZES_FILE, `${JSON.stringify({ measuredAt: new Date().toISOString(), gzipped: Object.fromEntries(sizes.map(([p, , gz]) => [p, gz])) }, null, 2)}\n`);

    const date = new Date().toISOString().slice(0, 10);
    console.log(`### Dashboard pages (${date})

Machine: ${machine()}. Production build (\`next build\`), \`next start\`, headless Chromium.

First-load JavaScript (script chunks and script preloads each page's HTML loads; target ≤ 180 KB gzipped)${Object.keys(previous).length ? `, beside the previous run's (${SIZES_FILE})` : ""}. Not counted: ${(legacyGz / 1024).toFixed(0)} KB of \`nomodule\` polyfills on every page, which browsers with JavaScript modules never download:

| page | raw KB | gzipped KB |
|---|---:|---:|
${sizes.map(([p, raw, gz]) => `| ${p} | ${(raw / 1024).toFixed(0)} | ${beside(previous[p], gz)} |`).join("\n")}

Pressing "Run report" on a cached report to its table painted (Explore, by date and gateway, alternating 30 and 7 days with the Period select; measured in the page from the click to the frame after the totals row shows the report's numbers): median ${median(samples).toFixed(0)} ms, p90 ${percentile(samples, 90).toFixed(0)} ms over ${samples.length} runs (target ≤ 200 ms).

The same for ${start} to ${env.endDate} (365 days) by month, compared with the previous 365 days, alternated with the same report ending a day earlier (each with its comparison, all four answers from cache): median ${median(yearSamples).toFixed(0)} ms, p90 ${percentile(yearSamples, 90).toFixed(0)} ms over ${yearSamples.length} runs (target ≤ 200 ms). From cold, that report cost ${coldCalls} upstream calls: 365 days are 4 calls of at most 100 days for each side, one page each (a call by date returns at most 100 records; a page holds 1,000), so 8 is the minimum.

The Monitor, from navigation to its first programme table painted: from cold ${monitorCold.ms} ms with ${monitorCold.calls} upstream calls (target ≤ 4), then again from warm cache ${monitorWarm.ms} ms with ${monitorWarm.calls} calls (target 0).
`);
  } finally {
    stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
