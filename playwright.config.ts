import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";
import { dashboardEnvFor, e2eEnvs, nextStartArgs } from "./e2e/support/env";
import { oidcWebServer } from "./e2e/support/oidc";
import { chromiumPath } from "./lib/core/pdf/chromium";

// Each worker drives a service and a dashboard of its own (e2e/support/workers.ts): two by default,
// one per core of the machine the suite is sized for. E2E_WORKERS sets how many.
const WORKERS = Number(process.env.E2E_WORKERS ?? 2);

// A spec must reach its own worker's servers: one that imports Playwright's test directly (no
// baseURL) or names a session file outside its worker's folder is stopped here, with the fix.
for (const file of readdirSync("e2e").filter((f) => f.endsWith(".ts"))) {
  const source = readFileSync(`e2e/${file}`, "utf8");
  if (/from "@playwright\/test"/.test(source)) throw new Error(`e2e/${file}: import test, expect and types from "./support/test" (each worker's own dashboard), not "@playwright/test"`);
  if (/["'`]\.e2e\/(admin|analyst|viewer)\.json/.test(source)) throw new Error(`e2e/${file}: a role's session is authFile("<role>") of "./support/env" (the worker's own), not .e2e/<role>.json`);
}

// The config is loaded by the runner and again by each worker; prepare the run once.
if (!process.env.E2E_PREPARED) {
  execFileSync(process.execPath, ["--import", "tsx", "e2e/support/prepare.ts"], { stdio: "inherit" });
  execFileSync(process.execPath, ["--import", "tsx", "e2e/support/workers.ts", String(WORKERS)], { stdio: "inherit" });
  process.env.E2E_PREPARED = "1";
}
const envs = e2eEnvs();

// Tests only ever drive servers this config starts on this machine.
for (const url of envs.flatMap((env) => [env.dashboardUrl, env.serviceUrl])) {
  if (!/^http:\/\/(localhost|127\.0\.0\.1):\d+$/.test(url)) throw new Error(`e2e refuses to run against ${url}`);
}

// Debian's headless shell where it is installed, else the full browser (lib/core/pdf/chromium.ts).
const chromium = {
  executablePath: chromiumPath(),
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
  ],
};

export default defineConfig({
  testDir: "e2e",
  fullyParallel: false,
  workers: envs.length,
  retries: 0,
  forbidOnly: true,
  // The second counts assertions when ASSERTION_LOG is set (docs/testing.md).
  reporter: [["list"], ["./e2e/support/assertion-reporter.ts"]],
  // A bound for a hung test, not a slow one: the browser tests run beside the unit tests on two
  // cores, where the Monitor's specs have taken over 120 s.
  timeout: 300_000,
  expect: { timeout: 30_000 },
  // Every failure keeps its trace (its actions with their locators, call logs and timings, console
  // messages, errors), a screenshot of the page as it failed and the page's accessibility tree then
  // (error-context.md). The trace is recorded for every test, passing or not, so what it records
  // costs every run: it keeps no filmstrip (about a seventh of the browser tests' CPU on two cores)
  // and no copy of the DOM before and after each action, nor the network, which Playwright records
  // with those copies (a fifth of the specs' CPU: explore, dashboards and monitor took 183 CPU-s
  // with them, 148 without, 128 with no trace at all). To see the DOM at each step of a failing
  // spec, run it again with `--trace on`. No baseURL here: e2e/support/test.ts gives each worker
  // its own dashboard's.
  // The browser asks for reduced motion: a spinner is the only animation, and a page where one turns
  // keeps the browser drawing frames for as long as it waits (waiting and status specs: 92.9 s of
  // CPU spinning, 86.8 s still). The tests look at what a page says and holds, never at a spinner.
  use: { trace: { mode: "retain-on-failure", screenshots: false, snapshots: false }, screenshot: "only-on-failure", launchOptions: chromium, reducedMotion: "reduce" },
  projects: [
    { name: "setup", testMatch: /auth\.setup\.ts/ },
    { name: "chromium", use: { ...devices["Desktop Chrome"] }, dependencies: ["setup"], testIgnore: /(secrets|console-errors|dark-mode)\.spec\.ts/ },
    // After the others: they open every page, and so fill the answer cache (the Monitor's months
    // among them) that specs counting a page's upstream calls expect cold.
    { name: "sweep", use: { ...devices["Desktop Chrome"] }, testMatch: /(console-errors|dark-mode)\.spec\.ts/, dependencies: ["chromium"] },
    // Runs last: scans everything the other specs made the dashboard send and log.
    { name: "secrets", testMatch: /secrets\.spec\.ts/, dependencies: ["sweep"] },
  ],
  webServer: envs.flatMap((env) => [
    oidcWebServer(env.oidc, env.dir),
    {
      // The service's request log (one JSON line per request) lets specs count upstream calls.
      command: `node e2e/support/run-logged.mjs ${env.dir}/service.log ${process.execPath} --import tsx service/main.ts`,
      url: `${env.serviceUrl}/healthz`,
      timeout: 60_000,
      reuseExistingServer: false,
      stdout: "ignore" as const,
      env: {
        SERVICE_DB: env.serviceDb,
        SERVICE_PORT: String(env.servicePort),
        SERVICE_TOKEN_SECRET: env.serviceTokenSecret,
        REPORT_RATE_LIMIT: "5",
        RATE_LIMIT_WINDOW_SECONDS: "10",
        SERVICE_LOG: "json",
      },
    },
    {
      command: `node e2e/support/run-logged.mjs ${env.dir}/dashboard.log ${process.execPath} ${nextStartArgs(env.dashboardPort).join(" ")}`,
      url: `${env.dashboardUrl}/api/health`,
      timeout: 120_000,
      reuseExistingServer: false,
      stdout: "ignore" as const,
      env: dashboardEnvFor(env, 5, 10),
    },
  ]),
});
