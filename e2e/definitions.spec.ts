import { expect, test } from "@playwright/test";
import { DIMENSIONS, METRICS } from "../lib/contract/catalog";

test.use({ storageState: ".e2e/viewer.json" });

test("the definitions page lists every metric and dimension of the catalog", async ({ page }) => {
  await page.goto("/metrics");
  await expect(page.getByRole("heading", { level: 1, name: "Definitions" })).toBeVisible();
  const metricRows = page.getByRole("region", { name: "Metrics" }).locator("tbody tr");
  await expect(metricRows).toHaveCount(METRICS.length);
  await expect(page.getByRole("cell", { name: "approvals_organic", exact: true })).toBeVisible();
  const dimRows = page.getByRole("region", { name: "Dimensions" }).locator("tbody tr");
  await expect(dimRows).toHaveCount(DIMENSIONS.length);
});
