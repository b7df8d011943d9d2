/**
 * Dashboards against the real service: an analyst builds a small dashboard with the
 * keyboard alone (edit mode, add a tile and apply its editor, move, widen, remove), every step
 * visible in the URL's `t` parameters and in the grid's order; saves it and finds it listed as theirs;
 * shares it, and a manager without an account opens the link on a phone and sees every tile, the same
 * KPI value, nothing wider than the screen; a viewer reads it but cannot edit its tiles; and a link
 * the page cannot apply exactly is named and runs nothing.
 *
 * Kept small on purpose: two tiles over the same 30 days plan into a few upstream calls (the e2e
 * quota is 5 calls per 10 s). The later tests use the dashboard the first one saved, or save the
 * same one through the API when they run alone.
 */
import { expect, test, type Locator, type Page } from "./support/test";
import { encodeTile, newTile } from "@/lib/report/state/dashboard";
import { authFile, e2eEnv } from "./support/env";
import { expectNoSeriousA11yViolations, screenshots } from "./support/helpers";

test.use({ storageState: authFile("analyst") });

/** A cold dashboard waits for its queries' turn in the upstream queue. */
const TILES_TIMEOUT = 60_000;

const KPI = "kpi.1|op=orders&range=last30&by=date&m=revenue|";
const TABLE = "table.2|op=orders&range=last30&by=gateway_alias&m=revenue,attempts,approvals&kpi=approval_rate&sort=-revenue|";
const TABLE_WIDER = TABLE.replace(/^table\.2\|/, "table.3|");
/** What "Add tile" makes of a chart, before and after its editor gives it a title. */
const CHART = encodeTile(newTile("chart"));
const CHART_TITLE = "Revenue trend";
const CHART_TITLED = encodeTile({ ...newTile("chart"), title: CHART_TITLE });
const START = `/dashboards/new?range=last30&${[KPI, TABLE].map((t) => `t=${encodeURIComponent(t)}`).join("&")}`;

/** What the first test built, for the ones after it. */
const built = { id: "", name: "", kpiValue: "", kpiTitle: "", tableTitle: "" };

/** The dashboard the first test ends with: saved through the API when that test did not run here. */
async function builtDashboard(page: Page): Promise<typeof built> {
  if (built.id) return built;
  const name = `API dashboard ${Date.now()}`;
  const params = `range=last30&${[TABLE_WIDER, KPI].map((t) => `t=${encodeURIComponent(t)}`).join("&")}`;
  const res = await page.request.post("/api/saved-reports", { data: { name, page: "dashboard", params } });
  expect(res.status()).toBe(201);
  const id = ((await res.json()) as { report: { id: string } }).report.id;
  await page.goto(`/dashboards/${id}`);
  await expectTilesDrawn(page, 2);
  const [tableTitle, kpiTitle] = await headings(page).allTextContents();
  Object.assign(built, { id, name, kpiValue: (await page.getByTestId("kpi-value").innerText()).trim(), kpiTitle: kpiTitle!, tableTitle: tableTitle! });
  return built;
}

const tilesInUrl = (page: Page) => new URL(page.url()).searchParams.getAll("t");
const grid = (page: Page) => page.getByTestId("dashboard-grid");
const headings = (page: Page) => grid(page).locator("article > header > h2");
/** Every tile of the grid drawn (none waiting, failed or not run). */
async function expectTilesDrawn(page: Page, count: number): Promise<void> {
  await expect(grid(page).locator("article")).toHaveCount(count, { timeout: TILES_TIMEOUT });
  await expect(grid(page).locator("article[data-status=done]")).toHaveCount(count, { timeout: TILES_TIMEOUT });
}

/** Moves the keyboard focus to `target` with Tab (or Shift+Tab) only; fails when it is not reachable. */
async function tabTo(page: Page, target: Locator, { back = false, max = 200 } = {}): Promise<void> {
  await expect(target).toBeVisible();
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
  }
  await expect(target, `reachable with ${back ? "Shift+Tab" : "Tab"} in ${max} presses`).toBeFocused({ timeout: 1 });
}

test("build a dashboard by keyboard", async ({ page }) => {
  const { users } = e2eEnv();
  await page.goto(START);
  // Wait for a drawn result before touching any control (hydration would swallow earlier input).
  await expectTilesDrawn(page, 2);
  await expect(page.getByTestId("kpi-value")).toBeVisible();
  const [kpiTitle, tableTitle] = await headings(page).allTextContents();
  expect(kpiTitle).toBe("Revenue");
  expect(tableTitle).toBe("Revenue by gateway");
  built.kpiTitle = kpiTitle!;
  built.tableTitle = tableTitle!;
  expect(tilesInUrl(page)).toEqual([KPI, TABLE]);

  // Edit mode, by keyboard from the settings form's button.
  await page.getByRole("button", { name: "Apply to every tile" }).focus();
  await tabTo(page, page.getByRole("button", { name: "Edit tiles" }));
  await page.keyboard.press("Enter");
  const done = page.getByRole("button", { name: "Done editing" });
  await expect(done).toHaveAttribute("aria-pressed", "true");
  await expect(done).toBeFocused();
  expect(tilesInUrl(page)).toEqual([KPI, TABLE]);

  // A new chart tile: its kind chosen in the select with an arrow key, added with Space.
  const kindSelect = page.getByLabel("New tile", { exact: true });
  await tabTo(page, kindSelect);
  await expect(kindSelect).toHaveValue("kpi");
  await page.keyboard.press("ArrowDown");
  await expect(kindSelect).toHaveValue("chart");
  await tabTo(page, page.getByRole("button", { name: "Add tile" }));
  await page.keyboard.press("Space");
  await expect.poll(() => tilesInUrl(page)).toEqual([KPI, TABLE, CHART]);
  await expect(headings(page)).toHaveCount(3, { timeout: TILES_TIMEOUT });
  await expect(headings(page).nth(0)).toHaveText(kpiTitle!);
  await expect(headings(page).nth(1)).toHaveText(tableTitle!);
  await expect(page.getByText("Chart added as tile 3.")).toBeAttached();

  // Its editor opened with it: give it a title and apply.
  const editor = page.getByRole("region", { name: "Tile 3 settings" });
  await expect(editor).toBeVisible();
  await expect(editor.getByLabel("Shows")).toHaveValue("chart");
  await expect(editor.getByLabel("Width (columns of 4)")).toHaveValue("4");
  await expectNoSeriousA11yViolations(page); // edit mode, with the tile editor open
  await tabTo(page, editor.getByLabel("Title", { exact: true }));
  await page.keyboard.type(CHART_TITLE);
  await tabTo(page, editor.getByRole("button", { name: "Apply to tile 3" }));
  await page.keyboard.press("Enter");
  await expect(editor).toBeHidden();
  await expect.poll(() => tilesInUrl(page)).toEqual([KPI, TABLE, CHART_TITLED]);
  await expect(headings(page)).toHaveText([kpiTitle!, tableTitle!, CHART_TITLE], { timeout: TILES_TIMEOUT });
  await expect(grid(page).locator("article").nth(2).locator("svg").first()).toBeVisible({ timeout: TILES_TIMEOUT }); // the chart, drawn
  await screenshots(page, "dashboard-edit-chart");

  // Move the KPI (tile 1) later.
  await tabTo(page, page.getByRole("button", { name: "Move tile 1 later" }));
  await page.keyboard.press("Enter");
  await expect.poll(() => tilesInUrl(page)).toEqual([TABLE, KPI, CHART_TITLED]);
  await expect(headings(page)).toHaveText([tableTitle!, kpiTitle!, CHART_TITLE], { timeout: TILES_TIMEOUT });
  await expect(page.getByText("Tile moved to place 2.")).toBeAttached();

  // Make the table, now tile 1, wider: 2 columns of 4 become 3.
  await tabTo(page, page.getByRole("button", { name: "Make tile 1 wider" }));
  await page.keyboard.press("Space");
  await expect.poll(() => tilesInUrl(page)).toEqual([TABLE_WIDER, KPI, CHART_TITLED]);
  await expect(headings(page)).toHaveText([tableTitle!, kpiTitle!, CHART_TITLE], { timeout: TILES_TIMEOUT });
  await expect(grid(page).locator("article").first()).toHaveClass(/lg:col-span-3/);

  // Remove the chart (tile 3).
  await tabTo(page, page.getByRole("button", { name: "Remove tile 3" }));
  await page.keyboard.press("Enter");
  await expect.poll(() => tilesInUrl(page)).toEqual([TABLE_WIDER, KPI]);
  await expect(headings(page)).toHaveText([tableTitle!, kpiTitle!], { timeout: TILES_TIMEOUT });
  await expect(page.getByText("Tile 3 removed.")).toBeAttached();
  await expectTilesDrawn(page, 2);

  // Save it under a name (the naming dialog, its field focused), and land on its own page.
  const name = `Keyboard dashboard ${Date.now()}`;
  await tabTo(page, page.getByRole("button", { name: "Save dashboard…" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("dialog", { name: "Save this dashboard" }).getByRole("textbox", { name: "Name" })).toBeFocused();
  await page.keyboard.type(name);
  await page.keyboard.press("Enter");
  await page.waitForURL(/\/dashboards\/(?!new)[^/?]+\?/);
  const id = new URL(page.url()).pathname.split("/").at(-1)!;
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  await expect(page.getByText(`By ${users.analyst.email}`)).toBeVisible();
  expect(tilesInUrl(page)).toEqual([TABLE_WIDER, KPI]);
  await expectTilesDrawn(page, 2);
  await expect(headings(page)).toHaveText([tableTitle!, kpiTitle!]);
  await expect(page.getByText("Changed since it was saved.")).toHaveCount(0);
  built.id = id;
  built.name = name;
  built.kpiValue = (await page.getByTestId("kpi-value").innerText()).trim();
  expect(built.kpiValue).not.toBe("");
  await expectNoSeriousA11yViolations(page);

  // Listed on /dashboards, owned by the analyst.
  await page.goto("/dashboards");
  const item = page.getByRole("listitem").filter({ has: page.getByRole("link", { name, exact: true }) });
  await expect(item).toHaveCount(1);
  await expect(item.getByRole("link", { name, exact: true })).toHaveAttribute("href", `/dashboards/${id}`);
  await expect(item).toContainText(`Dashboard · by ${users.analyst.email}`);
  await expectNoSeriousA11yViolations(page);
});

test("share it and open it signed out on a phone", async ({ page, browser }) => {
  await builtDashboard(page);
  await page.goto(`/dashboards/${built.id}`);
  await expectTilesDrawn(page, 2);
  await expect(page.getByTestId("kpi-value")).toHaveText(built.kpiValue);

  await page.getByRole("button", { name: "Share links" }).click();
  await page.getByRole("button", { name: "Create share link" }).click();
  const urlBox = page.getByRole("textbox", { name: "New share link URL" });
  await expect(urlBox).toHaveValue(/\/share\/[A-Za-z0-9_-]{43}$/);
  const shareUrl = await urlBox.inputValue();

  const manager = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, storageState: { cookies: [], origins: [] } });
  try {
    const phone = await manager.newPage();
    await phone.goto(shareUrl);
    await expect(phone.getByRole("heading", { level: 1, name: built.name })).toBeVisible();
    for (const title of [built.tableTitle, built.kpiTitle]) await expect(phone.getByRole("article", { name: title, exact: true })).toBeVisible();
    await expect(phone.locator("article > header > h2")).toHaveText([built.tableTitle, built.kpiTitle]);
    // Drawn at once from the answers the analyst's look left in the cache.
    await expect(phone.locator("article[data-status=done]")).toHaveCount(2, { timeout: TILES_TIMEOUT });
    await expect(phone.getByTestId("kpi-value")).toHaveText(built.kpiValue);
    const overflow = await phone.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
    expect(overflow.scrollWidth, "no sideways scrolling of the page on a phone").toBeLessThanOrEqual(overflow.innerWidth);
    await expectNoSeriousA11yViolations(phone);
    await screenshots(phone, "dashboard-share");
  } finally {
    await manager.close();
  }
});

test("a warm saved dashboard is drawn into the page's HTML: no script, no look after hydration", async ({ page, browser }) => {
  await builtDashboard(page);
  const noScript = await browser.newContext({ storageState: authFile("analyst"), javaScriptEnabled: false });
  try {
    const html = await noScript.newPage();
    await html.goto(`/dashboards/${built.id}`);
    await expect(headings(html)).toHaveText([built.tableTitle, built.kpiTitle]);
    await expect(grid(html).locator("article[data-status=done]")).toHaveCount(2);
    await expect(html.getByTestId("kpi-value")).toHaveText(built.kpiValue);
    // Without a script too, the bare link was redirected to the saved settings: the URL says what the page shows.
    expect(new URL(html.url()).searchParams.getAll("t")).toEqual([TABLE_WIDER, KPI]);
  } finally {
    await noScript.close();
  }

  // With scripts, the page hydrates onto that answer and asks the run route nothing more.
  const runs: string[] = [];
  page.on("request", (r) => {
    if (new URL(r.url()).pathname === "/api/dashboards/run") runs.push(r.url());
  });
  // The tiles' code comes after the page's: the tiles the server drew must stay until it hydrates
  // them, not be dropped and drawn again (nor left behind, hidden, beside a second drawing).
  await page.addInitScript(() => {
    addEventListener("DOMContentLoaded", () => {
      (window as unknown as { serverTile: Element | null }).serverTile = document.querySelector("[data-testid=dashboard-grid] article");
    });
  });
  await page.goto(`/dashboards/${built.id}`);
  await expectTilesDrawn(page, 2);
  await page.waitForLoadState("networkidle");
  expect(runs).toEqual([]);
  expect(await page.evaluate(() => (window as unknown as { serverTile: Element | null }).serverTile?.isConnected)).toBe(true);
  await expect(page.locator("[data-testid=kpi-value]")).toHaveCount(1);
});

test("a viewer reads the saved dashboard without editing it; a link the page cannot apply runs nothing", async ({ page, browser }) => {
  await builtDashboard(page);
  // A viewer sees the team's dashboards: the analyst shares this one with the team first.
  await page.goto("/dashboards");
  const item = page.getByRole("listitem").filter({ has: page.getByRole("link", { name: built.name, exact: true }) });
  await item.getByRole("button", { name: "Share with team" }).click();
  await expect(item.getByRole("button", { name: "Stop sharing with team" })).toBeVisible();

  const viewerContext = await browser.newContext({ storageState: authFile("viewer") });
  try {
    const viewer = await viewerContext.newPage();
    await viewer.goto(`/dashboards/${built.id}`);
    await expect(viewer.getByRole("heading", { level: 1, name: built.name })).toBeVisible();
    await expectTilesDrawn(viewer, 2);
    await expect(headings(viewer)).toHaveText([built.tableTitle, built.kpiTitle]);
    await expect(viewer.getByTestId("kpi-value")).toHaveText(built.kpiValue);
    await expect(viewer.getByRole("button", { name: "Edit tiles" })).toHaveCount(0);
    await expect(viewer.getByRole("button", { name: /^(Save|Duplicate…|Save dashboard…|Share links)$/ })).toHaveCount(0);
    await expect(viewer.getByRole("button", { name: /tile \d/ })).toHaveCount(0);
  } finally {
    await viewerContext.close();
  }

  // An unknown tile kind: named, and no look at the dashboard is asked for.
  const runs: string[] = [];
  page.on("request", (r) => {
    if (new URL(r.url()).pathname === "/api/dashboards/run") runs.push(r.url());
  });
  await page.goto(`/dashboards/new?range=last30&t=${encodeURIComponent("gauge.1|x|")}`);
  const alert = page.getByRole("alert").filter({ hasText: "This link asks for something the report cannot apply exactly" });
  await expect(alert).toBeVisible();
  await expect(alert).toContainText("t1");
  await expect(alert).toContainText("gauge");
  await page.waitForLoadState("networkidle");
  expect(runs).toEqual([]);
  await expect(grid(page)).toHaveCount(0);
  await expect(page.getByText("Planning the tiles' queries…")).toHaveCount(0);
});
