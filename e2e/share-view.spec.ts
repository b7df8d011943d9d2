/**
 * Shared links show what was saved: the cohort grid as saved (its workbook, on the Cohorts page and
 * the shared one, holding exactly its CSV), a header that states the
 * range shown, a phone-width table that says it scrolls and keeps its totals whole, sorting and CSV,
 * a live link that refreshes itself while its data is fetched, and 404 for an unknown token.
 */
import { readFileSync } from "node:fs";
import { expect, test, type APIRequestContext, type Page } from "./support/test";
import { addDays } from "../lib/contract/dates";
import { authFile, e2eEnv } from "./support/env";
import { expectWorkbookIsCsv, parseCsv, screenshots } from "./support/helpers";

test.use({ storageState: authFile("analyst") });

async function share(request: APIRequestContext, page: "explore" | "cohorts", params: string, link: object = { mode: "live" }): Promise<{ url: string; name: string }> {
  const name = `Share view ${page} ${Date.now()}`;
  const saved = await request.post("/api/saved-reports", { data: { name, page, params } });
  expect(saved.status(), await saved.text()).toBe(201);
  const { report } = (await saved.json()) as { report: { id: string } };
  const res = await request.post(`/api/saved-reports/${report.id}/links`, { data: link });
  expect(res.status()).toBe(201);
  return { url: ((await res.json()) as { url: string }).url, name };
}

/** The grid's rows as the reader sees them: label, customers and every cycle's text. */
async function gridRows(page: Page): Promise<string[][]> {
  const grid = page.getByRole("region", { name: /by signup week and billing cycle \(scrollable\)/ });
  await expect(grid.locator("tbody tr").first()).toBeVisible();
  return grid.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("th, td")].map((c) => (c as HTMLElement).innerText.trim())));
}

test("a shared cohort report shows the retention grid it was saved as, with the Cohorts page's values", async ({ page, browser, request }) => {
  const params = "range=last90&rows=week&cell=retention&cycles=6&trial=14&period=30";
  await page.goto(`/cohorts?${params}`);
  const analystRows = await gridRows(page);
  expect(analystRows.length).toBeGreaterThan(3);
  // The Cohorts page's workbook holds exactly its CSV: the lines first, the grid cell by cell.
  await expectWorkbookIsCsv(page);

  const { url, name } = await share(request, "cohorts", params);
  const manager = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const visitor = await manager.newPage();
  await visitor.goto(url);
  await expect(visitor.getByRole("heading", { level: 1, name })).toBeVisible();
  await expect(visitor.getByText("Cells: Approvals, % of cycle 0; cycles 0 to 6")).toBeVisible();
  expect(await gridRows(visitor)).toEqual(analystRows);
  // Masked as on the Cohorts page, with the same colour legend, and no raw records table.
  await expect(visitor.locator("td[data-masked=true]").first()).toBeVisible();
  await expect(visitor.getByRole("list", { name: "Colour scale" })).toBeVisible();
  await expect(visitor.getByRole("row", { name: "Totals" })).toHaveCount(0);
  // The grid downloads as the reader sees it: a row per cohort, masked cells empty.
  const [download] = await Promise.all([visitor.waitForEvent("download"), visitor.getByRole("button", { name: "Data only CSV" }).click()]);
  const csv = parseCsv(readFileSync((await download.path())!, "utf8"));
  expect(csv[0]!.slice(0, 3)).toEqual(["Cohort", "Customers", "Cycle 0 (%)"]);
  expect(csv.slice(1).filter((r) => r.length > 1).map((r) => r[0])).toEqual(analystRows.map((r) => r[0]));
  await expectWorkbookIsCsv(visitor);
  await screenshots(visitor, "share-cohort");
  await manager.close();
});

test("the header states the range shown, the filters and the time zone, and follows the preset the visitor picks", async ({ browser, request }) => {
  const { endDate } = e2eEnv();
  const { url } = await share(request, "explore", "op=orders&range=last30&by=date&m=attempts,revenue&f.card_brand=VISA", { mode: "live", allowed_presets: ["last7"] });
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto(url);
  const subtitle = page.getByTestId("share-subtitle");
  await expect(subtitle).toHaveText(`Last 30 days, as shared: ${addDays(endDate, -29)} to ${endDate} (UTC) · Filters: Card brand is VISA`);
  await page.getByRole("navigation", { name: "Date range" }).getByRole("link", { name: "Last 7 days" }).click();
  await expect(subtitle).toHaveText(`Last 7 days: ${addDays(endDate, -6)} to ${endDate} (UTC) · Filters: Card brand is VISA`);
  await context.close();
});

test("on a phone the shared table says it scrolls sideways, keeps its totals whole, sorts, and downloads its CSV", async ({ browser, request }) => {
  const { url } = await share(
    request,
    "explore",
    "op=orders&range=last30&by=gateway_id,card_brand&m=attempts,approvals,revenue,cb_count,cb_amount,refund_count,refund_amount&kpi=approval_rate,net_revenue",
  );
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] }, viewport: { width: 390, height: 844 }, isMobile: true });
  const page = await context.newPage();
  await page.goto(url);
  await expect(page.getByTestId("scroll-hint")).toBeVisible();
  const totals = page.getByRole("row", { name: "Totals" });
  await expect(totals).toBeVisible();
  // No cell of the totals row cuts its text, and the page itself does not scroll sideways.
  const clipped = await totals.locator("td").evaluateAll((tds) => tds.filter((td) => td.scrollWidth > td.clientWidth + 1).length);
  expect(clipped).toBe(0);
  const doc = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(doc.scroll).toBeLessThanOrEqual(doc.client);
  await page.screenshot({ path: "test-results/screenshots/share-table-phone.png", fullPage: true });

  // Sorting by revenue, highest first.
  const table = page.getByRole("region", { name: "Results table (scrolls sideways)" });
  await table.getByRole("button", { name: /^Revenue/ }).click();
  await expect(table.getByRole("columnheader", { name: /^Revenue/ })).toHaveAttribute("aria-sort", "descending");
  const revenue = await table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => Number((tr.querySelectorAll("td")[4] as HTMLElement).innerText.replace(/[$,]/g, ""))));
  expect(revenue).toEqual([...revenue].sort((a, b) => b - a));

  // The CSV holds the rows in the order shown and the same totals.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download CSV" }).click()]);
  const rows = parseCsv(readFileSync((await download.path())!, "utf8"));
  const header = rows.findIndex((r) => r[0] === "Gateway ID");
  const body = rows.slice(header + 1).filter((r) => r.length > 1);
  expect(body.at(-1)![0]).toBe("Totals");
  expect(body.slice(0, -1).map((r) => Number(r[4]))).toEqual(revenue);
  const totalRevenue = (await totals.locator("td").nth(4).innerText()).replace(/[$,]/g, "");
  expect(Number(body.at(-1)![4])).toBeCloseTo(Number(totalRevenue), 2);
  await context.close();
});

test("a live link whose data is still being fetched says how long and refreshes itself", async ({ page, browser, request }) => {
  const { endDate } = e2eEnv();
  await expect.poll(async () => ((await (await page.request.get("/api/upstream/status")).json()) as { calls_in_window: number }).calls_in_window, { timeout: 30_000 }).toBe(0);
  // A report nobody has fetched, shared; then the window spent by five other reports.
  const { url, name } = await share(request, "explore", `op=orders&range=${addDays(endDate, -44)}..${addDays(endDate, -40)}&by=bank&m=attempts`);
  for (let i = 0; i < 5; i++) {
    const res = await request.post("/api/reports/order-summary?wait=10000", { data: { start_date: addDays(endDate, -(50 + i)), end_date: addDays(endDate, -(50 + i)), group_by: ["bank"], metrics: ["revenue"] } });
    expect(res.status()).toBe(200);
  }
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const visitor = await context.newPage();
  await visitor.goto(url);
  const status = visitor.getByRole("status");
  await expect(status).toContainText(/it should be ready in about \d+ seconds\. This page updates by itself/);
  await screenshots(visitor, "share-pending");
  // No reload from here on: the page brings the report in itself.
  await expect(visitor.getByRole("heading", { level: 1, name })).toBeVisible({ timeout: 40_000 });
  await expect(visitor.getByRole("row", { name: "Totals" })).toBeVisible();
  await context.close();
});

test("an unknown share token answers 404 on the page as on the API", async ({ page }) => {
  const token = "z".repeat(43);
  const res = await page.goto(`/share/${token}`);
  expect(res!.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "This link does not work" })).toBeVisible();
  expect((await page.request.get(`/api/share/${token}`)).status()).toBe(404);
});
