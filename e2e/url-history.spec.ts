/**
 * Back and forward through what a page wrote to its URL, on the pages whose server hands them the
 * look at the URL they open with and whose URL code comes later: the form follows the URL,
 * edits not yet run are flagged, view settings amend the URL, and a dashboard opened bare writes the
 * one it shows.
 */
import { expect, test } from "./support/test";
import { authFile } from "./support/env";

test.use({ storageState: authFile("analyst") });

test("Explore: an edit is flagged, a run is a history entry, back and forward restore the form and the report", async ({ page }) => {
  await page.goto("/explore?op=orders&range=last7&by=date&m=attempts,approvals");
  const form = page.getByRole("form", { name: "Report settings" });
  const totals = page.getByRole("row", { name: "Totals" });
  await expect(totals).toBeVisible();
  const week = (await totals.textContent()) ?? "";
  const period = form.getByLabel("Period");
  await expect(period).toHaveValue("last7");

  await period.selectOption("last30");
  await expect(form.getByText("You have changes that are not run yet.")).toBeVisible();
  await period.selectOption("last7");
  await expect(form.getByText("You have changes that are not run yet.")).toHaveCount(0);
  await period.selectOption("last30");
  await form.getByRole("button", { name: "Run report" }).click();
  await expect(page).toHaveURL(/range=last30/);
  await expect(totals).not.toHaveText(week);
  const month = (await totals.textContent()) ?? "";
  await expect(form.getByText("You have changes that are not run yet.")).toHaveCount(0);

  await page.goBack();
  await expect(page).toHaveURL(/range=last7/);
  await expect(period).toHaveValue("last7");
  await expect(totals).toHaveText(week);
  await page.goForward();
  await expect(page).toHaveURL(/range=last30/);
  await expect(period).toHaveValue("last30");
  await expect(totals).toHaveText(month);
});

test("Cohorts: an edit is flagged, a run is a history entry, a grid setting amends it, back and forward restore the form", async ({ page }) => {
  await page.goto("/cohorts?range=last90&cycles=6");
  const form = page.getByRole("form", { name: "Cohort settings" });
  const grid = page.getByRole("region", { name: /\(scrollable\)/ }).first();
  await expect(grid.locator("tbody tr").first()).toBeVisible();
  const period = form.getByLabel("Period");
  await expect(period).toHaveValue("last90");

  await period.selectOption("last30");
  await expect(form.getByText("You have changes that are not run yet.")).toBeVisible();
  await form.getByRole("button", { name: "Run report" }).click();
  await expect(page).toHaveURL(/range=last30/);
  await expect(form.getByText("You have changes that are not run yet.")).toHaveCount(0);
  await page.getByLabel("Rows", { exact: true }).selectOption("month");
  await expect(page).toHaveURL(/range=last30.*rows=month/);

  await page.goBack();
  await expect(page).toHaveURL(/range=last90/);
  await expect(period).toHaveValue("last90");
  await expect(page.getByLabel("Rows", { exact: true })).toHaveValue("week");
  await page.goForward();
  await expect(page).toHaveURL(/range=last30.*rows=month/);
  await expect(period).toHaveValue("last30");
  await expect(page.getByLabel("Rows", { exact: true })).toHaveValue("month");
});

test("a dashboard opened bare is redirected to its starter's URL; applied settings are a history entry back and forward go through", async ({ page }) => {
  // The server redirects: the page never writes its own URL while Next's router is taking over history.
  const opened = await page.goto("/dashboards/new");
  expect(new URL(opened!.request().redirectedFrom()!.url()).search).toBe("");
  await expect(page).toHaveURL(/\/dashboards\/new\?range=last30&/);
  expect(await page.evaluate(() => (history.state as { __NA?: boolean } | null)?.__NA)).toBe(true);
  const start = page.url();
  const form = page.getByRole("form", { name: "Dashboard settings" });
  const period = form.getByLabel("Period");
  await expect(period).toHaveValue("last30");
  await period.selectOption("last7");
  await form.getByRole("button", { name: "Apply to every tile" }).click();
  await expect(page).toHaveURL(/range=last7/);
  const applied = page.url();

  await page.goBack();
  await expect(page).toHaveURL(start);
  await expect(period).toHaveValue("last30");
  await page.goForward();
  await expect(page).toHaveURL(applied);
  await expect(period).toHaveValue("last7");
});
