/**
 * Status the user can believe: the quota line is the server's own count, follows calls
 * spent and the window freeing them without a reload; a report of several calls says which part it
 * is on. The e2e dashboard allows 5 calls per 10 s.
 */
import { expect, test, type Page } from "./support/test";
import { addDays } from "../lib/contract/dates";
import { authFile, e2eEnv } from "./support/env";
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
  await expect.poll(async () => (await status(page)).calls_in_window, { timeout: 30_000, intervals: [500] }).toBe(0);
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
  await page.waitForTimeout(Math.max(0, freeAt - Date.now()));
  await expect.poll(async () => [await used(page), (await status(page)).calls_in_window], { timeout: 5_000 }).toEqual([0, 0]);
});

test("a report that needs several calls says which part it is on, and when all of them should be under way", async ({ page }) => {
  const { endDate } = e2eEnv();
  await page.goto("/explore");
  await emptyWindow(page);
  // Spend the window: five distinct one-call reports through the dashboard's own API.
  for (let i = 0; i < 5; i++) {
    const res = await page.request.post("/api/reports/order-summary?wait=10000", {
      data: { start_date: addDays(endDate, -(20 + i)), end_date: addDays(endDate, -(20 + i)), group_by: ["gateway_id"], metrics: ["revenue"] },
    });
    expect(res.status()).toBe(200);
  }
  // 140 days: two date-range parts, so at least two calls, both waiting for the window. A question
  // no other spec asks (prepaid cards' rebill attempts), so none of its days is kept already.
  await page.goto(`/explore?op=orders&range=${addDays(endDate, -139)}..${endDate}&by=date&m=rebills_attempted&f.card_type=PREPAID`);
  const banner = page.getByRole("status", { name: "Report status" });
  await expect(banner).toContainText(/part 1 of (at least )?2/);
  await expect(banner).toContainText("all of them should be under way");
  await screenshots(page, "several-calls-queued");
  await expect(page.getByRole("row", { name: "Totals" })).toBeVisible({ timeout: 30_000 });
  await expect(banner).toContainText("with 2 calls to the reporting service");
});
