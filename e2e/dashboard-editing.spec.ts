/**
 * Dashboards do what their buttons say, against the real service in Chromium: "Apply to every tile"
 * reaches every tile but what a tile pins, and each pinning tile (and a KPI that compares although
 * the dashboard does not) wears a badge naming what it keeps, on a desktop and on a phone; a range
 * shorter than the grain is read finer and says so, on a dashboard and on a shared report; leaving
 * the tile editor with settings not applied (Done editing, removing or moving another tile, a link
 * away) asks, and applies or discards as answered.
 *
 * Three tiles over the same days plan into a few upstream calls (the e2e quota is 5 calls per 10 s).
 */
import { expect, test, type Page } from "./support/test";
import { authFile } from "./support/env";

test.use({ storageState: authFile("analyst") });

const TILES_TIMEOUT = 60_000;
const KPI = "kpi.1|op=orders&range=last30&by=date&m=revenue|";
const CHART = "chart.3|op=orders&range=last30&by=date&m=revenue&chart=line|Revenue trend";
const PIVOT = "pivot.4.rg|op=orders&range=last90&by=date,card_brand&grain=month&m=revenue&table=pivot|Revenue by month";
const START = `/dashboards/new?range=last30&${[KPI, CHART, PIVOT].map((t) => `t=${encodeURIComponent(t)}`).join("&")}`;

const grid = (page: Page) => page.getByTestId("dashboard-grid");
const tile = (page: Page, n: number) => grid(page).locator(`article[data-tile="${n}"]`);
const tilesInUrl = (page: Page) => new URL(page.url()).searchParams.getAll("t");
async function expectTilesDrawn(page: Page, count: number): Promise<void> {
  await expect(grid(page).locator("article")).toHaveCount(count, { timeout: TILES_TIMEOUT });
  await expect(grid(page).locator("article[data-status=done]")).toHaveCount(count, { timeout: TILES_TIMEOUT });
}
const settings = (page: Page) => page.getByRole("form", { name: "Dashboard settings" });

test("Apply to every tile reaches every tile but what a tile pins, and the pinning tile says what it keeps", async ({ page }) => {
  await page.goto(START);
  await expectTilesDrawn(page, 3);
  // Before any change, the pins and the KPI's comparison are already named on their tiles.
  await expect(tile(page, 3).getByTestId("tile-keeps")).toHaveText(["Keeps its own range: last 90 days", "Keeps its own grain: by month"].join(""));
  await expect(tile(page, 1).getByTestId("tile-keeps")).toHaveText("Compares with the previous period: a KPI always compares");
  await expect(tile(page, 2).getByTestId("tile-keeps")).toHaveCount(0);
  await expect(settings(page)).toContainText("Every tile takes these settings except what a badge on it says it keeps.");
  await expect(settings(page).getByTestId("kpi-compares")).toHaveText("With no comparison, KPI tiles still compare with the previous period: a KPI always compares.");
  await settings(page).getByLabel("Compare to").selectOption("previous");
  await expect(settings(page).getByTestId("kpi-compares")).toHaveCount(0);
  await settings(page).getByLabel("Compare to").selectOption("none");

  const pivotRange = await tile(page, 3).locator("footer p").first().innerText();
  await settings(page).getByLabel("Period").selectOption("last7");
  await settings(page).getByRole("button", { name: "Apply to every tile" }).click();
  await expect(page).toHaveURL(/[?&]range=last7(&|$)/);
  expect(tilesInUrl(page)).toEqual([KPI, CHART, PIVOT]);
  await expectTilesDrawn(page, 3);
  const today = (await page.locator("main header p").innerText()).match(/today there is (\d{4}-\d{2}-\d{2})/)?.[1];
  expect(today).toBeTruthy();
  // The KPI and the chart take the 7 days; the pivot keeps its 90, and says so.
  for (const n of [1, 2]) await expect(tile(page, n).locator("footer p").first()).toContainText(` to ${today}`);
  await expect(tile(page, 2).locator("footer")).not.toContainText(pivotRange.split(" ·")[0]!);
  await expect(tile(page, 3).locator("footer p").first()).toHaveText(pivotRange);
  await expect(tile(page, 3).getByText("Keeps its own range: last 90 days")).toBeVisible();
});

test("a range shorter than the grain is read by week on the dashboard, which says so before and after applying", async ({ page }) => {
  await page.goto(START.replace("range=last30&", "range=last7&"));
  await expectTilesDrawn(page, 3);
  await expect(page.getByTestId("grain-fallback")).toHaveCount(0);
  await settings(page).getByLabel("Date rows by").selectOption("month");
  await expect(page.getByTestId("grain-fallback")).toHaveText("By week, not by month: the range's 7 days are shorter than a month, so every month shown would be partial.");
  await settings(page).getByRole("button", { name: "Apply to every tile" }).click();
  await expect(page).toHaveURL(/[?&]grain=month(&|$)/);
  await expectTilesDrawn(page, 3);
  await expect(tile(page, 2).locator("footer")).toContainText("By week, not by month");
  await expect(tile(page, 2).locator("footer p").first()).toContainText("week");
  // The pivot keeps its own 90 days, whole months: it stays by month.
  await expect(tile(page, 3).locator("footer")).not.toContainText("By week");
});

test("Done editing with a tile's settings not applied asks, then applies, discards or keeps editing as answered", async ({ page }) => {
  await page.goto(START);
  await expectTilesDrawn(page, 3);
  const before = tilesInUrl(page);
  await page.getByRole("button", { name: "Edit tiles" }).click();
  await page.getByRole("button", { name: "Edit tile 2" }).click();
  const editor = page.getByRole("region", { name: "Tile 2 settings" });
  await editor.getByLabel("Title", { exact: true }).fill("Revenue, day by day");

  const done = page.getByRole("button", { name: "Done editing" });
  const dialog = page.getByRole("dialog", { name: "Tile 2 has settings not applied" });
  // Keep editing: nothing lost, nothing applied.
  await done.click();
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Keep editing" })).toBeFocused();
  await dialog.getByRole("button", { name: "Keep editing" }).click();
  await expect(dialog).toBeHidden();
  await expect(editor.getByLabel("Title", { exact: true })).toHaveValue("Revenue, day by day");
  expect(tilesInUrl(page)).toEqual(before);

  // Apply them: the tile takes the title and editing ends.
  await done.click();
  await dialog.getByRole("button", { name: "Apply them" }).click();
  await expect.poll(() => tilesInUrl(page)[1]).toBe(CHART.replace("|Revenue trend", "|Revenue, day by day"));
  await expect(page.getByRole("button", { name: "Edit tiles" })).toBeVisible();
  await expect(editor).toHaveCount(0);

  // Discard them: the tile stays as it was.
  await page.getByRole("button", { name: "Edit tiles" }).click();
  await page.getByRole("button", { name: "Edit tile 1" }).click();
  await page.getByRole("region", { name: "Tile 1 settings" }).getByLabel("Title", { exact: true }).fill("Takings");
  const applied = tilesInUrl(page);
  await page.getByRole("button", { name: "Done editing" }).click();
  await page.getByRole("dialog", { name: "Tile 1 has settings not applied" }).getByRole("button", { name: "Discard them" }).click();
  await expect(page.getByRole("button", { name: "Edit tiles" })).toBeVisible();
  expect(tilesInUrl(page)).toEqual(applied);

  // Nothing changed in the editor: Done editing just ends.
  await page.getByRole("button", { name: "Edit tiles" }).click();
  await page.getByRole("button", { name: "Edit tile 3" }).click();
  await page.getByRole("button", { name: "Done editing" }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Edit tiles" })).toBeVisible();
});

test("removing another tile, moving one or following a link while a tile's settings are not applied asks, and applies, discards or keeps editing as answered", async ({ page }) => {
  await page.goto(START);
  await expectTilesDrawn(page, 3);
  await page.getByRole("button", { name: "Edit tiles" }).click();
  await page.getByRole("button", { name: "Edit tile 2" }).click();
  await page.getByRole("region", { name: "Tile 2 settings" }).getByLabel("Title", { exact: true }).fill("Revenue, day by day");
  const asked = page.getByRole("dialog", { name: "Tile 2 has settings not applied" });

  // Remove tile 1, then keep editing: nothing removed, nothing applied, nothing lost.
  await page.getByRole("button", { name: "Remove tile 1" }).click();
  await expect(asked).toBeVisible();
  await expect(asked).toContainText("Apply them before tile 1 is removed, or discard them?");
  await asked.getByRole("button", { name: "Keep editing" }).click();
  await expect(asked).toBeHidden();
  expect(tilesInUrl(page)).toEqual([KPI, CHART, PIVOT]);
  await expect(page.getByRole("region", { name: "Tile 2 settings" }).getByLabel("Title", { exact: true })).toHaveValue("Revenue, day by day");

  // Remove tile 1, apply them: tile 1 goes, the edited tile (now tile 1) has its new title, and its editor stays on it.
  await page.getByRole("button", { name: "Remove tile 1" }).click();
  await asked.getByRole("button", { name: "Apply them" }).click();
  await expect.poll(() => tilesInUrl(page)).toEqual([CHART.replace("|Revenue trend", "|Revenue, day by day"), PIVOT]);
  const editor = page.getByRole("region", { name: "Tile 1 settings" });
  await expect(editor.getByLabel("Title", { exact: true })).toHaveValue("Revenue, day by day");
  await expectTilesDrawn(page, 2);

  // Remove the other tile, discard them: the pivot goes, the edited tile keeps what it had, and its editor shows that.
  await editor.getByLabel("Title", { exact: true }).fill("Takings");
  await page.getByRole("button", { name: "Remove tile 2" }).click();
  await page.getByRole("dialog", { name: "Tile 1 has settings not applied" }).getByRole("button", { name: "Discard them" }).click();
  await expect.poll(() => tilesInUrl(page)).toEqual([CHART.replace("|Revenue trend", "|Revenue, day by day")]);
  await expect(editor.getByLabel("Title", { exact: true })).toHaveValue("Revenue, day by day");

  // Moving a tile, apply them: the move and the settings both land, and the editor follows its tile.
  await page.getByLabel("New tile").selectOption("kpi");
  await page.getByRole("button", { name: "Add tile" }).click();
  await expect.poll(() => tilesInUrl(page).length).toBe(2);
  await page.getByRole("region", { name: "Tile 2 settings" }).getByRole("button", { name: "Cancel" }).click();
  await page.getByRole("button", { name: "Edit tile 1" }).click();
  await editor.getByLabel("Title", { exact: true }).fill("Trend");
  await page.getByRole("button", { name: "Move tile 2 earlier" }).click();
  await page.getByRole("dialog", { name: "Tile 1 has settings not applied" }).getByRole("button", { name: "Apply them" }).click();
  await expect.poll(() => tilesInUrl(page)[1]).toBe(CHART.replace("|Revenue trend", "|Trend"));
  await expect(page.getByRole("region", { name: "Tile 2 settings" }).getByLabel("Title", { exact: true })).toHaveValue("Trend");

  // A link away from the page: asked first; kept editing, the page stays; applied, the page left and Back shows them applied.
  const editor2 = page.getByRole("region", { name: "Tile 2 settings" });
  await editor2.getByLabel("Title", { exact: true }).fill("Trend by day");
  const here = page.url();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Explore" }).click();
  await expect(asked).toBeVisible();
  await expect(asked).toContainText("Apply them before this page is left, or discard them?");
  await asked.getByRole("button", { name: "Keep editing" }).click();
  expect(page.url()).toBe(here);
  await expect(editor2.getByLabel("Title", { exact: true })).toHaveValue("Trend by day");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Explore" }).click();
  await asked.getByRole("button", { name: "Apply them" }).click();
  await expect(page).toHaveURL(/\/explore(\?|$)/);
  await page.goBack();
  await expect(page).toHaveURL(/\/dashboards\/new\?/);
  await expect.poll(() => tilesInUrl(page)[1]).toBe(CHART.replace("|Revenue trend", "|Trend by day"));
});

test("closing or reloading the page while a tile's settings are not applied gets the browser's own question; with none it closes unasked", async ({ browser }) => {
  const context = await browser.newContext({ storageState: authFile("analyst") });
  const page = await context.newPage();
  await page.goto(START);
  await expectTilesDrawn(page, 3);
  await page.getByRole("button", { name: "Edit tiles" }).click();
  await page.getByRole("button", { name: "Edit tile 3" }).click();
  const title = page.getByRole("region", { name: "Tile 3 settings" }).getByLabel("Title", { exact: true });
  await title.click();
  await title.press("End");
  await page.keyboard.type(" (kept)");
  const asked: string[] = [];
  page.on("dialog", (d) => {
    asked.push(d.type());
    void d.dismiss();
  });
  // Dismissed, the page stays, and so does what the editor holds.
  await page.close({ runBeforeUnload: true });
  await expect.poll(() => asked).toEqual(["beforeunload"]);
  expect(page.isClosed()).toBe(false);
  await expect(title).toHaveValue("Revenue by month (kept)");
  // Applied: nothing is pending, and the page closes without a question.
  await page.getByRole("region", { name: "Tile 3 settings" }).getByRole("button", { name: "Apply to tile 3" }).click();
  await expect.poll(() => tilesInUrl(page)[2]).toBe(PIVOT.replace("|Revenue by month", "|Revenue by month (kept)"));
  const closed = page.waitForEvent("close");
  await page.close({ runBeforeUnload: true });
  await closed;
  expect(asked).toEqual(["beforeunload"]);
  await context.close();
});

test("on a phone, a pinning tile's badges are on screen and inside it", async ({ browser }) => {
  const context = await browser.newContext({ storageState: authFile("analyst"), viewport: { width: 390, height: 844 }, isMobile: true });
  const page = await context.newPage();
  await page.goto(START);
  await expectTilesDrawn(page, 3);
  const badges = tile(page, 3).getByTestId("tile-keeps").locator("li");
  await expect(badges).toHaveText(["Keeps its own range: last 90 days", "Keeps its own grain: by month"]);
  await badges.first().scrollIntoViewIfNeeded();
  const box = await badges.first().boundingBox();
  const card = await tile(page, 3).boundingBox();
  expect(box && card).toBeTruthy();
  expect(box!.x).toBeGreaterThanOrEqual(card!.x);
  expect(box!.x + box!.width).toBeLessThanOrEqual(Math.min(card!.x + card!.width, 390));
  await context.close();
});

test("a shared report switched to Last 7 days is read by week, not one partial month, and says so", async ({ page, browser }) => {
  const params = "op=orders&range=last90&by=date&grain=month&m=revenue";
  const saved = await page.request.post("/api/saved-reports", { data: { name: `Monthly revenue ${Date.now()}`, page: "explore", params } });
  expect(saved.status(), await saved.text()).toBe(201);
  const { report } = (await saved.json()) as { report: { id: string } };
  const res = await page.request.post(`/api/saved-reports/${report.id}/links`, { data: { mode: "live", allowed_presets: ["last7"] } });
  expect(res.status(), await res.text()).toBe(201);
  const url = new URL(((await res.json()) as { url: string }).url, "http://localhost");
  const visitor = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const view = await visitor.newPage();
  await view.goto(`${url.pathname}?preset=last7`);
  await expect(view.getByTestId("share-periods")).toContainText("By week, not by month: the range's 7 days are shorter than a month", { timeout: TILES_TIMEOUT });
  await view.goto(url.pathname);
  await expect(view.getByTestId("share-periods")).not.toContainText("By week", { timeout: TILES_TIMEOUT });
  await visitor.close();
});

test("the tile editor picks with Explore's pickers, and a pasted link still works, each following the other", async ({ page }) => {
  await page.goto(START);
  await expectTilesDrawn(page, 3);
  await page.getByRole("button", { name: "Edit tiles" }).click();
  await page.getByRole("button", { name: "Edit tile 2" }).click();
  const editor = page.getByRole("region", { name: "Tile 2 settings" });
  const pickers = editor.getByTestId("tile-pickers");
  await expect(pickers.getByRole("group", { name: /Group by/ })).toContainText("Date");
  const link = editor.getByLabel("Explore report (link or query string)");
  // A pasted link: the pickers show what it says.
  await link.fill("http://localhost/explore?op=orders&range=last30&by=date&m=revenue&chart=bar");
  await expect(pickers.getByLabel("Chart", { exact: true })).toHaveValue("bar");
  // A picker: the link's text says what was picked.
  await pickers.getByLabel("Chart", { exact: true }).selectOption("line");
  await expect(link).toHaveValue(/(^|&)chart=line(&|$)/);
  await editor.getByRole("button", { name: "Apply to tile 2" }).click();
  await expect.poll(() => tilesInUrl(page)[1]).toMatch(/^chart\.3\|op=orders&.*chart=line.*\|Revenue trend$/);
  await expectTilesDrawn(page, 3);
});
