// Dashboard front-end benchmark (issue 6): `npm run bench:ui` after `npx next build`.
//  1. First-load JavaScript of each page: the script chunks its HTML loads, gzipped, from .next/static.
//  2. Time from pressing "Run report" on a cached report to its table painted, in Chromium, measured
//     in the page from the click to the frame after the totals row shows that report's numbers.
//  3. The same for a 365-day monthly report compared with the previous period, alternated with the
//     same report a day shorter (issue 16), and the upstream calls the first costs from cold, read
//     from the gateway's own counter.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { chromium } from "@playwright/test";
import type { Page } from "@playwright/test";
import { addDays } from "../lib/contract/dates";
import { machine, median, percentile } from "./lib";
import { startStack } from "./stack";

const PAGES = ["/", "/explore", "/cohorts", "/bin-lookup", "/reports", "/users", "/metrics", "/login"];

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
    const sizes: [string, number, number][] = [];
    for (const path of PAGES) {
      const html = await (await fetch(`${env.dashboardUrl}${path}`, { headers: { cookie } })).text();
      const srcs = [...new Set([...html.matchAll(/<script[^>]+src="(\/_next\/static\/[^"]+\.js)"/g)].map((m) => m[1]!))];
      let raw = 0;
      let gz = 0;
      for (const src of srcs) {
        const file = readFileSync(`.next${src.replace("/_next", "")}`);
        raw += file.length;
        gz += gzipSync(file, { level: 9 }).length;
      }
      sizes.push([path, raw, gz]);
    }

    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
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

    // Issue 16: 365 days by month against the previous 365, from cold (calls counted).
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
    // Issue 17: the Monitor from cold (its four monthly reports fetched) and again from warm cache.
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

    const date = new Date().toISOString().slice(0, 10);
    console.log(`### Dashboard pages (${date})

Machine: ${machine()}. Production build (\`next build\`), \`next start\`, headless Chromium.

First-load JavaScript (script chunks each page's HTML loads; target ≤ 250 KB gzipped):

| page | raw KB | gzipped KB |
|---|---:|---:|
${sizes.map(([p, raw, gz]) => `| ${p} | ${(raw / 1024).toFixed(0)} | ${(gz / 1024).toFixed(0)} |`).join("\n")}

Pressing "Run report" on a cached report to its table painted (Explore, by date and gateway, alternating 30 and 7 days with the Period select; measured in the page from the click to the frame after the totals row shows the report's numbers): median ${median(samples).toFixed(0)} ms, p90 ${percentile(samples, 90).toFixed(0)} ms over ${samples.length} runs (target ≤ 200 ms).

The same for ${start} to ${env.endDate} (365 days) by month, compared with the previous 365 days, alternated with the same report ending a day earlier (each with its comparison, all four answers from cache): median ${median(yearSamples).toFixed(0)} ms, p90 ${percentile(yearSamples, 90).toFixed(0)} ms over ${yearSamples.length} runs (target ≤ 200 ms). From cold, that report cost ${coldCalls} upstream calls: 365 days are 4 calls of at most 100 days for each side, one page each (a call by date returns at most 100 records; a page holds 1,000), so 8 is the minimum.

The Monitor (issue 17), from navigation to its first programme table painted: from cold ${monitorCold.ms} ms with ${monitorCold.calls} upstream calls (target ≤ 4), then again from warm cache ${monitorWarm.ms} ms with ${monitorWarm.calls} calls (target 0).
`);
  } finally {
    stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
