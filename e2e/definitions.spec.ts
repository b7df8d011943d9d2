import { expect, test } from "./support/test";
import { authFile } from "./support/env";
import { DIMENSIONS, METRICS } from "../lib/contract/catalog";
import { KPIS } from "../lib/report/metrics/kpis";
import { screenshots } from "./support/helpers";

test.use({ storageState: authFile("viewer") });

test("the definitions page lists every metric and dimension of the catalog", async ({ page }) => {
  // The page's first address still opens it, by a permanent redirect.
  await page.goto("/metrics");
  await expect(page).toHaveURL(/\/definitions$/);
  await expect(page.getByRole("heading", { level: 1, name: "Definitions" })).toBeVisible();
  const metricRows = page.getByRole("region", { name: "Metrics" }).locator("tbody tr");
  await expect(metricRows).toHaveCount(METRICS.length);
  await expect(page.getByRole("cell", { name: "approvals_organic", exact: true })).toBeVisible();
  const dimRows = page.getByRole("region", { name: "Dimensions" }).locator("tbody tr");
  await expect(dimRows).toHaveCount(DIMENSIONS.length);
});

test("the definitions page lists every KPI and the cohort grid's cells, and the top menu links to it", async ({ page }) => {
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Definitions" }).click();
  await expect(page).toHaveURL(/\/definitions$/);
  const kpiRows = page.getByRole("region", { name: "KPIs" }).locator("tbody tr");
  await expect(kpiRows).toHaveCount(KPIS.length);
  for (const label of ["Approval rate", "Chargeback rate (count)", "Chargeback rate (amount)", "Net revenue", "Net revenue per customer"]) {
    await expect(page.getByRole("region", { name: "KPIs" }).getByRole("cell", { name: label, exact: true })).toBeVisible();
  }
  await expect(page.getByRole("cell", { name: "Approvals ÷ Attempts" }).first()).toBeVisible();
  await expect(page.getByRole("region", { name: "Cohort grid cells" })).toContainText("Lifetime value to date");
  await screenshots(page, "definitions");
});

test("a viewer sent away from an analysts' page is told why; the favicon is served", async ({ page }) => {
  await page.goto("/explore?range=last7");
  await expect(page).toHaveURL(/\/\?denied=%2Fexplore$/);
  await expect(page.getByRole("alert").filter({ hasText: "Explore is" })).toHaveText(
    "Explore is for analysts and admins; you are signed in as a viewer. Ask an administrator if you need it.",
  );
  // The home page offers only what a viewer may open.
  const sections = page.getByRole("navigation", { name: "Sections" }).getByRole("link");
  await expect(sections).toHaveText(["Dashboards", "Monitor", "Saved reports", "Definitions"]);
  await screenshots(page, "denied-notice");
  const icon = await page.locator('link[rel="icon"]').first().getAttribute("href");
  expect(icon).toBeTruthy();
  const res = await page.request.get(icon!);
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toContain("image/svg+xml");
  // Share pages stay out of search engines.
  const robots = await page.request.get("/robots.txt");
  expect(robots.status()).toBe(200);
  expect(await robots.text()).toContain("Disallow: /share/");
});

test("the menu and the content share one width", async ({ page }) => {
  for (const path of ["/", "/definitions", "/reports"]) {
    await page.goto(path);
    const bar = await page.locator("header > div").first().boundingBox();
    const main = await page.locator("main").first().boundingBox();
    expect(Math.round(bar!.x), path).toBe(Math.round(main!.x));
    expect(Math.round(bar!.width), path).toBe(Math.round(main!.width));
  }
});
