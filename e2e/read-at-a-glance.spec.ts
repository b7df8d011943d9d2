/**
 * Numbers read whole at a glance: a wide Explore table on a 1,440-px screen cuts no total or change,
 * nor does the same table as a dashboard tile, signed in or shared,
 * and a shared report opened on a phone shows its headline figures (each measure's total and change,
 * the same as its totals row) before its chart and its table.
 */
import { expect, test, type APIRequestContext, type Locator } from "./support/test";
import { addDays } from "../lib/contract/dates";
import { authFile, e2eEnv } from "./support/env";
import { expectNoSeriousA11yViolations, screenshots } from "./support/helpers";

test.use({ storageState: authFile("analyst") });

const clean = (s: string) => s.replace(/\s+/g, " ").trim();

/** Five sums and a rate, each beside the previous period: 1 + 5 × 4 + 3 = 24 columns. */
function wideParams(): string {
  const end = e2eEnv().endDate;
  return `op=orders&range=${addDays(end, -89)}..${end}&by=card_brand&m=attempts,approvals,revenue,cb_amount,refund_amount&kpi=approval_rate&cmp=prev`;
}

/** Cells of `scope` whose text does not fit their box (an ellipsis, or text hidden past the edge). */
async function clippedCells(scope: Locator): Promise<string[]> {
  return scope
    .locator("[role=cell],[role=rowheader]")
    .evaluateAll((cells) => cells.filter((c) => c.scrollWidth > c.clientWidth).map((c) => `${c.getAttribute("data-column")}: ${(c as HTMLElement).innerText}`));
}

async function share(request: APIRequestContext, params: string): Promise<string> {
  const saved = await request.post("/api/saved-reports", { data: { name: `At a glance ${Date.now()}`, page: "explore", params } });
  expect(saved.status(), await saved.text()).toBe(201);
  const { report } = (await saved.json()) as { report: { id: string } };
  const link = await request.post(`/api/saved-reports/${report.id}/links`, { data: { mode: "live" } });
  expect(link.status(), await link.text()).toBe(201);
  return ((await link.json()) as { url: string }).url;
}

test("a 24-column table on a 1,440-px screen shows every total and change whole", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/explore?${wideParams()}`);
  const table = page.getByRole("table").first();
  const totals = table.getByRole("row", { name: "Totals" });
  await expect(totals).toBeVisible({ timeout: 60_000 });
  expect(await table.getByRole("columnheader").count()).toBeGreaterThanOrEqual(15);
  // Every cell, the totals row's included, holds its whole text: nothing is cut.
  expect(await clippedCells(table)).toEqual([]);
  const totalTexts = (await totals.locator("[role=cell],[role=rowheader]").allInnerTexts()).map(clean);
  expect(totalTexts.filter((t) => t.includes("…"))).toEqual([]);
  // The amounts are whole to the cent, the changes carry their sign.
  expect(totalTexts.some((t) => /^\$\d{1,3}(,\d{3})+\.\d\d$/.test(t)), totalTexts.join(" | ")).toBe(true);
  expect(totalTexts.some((t) => /^[+\u2212]\$[\d,]+\.\d\d/.test(t)), totalTexts.join(" | ")).toBe(true);
  // Sideways past the page's width, the last column too.
  await table.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
  expect(await clippedCells(table)).toEqual([]);
  await screenshots(page, "explore-wide-table");
});

test("the same table as a dashboard tile, signed in and on its share page, shows every total and change whole on a 1,440-px screen", async ({ page, browser, request }) => {
  const end = e2eEnv().endDate;
  const tile = `table.4|${wideParams()}|Brands beside the previous 90 days`;
  const saved = await request.post("/api/saved-reports", { data: { name: `Wide tile ${Date.now()}`, page: "dashboard", params: `range=${addDays(end, -89)}..${end}&cmp=prev&t=${encodeURIComponent(tile)}` } });
  expect(saved.status(), await saved.text()).toBe(201);
  const { report } = (await saved.json()) as { report: { id: string } };
  const link = await request.post(`/api/saved-reports/${report.id}/links`, { data: { mode: "live" } });
  expect(link.status(), await link.text()).toBe(201);
  const url = ((await link.json()) as { url: string }).url;
  const visitor = await browser.newContext({ storageState: { cookies: [], origins: [] }, viewport: { width: 1440, height: 900 } });
  await page.setViewportSize({ width: 1440, height: 900 });
  for (const [where, p, path] of [["signed in", page, `/dashboards/${report.id}`], ["shared", await visitor.newPage(), url]] as const) {
    await p.goto(path);
    const grid = p.getByTestId("dashboard-grid");
    await expect(grid.locator("article").first()).toBeVisible({ timeout: 60_000 });
    await expect(grid.locator("article:not([data-status=done])")).toHaveCount(0, { timeout: 120_000 });
    const table = grid.getByRole("table").first();
    const totals = table.getByRole("row", { name: "Totals" });
    await expect(totals).toBeVisible();
    expect(await table.getByRole("columnheader").count(), where).toBeGreaterThanOrEqual(15);
    expect(await clippedCells(table), `${where}: cut cells`).toEqual([]);
    const totalTexts = (await totals.locator("[role=cell],[role=rowheader]").allInnerTexts()).map(clean);
    expect(totalTexts.filter((t) => t.includes("…")), where).toEqual([]);
    expect(totalTexts.some((t) => /^\$\d{1,3}(,\d{3})+\.\d\d$/.test(t)), `${where}: ${totalTexts.join(" | ")}`).toBe(true);
    await table.evaluate((el) => el.closest("[role=region]")?.scrollTo({ left: el.scrollWidth }));
    expect(await clippedCells(table), `${where}: cut cells, scrolled to the last column`).toEqual([]);
  }
  await visitor.close();
});

test("a shared report on a phone opens on its headline figures, the totals row's own, before its chart and table", async ({ browser, request }) => {
  const url = await share(request, `${wideParams()}&chart=bar`);
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] }, viewport: { width: 390, height: 844 }, isMobile: true });
  const page = await context.newPage();
  await page.goto(url);
  const figures = page.getByRole("region", { name: "Headline figures" });
  await expect(figures).toBeVisible({ timeout: 60_000 });
  const results = page.getByRole("region", { name: "Results", exact: true });
  await expect(results).toBeVisible();

  // First on the page after the header: above the chart and the table.
  const order = await page.evaluate(() => {
    const top = (el: Element | null) => (el ? el.getBoundingClientRect().top + window.scrollY : Number.NaN);
    return {
      figures: top(document.querySelector('section[aria-label="Headline figures"]')),
      chart: top(document.querySelector("main figure")),
      table: top(document.querySelector('section[aria-label="Results"]')),
    };
  });
  expect(order.figures).toBeLessThan(order.chart);
  expect(order.chart).toBeLessThan(order.table);
  // The figures start on the first screen.
  expect(order.figures).toBeLessThan(844);

  // One card per measure asked for, its total and changes exactly the totals row's.
  const headers = (await results.locator("thead th").allInnerTexts()).map(clean);
  const totals = (await results.getByRole("row", { name: "Totals" }).locator("td").allInnerTexts()).map(clean);
  const totalOf = (label: string) => totals[headers.findIndex((h) => h.replace(/[▲▼]$/, "").trim() === label)];
  const cards = figures.getByRole("listitem");
  await expect(cards).toHaveCount(6);
  for (const [id, label] of [
    ["revenue", "Revenue"],
    ["approval_rate", "Approval rate"],
  ] as const) {
    const card = figures.locator(`[data-figure="${id}"]`);
    await expect(card).toContainText(totalOf(label)!);
    await expect(card).toContainText(totalOf(`${label} change`)!);
  }
  await expect(figures.locator('[data-figure="revenue"]')).toContainText(totalOf("Revenue % change")!);
  await expectNoSeriousA11yViolations(page);
  await page.screenshot({ path: "test-results/screenshots/share-headline-phone.png" });
  await context.close();
});
