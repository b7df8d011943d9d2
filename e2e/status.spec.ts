/**
 * Status the user can believe: the quota line is the server's own count, follows calls
 * spent and the window freeing them without a reload; a report of several calls says which part it
 * is on. The e2e dashboard allows 5 calls per 10 s; the report of several calls runs on a dashboard
 * of its own that allows 5 per minute, so the calls spent before it stay in the window however long
 * a busy machine takes to open its page.
 */
import { join } from "node:path";
import { expect, test, type Page } from "./support/test";
import { addDays } from "../lib/contract/dates";
import { authFile, dashboardEnvFor, e2eEnv } from "./support/env";
import { createUser, ownDashboardStore, startOwnDashboard, type OwnDashboard } from "./support/own-dashboard";
import { screenshots } from "./support/helpers";

test.use({ storageState: authFile("analyst") });

interface Status {
  calls_in_window: number;
  limit_per_window: number;
  window_seconds: number;
  next_free_at: string | null;
}

const status = async (page: Page) => (await (await page.request.get("/api/upstream/status")).json()) as Status;
const quotaLine = (page: Page) => page.getByTestId("quota-line");
const used = async (page: Page) => Number(/(\d+) of \d+ calls used/.exec(await quotaLine(page).innerText())?.[1] ?? NaN);

/** Waits until no call is left in the dashboard's window. */
async function emptyWindow(page: Page) {
  // The worker's earlier specs may have left calls queued behind a spent window: a few windows' worth.
  await expect.poll(async () => (await status(page)).calls_in_window, { timeout: 90_000, intervals: [500] }).toBe(0);
}

test("the quota line is the server's own count, and follows calls spent and freed without a reload", async ({ page }) => {
  await page.goto("/explore");
  await emptyWindow(page);
  await page.reload();
  await expect(quotaLine(page)).toHaveText("Reporting quota (shared by all users): 0 of 5 calls used in the last 10 s.");

  // A report no one has asked for yet (a custom range) spends one call; the line follows at once.
  const { endDate } = e2eEnv();
  await page.goto(`/explore?op=orders&range=${addDays(endDate, -12)}..${addDays(endDate, -3)}&by=card_type&m=attempts`);
  await expect(page.getByRole("row", { name: "Totals" })).toBeVisible();
  await expect.poll(() => used(page)).toBeGreaterThanOrEqual(1);
  const server = await status(page);
  expect(await used(page)).toBe(server.calls_in_window);
  expect(server.window_seconds).toBe(10);
  await screenshots(page, "quota-line");

  // When the window frees the call, the line drops by itself (no reload, no new report).
  const freeAt = Date.parse(server.next_free_at!);
  await expect.poll(async () => [await used(page), (await status(page)).calls_in_window], { timeout: Math.max(0, freeAt - Date.now()) + 30_000 }).toEqual([0, 0]);
});

test.describe("a dashboard allowing 5 calls a minute", () => {
  const WINDOW_SECONDS = 60;
  let server: OwnDashboard | undefined;
  let url = "";
  let who: { email: string; password: string };

  test.beforeAll(async () => {
    test.setTimeout(300_000);
    const env = e2eEnv();
    const dir = join(env.dir, "status-minute");
    const db = await ownDashboardStore(dir);
    who = createUser(db, "status@e2e.test", "analyst");
    server = await startOwnDashboard("one-minute", dir, dashboardEnvFor(env, 5, WINDOW_SECONDS));
    url = server.url;
  });

  test.afterAll(async () => {
    await server?.stop();
  });

  test("a report that needs several calls says which part it is on, and when all of them should be under way", async ({ browser }) => {
    const { endDate } = e2eEnv();
    const page = await (await browser.newContext({ baseURL: url, storageState: { cookies: [], origins: [] } })).newPage();
    await page.goto("/login");
    await page.getByLabel("E-mail").fill(who.email);
    await page.getByLabel("Password").fill(who.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).not.toHaveURL(/\/login/);
    await page.goto("/explore");
    await emptyWindow(page);
    expect((await status(page)).window_seconds).toBe(WINDOW_SECONDS);
    // Spend the window: five distinct one-call reports through the dashboard's own API.
    for (let i = 0; i < 5; i++) {
      const res = await page.request.post("/api/reports/order-summary?wait=10000", {
        data: { start_date: addDays(endDate, -(20 + i)), end_date: addDays(endDate, -(20 + i)), group_by: ["gateway_id"], metrics: ["revenue"] },
      });
      expect(res.status()).toBe(200);
    }
    expect((await status(page)).calls_in_window).toBe(5);
    // 140 days: two date-range parts, so at least two calls, both waiting for the window. A question
    // no other spec asks (prepaid cards' rebill attempts), so none of its days is kept already.
    await page.goto(`/explore?op=orders&range=${addDays(endDate, -139)}..${endDate}&by=date&m=rebills_attempted&f.card_type=PREPAID`);
    const banner = page.getByRole("status", { name: "Report status" });
    await expect(banner).toContainText(/part 1 of (at least )?2/);
    await expect(banner).toContainText("all of them should be under way");
    await screenshots(page, "several-calls-queued");
    // The window frees a minute after the first of the five calls; then both parts run.
    await expect(page.getByRole("row", { name: "Totals" })).toBeVisible({ timeout: (WINDOW_SECONDS + 60) * 1000 });
    await expect(banner).toContainText("with 2 calls to the reporting service");
  });
});
