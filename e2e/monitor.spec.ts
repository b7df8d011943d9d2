/**
 * The Monitor against the real service. prepare.ts imported, with the service CLI, chargebacks that
 * make one Mastercard MID breach Mastercard's Excessive Chargeback Program last month (≥ 100 and
 * ≥ 1.5 % of its Mastercard sales of the month before: every approved attempt, cascades included).
 * That MID is first in last month's Mastercard table, "Excessive" in words, with the ratio of direct
 * service calls; its drill-down says the ratio and the count against the threshold's, and its chart
 * labels each threshold with both; its "by day" link opens Explore on the same chargebacks; four
 * upstream calls from cold, none warm; accessible and screenshotted; a viewer sees the same.
 */
import { expect, test, type Page } from "./support/test";
import { formatValue } from "../lib/report/metrics/format";
import { authFile, e2eEnv } from "./support/env";
import { cents, downloadCsv, expectNoSeriousA11yViolations, screenshots, serviceCall } from "./support/helpers";

test.use({ storageState: authFile("analyst") });

const PROGRAM = "Mastercard Excessive Chargeback Program";
const MC = "MASTERCARD";

interface Status {
  upstream_report_calls: number;
  calls_in_window: number;
  jobs_running: number;
  queue_length: number;
}
const status = async (page: Page) => (await (await page.request.get("/api/upstream/status")).json()) as Status;

/** First and last day of a month (YYYY-MM). */
function bounds(month: string): { start_date: string; end_date: string } {
  const [y, m] = month.split("-").map(Number) as [number, number];
  return { start_date: `${month}-01`, end_date: new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10) };
}
function monthBefore(month: string): string {
  const [y, m] = month.split("-").map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 2, 1)).toISOString().slice(0, 7);
}
/** "October 2026", as the page names months. */
function monthLabel(month: string): string {
  const [y, m] = month.split("-").map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1, 1)).toLocaleString("en-US", { month: "long", year: "numeric", timeZone: "UTC" });
}
const count = (n: number) => formatValue(n, "count");

/** The breached MID's programme figures, straight from the service: last month's chargebacks (by chargeback date) and the month before's sales (net_approvals: cascades included). */
async function direct() {
  const { monitorBreachGateway: gateway, monitorBreachMonth: month } = e2eEnv();
  const filters = { gateway_id: [gateway], card_brand: [MC] };
  const cb = await serviceCall("/api/data", { ...bounds(month), metrics: ["cb_count_by_cb_date", "cb_amount_by_cb_date"], filters });
  const sales = await serviceCall("/api/data", { ...bounds(monthBefore(month)), metrics: ["net_approvals"], filters });
  const numerator = cb.data.reduce((s, r) => s + Number(r.cb_count_by_cb_date ?? 0), 0);
  const amountCents = cb.data.reduce((s, r) => s + cents(r.cb_amount_by_cb_date), 0);
  const denominator = sales.data.reduce((s, r) => s + Number(r.net_approvals ?? 0), 0);
  return { gateway, month, numerator, amountCents, denominator, ratio: numerator / denominator };
}

/** The service's figures, asked once for the file's tests (each only reads them). */
let figures: ReturnType<typeof direct> | undefined;
const wanted = () => (figures ??= direct());

function mastercardTable(page: Page, month: string) {
  return page.getByRole("region", { name: `${PROGRAM}, ${monthLabel(month)} (scrollable)` });
}

/** The breached MID's row, first in its month's Mastercard table, with its figures and status in words. */
async function expectBreachFirst(page: Page, want: Awaited<ReturnType<typeof direct>>) {
  const table = mastercardTable(page, want.month);
  await expect(table).toBeVisible({ timeout: 60_000 });
  const first = table.locator("tbody tr").first();
  await expect(first.getByRole("rowheader")).toContainText(`(#${want.gateway})`);
  const cells = first.locator("td");
  await expect(cells.nth(0)).toHaveText(count(want.numerator));
  await expect(cells.nth(1)).toHaveText(count(want.denominator));
  await expect(cells.nth(2)).toHaveText(formatValue(want.ratio, "percent"));
  await expect(cells.nth(2).locator("span")).toHaveAttribute("title", `Chargebacks: ${count(want.numerator)} ÷ ${count(want.denominator)}`);
  const high = want.numerator >= 300 && want.ratio >= 0.03;
  await expect(cells.nth(3)).toHaveText(high ? "High excessive" : "Excessive");
  // No other MID of that month is over a threshold (the others have far fewer than 100 chargebacks).
  await expect(table.locator("tbody tr").filter({ hasText: /excessive|monitored/i })).toHaveCount(1);
  return first;
}

test("the breached MID is first and excessive, with the service's ratio; its drill-down opens Explore on the same chargebacks", async ({ page }) => {
  const want = await wanted();
  expect(want.numerator).toBeGreaterThanOrEqual(100);
  expect(want.ratio).toBeGreaterThanOrEqual(0.015);
  const directDone = Date.now();

  // The service's 10 s window is shared by the direct calls above and the dashboard: let them leave
  // it, and the dashboard's own window empty, so the Monitor's four calls are never told 429.
  await expect.poll(async () => (await status(page)).calls_in_window, { timeout: 30_000, intervals: [500] }).toBe(0);
  await page.waitForTimeout(Math.max(0, directDone + 11_000 - Date.now()));
  const before = (await status(page)).upstream_report_calls;

  await page.goto("/monitor");
  await expect(page.getByRole("heading", { level: 2, name: monthLabel(want.month), exact: true })).toBeVisible({ timeout: 60_000 });
  const first = await expectBreachFirst(page, want);
  await expect.poll(async () => (await status(page)).jobs_running, { timeout: 30_000 }).toBe(0);
  expect((await status(page)).upstream_report_calls - before).toBe(4);
  await expect(page.getByRole("status", { name: "Breaches", exact: true })).toBeVisible();
  // Last month's complete figures breach: said in a banner of its own, naming the MID.
  await expect(page.getByRole("status", { name: `Breaches in ${monthLabel(want.month)}` })).toContainText(`(#${want.gateway})`);

  // Loaded again: from the dashboard's cache, no upstream call.
  await page.reload();
  await expectBreachFirst(page, want);
  expect((await status(page)).upstream_report_calls - before).toBe(4);

  await expectNoSeriousA11yViolations(page);
  await screenshots(page, "monitor");

  // The drill-down: the same ratio in words, the daily trend, and links to Explore.
  await first.getByRole("button", { name: new RegExp(`\\(#${want.gateway}\\)$`) }).click();
  const drill = page.getByRole("region", { name: new RegExp(`\\(#${want.gateway}\\), ${MC}, ${monthLabel(want.month)}$`) });
  await expect(drill).toBeVisible();
  // It opens where the eye is, with focus on its heading.
  await expect(drill.getByRole("heading").first()).toBeInViewport();
  await expect(drill.getByRole("heading").first()).toBeFocused();
  await expect(drill).toContainText(`${PROGRAM}: ${count(want.numerator)} ÷ ${count(want.denominator)} = ${formatValue(want.ratio, "percent")}`);
  // The level names the count beside the ratio, against the threshold's ratio and minimum count.
  const reached = want.numerator >= 300 && want.ratio >= 0.03 ? { name: "High excessive", ratio: 0.03, min: 300 } : { name: "Excessive", ratio: 0.015, min: 100 };
  await expect(drill).toContainText(
    `${reached.name}: ${formatValue(want.ratio, "percent")} and ${count(want.numerator)} chargebacks, at or above ${formatValue(reached.ratio, "percent")} and ${count(reached.min)}.`,
  );
  // The chart's threshold lines, each with its ratio and its minimum count.
  for (const [level, ratio, min] of [["Monitored", 0.01, 100], ["Excessive", 0.015, 100], ["High excessive", 0.03, 300]] as const) {
    await expect(drill.locator("svg text").filter({ hasText: `${level} ${formatValue(ratio, "percent")} and ${count(min)} chargebacks` })).toHaveCount(1, { timeout: 60_000 });
  }
  const byDay = drill.getByRole("link", { name: "by day", exact: true });
  await expect(byDay).toBeVisible({ timeout: 60_000 });
  const href = new URL((await byDay.getAttribute("href"))!, page.url());
  expect(href.pathname).toBe("/explore");
  const { start_date, end_date } = bounds(want.month);
  expect(Object.fromEntries(["range", "by", "f.gateway_id", "f.card_brand"].map((k) => [k, href.searchParams.get(k)]))).toEqual({
    range: `${start_date}..${end_date}`,
    by: "date",
    "f.gateway_id": String(want.gateway),
    "f.card_brand": MC,
  });
  await expectNoSeriousA11yViolations(page);
  await screenshots(page, "monitor-drill");

  // Explore by day for that MID and month: the same chargebacks, in total and summed over the days.
  await byDay.click();
  await expect(page).toHaveURL(/\/explore\?/);
  await expect(page.getByRole("row", { name: "Totals" })).toBeVisible({ timeout: 60_000 });
  const csv = await downloadCsv(page);
  const iCount = csv.header.findIndex((h) => /^Chargebacks \(by CB date\)$/.test(h));
  const iAmount = csv.header.findIndex((h) => /^Chargeback amount \(by CB date\)/.test(h));
  expect([iCount, iAmount].every((i) => i >= 0)).toBe(true);
  expect(Number(csv.totals[iCount])).toBe(want.numerator);
  expect(csv.rows.reduce((s, r) => s + Number(r[iCount]), 0)).toBe(want.numerator);
  expect(cents(csv.totals[iAmount])).toBe(want.amountCents);
  await expect(page.getByRole("row", { name: "Totals" })).toContainText(count(want.numerator));
});

test.describe("as a viewer", () => {
  test.use({ storageState: authFile("viewer") });

  test("a viewer opens the Monitor and sees the same breach", async ({ page }) => {
    const want = await wanted();
    await page.goto("/monitor");
    await expect(page).toHaveURL(/\/monitor$/);
    const first = await expectBreachFirst(page, want);
    await first.getByRole("button", { name: new RegExp(`\\(#${want.gateway}\\)$`) }).click();
    const drill = page.getByRole("region", { name: new RegExp(`\\(#${want.gateway}\\), ${MC}, ${monthLabel(want.month)}$`) });
    await expect(drill).toContainText(`${count(want.numerator)} ÷ ${count(want.denominator)}`);
    // Explore is for analysts: a viewer's drill-down offers no link into it.
    await expect(drill.getByRole("table").first()).toBeVisible({ timeout: 60_000 });
    await expect(drill.getByRole("link")).toHaveCount(0);
    await expectNoSeriousA11yViolations(page);
    await screenshots(page, "monitor-viewer");
  });
});

test("the Monitor is saved and shared like a report: a live link without an account shows the same breach", async ({ browser }) => {
  const want = await wanted();
  const analyst = await browser.newContext({ storageState: authFile("analyst") });
  const page = await analyst.newPage();
  await page.goto("/monitor");
  await expectBreachFirst(page, want);
  await page.getByRole("button", { name: "Save report" }).click();
  await page.getByRole("dialog", { name: "Save this monitor view" }).getByRole("textbox", { name: "Name" }).fill("Risk monitor");
  await page.getByRole("dialog", { name: "Save this monitor view" }).getByRole("button", { name: /^Save/ }).click();
  await expect(page.getByText("Saved.")).toBeVisible();

  await page.goto("/reports");
  const item = page.getByRole("listitem").filter({ hasText: "Risk monitor" }).first();
  await expect(item).toContainText("Monitor");
  await item.getByRole("button", { name: "Share links" }).click();
  // A monitor link is always live: no snapshot, no presets to offer.
  await expect(item.getByText("A monitor link is always live")).toBeVisible();
  await expect(item.getByRole("radio")).toHaveCount(0);
  await item.getByRole("button", { name: "Create share link" }).click();
  const urlBox = item.getByRole("textbox", { name: "New share link URL" });
  await expect(urlBox).toHaveValue(/\/share\/[A-Za-z0-9_-]{43}$/);
  const shareUrl = await urlBox.inputValue();

  const manager = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const phone = await manager.newPage();
  await phone.goto(shareUrl);
  await expect(phone.getByRole("heading", { level: 1, name: "Risk monitor" })).toBeVisible();
  const first = await expectBreachFirst(phone, want);
  // A visitor has no account to drill with: the MID is a name, not a button.
  await expect(first.getByRole("button")).toHaveCount(0);
  await expectNoSeriousA11yViolations(phone);
  await phone.screenshot({ path: "test-results/screenshots/monitor-share-phone.png", fullPage: true });
  await manager.close();
  await analyst.close();
});
