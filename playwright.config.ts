import { defineConfig, devices } from "@playwright/test";

const DASHBOARD_PORT = Number(process.env.E2E_DASHBOARD_PORT ?? 3100);
const baseURL = `http://localhost:${DASHBOARD_PORT}`;

// Tests only ever drive servers this config starts on this machine.
if (!/^http:\/\/localhost:\d+$/.test(baseURL)) throw new Error(`e2e refuses to run against ${baseURL}`);

export default defineConfig({
  testDir: "e2e",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: true,
  reporter: process.env.CI ? [["list"]] : [["list"]],
  timeout: 60_000,
  use: {
    baseURL,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
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
    },
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"] } }],
  webServer: [
    {
      command: `node node_modules/next/dist/bin/next start --port ${DASHBOARD_PORT} --hostname localhost`,
      url: `${baseURL}/metrics`,
      timeout: 120_000,
      reuseExistingServer: false,
      stdout: "pipe",
    },
  ],
});
