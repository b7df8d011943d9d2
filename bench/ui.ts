// Dashboard front-end benchmark (issue 6): `npm run bench:ui` after `npx next build`.
//  1. First-load JavaScript of each page: the script chunks its HTML loads, gzipped, from .next/static.
//  2. Time from pressing "Run report" on a cached report to its table painted, in Chromium, measured
//     in the page from the click to the frame after the totals row shows that report's numbers.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { chromium } from "@playwright/test";
import { machine, median, percentile } from "./lib";
import { startStack } from "./stack";

const PAGES = ["/", "/explore", "/cohorts", "/bin-lookup", "/reports", "/users", "/metrics", "/login"];

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
    const samples: number[] = [];
    for (let i = 0; i < 16; i++) {
      const [preset, expected] = i % 2 === 0 ? ["last30", aText] : ["last7", bText];
      await period.selectOption(preset);
      // A string, not a function: tsx would wrap a function with helpers the page does not have.
      const ms = (await page.evaluate(`new Promise((resolve) => {
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
      if (i > 1) samples.push(ms); // the first two are warm-ups
    }
    await browser.close();

    const date = new Date().toISOString().slice(0, 10);
    console.log(`### Dashboard pages (${date})

Machine: ${machine()}. Production build (\`next build\`), \`next start\`, headless Chromium.

First-load JavaScript (script chunks each page's HTML loads; target ≤ 250 KB gzipped):

| page | raw KB | gzipped KB |
|---|---:|---:|
${sizes.map(([p, raw, gz]) => `| ${p} | ${(raw / 1024).toFixed(0)} | ${(gz / 1024).toFixed(0)} |`).join("\n")}

Pressing "Run report" on a cached report to its table painted (Explore, by date and gateway, alternating 30 and 7 days with the Period select; measured in the page from the click to the frame after the totals row shows the report's numbers): median ${median(samples).toFixed(0)} ms, p90 ${percentile(samples, 90).toFixed(0)} ms over ${samples.length} runs (target ≤ 200 ms).
`);
  } finally {
    stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
