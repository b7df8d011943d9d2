/**
 * Every page of the app, opened in Chromium the way its users open it (signed out, as an analyst, as
 * an admin, and a share link as a visitor), logs no console error and throws nothing: a React
 * hydration mismatch (#418), a failed request or an uncaught exception fails the page it happens on.
 *
 * The pages are those of app/ (every page.tsx); the list is checked against the folder, so a new
 * page without a visit here fails too.
 */
import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { expect, test, type Browser, type BrowserContextOptions, type Page } from "./support/test";
import { authFile } from "./support/env";
import { serializeDashboard, starterDashboard } from "@/lib/report/state/dashboard";

/**
 * Each page.tsx of app/, as its route pattern ("/dashboards/[id]"). The print views are left out:
 * no person opens them, the PDF renderer does, with a print token in a header (e2e/pdf.spec.ts
 * prints through them and checks they open nothing without one).
 */
function appRoutes(dir = "app"): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (path === join("app", "print")) continue;
    if (statSync(path).isDirectory()) out.push(...appRoutes(path));
    else if (name === "page.tsx") out.push(`/${relative("app", dir).split(sep).join("/")}`.replace(/\/$/, "") || "/");
  }
  return out;
}

type Who = "visitor" | "analyst" | "admin";
const stateOf: Record<Who, BrowserContextOptions["storageState"]> = {
  visitor: { cookies: [], origins: [] },
  analyst: authFile("analyst"),
  admin: authFile("admin"),
};

/** What a page logged as an error while it loaded, hydrated and settled. */
async function errorsOn(browser: Browser, who: Who, path: string, ready: (page: Page) => Promise<void>, far: boolean): Promise<string[]> {
  const context = await browser.newContext({ storageState: stateOf[who], ...(far ? FAR_AWAY : {}) });
  // Its clock a day and a half ahead of the server's: a render that reads the browser's clock differs.
  if (far) await context.clock.setFixedTime(Date.now() + 36 * 3_600_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  const res = await page.goto(path);
  expect(res?.status(), `${path} as ${who}`).toBeLessThan(400);
  await ready(page);
  // Hydration and the first effects run after load; their errors come within moments of it.
  await page.waitForTimeout(1_500);
  await context.close();
  return errors;
}

/**
 * A reader whose browser is set up unlike the server (another language, another time zone, a clock
 * on another day): a page that formats with the browser's locale, zone or clock during its first
 * render draws other text than the server did.
 */
const FAR_AWAY: BrowserContextOptions = { locale: "de-DE", timezoneId: "Pacific/Kiritimati" };

const heading = (page: Page) => expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();

// The two browser setups are independent sweeps, each with its own report, dashboard and link, so
// the two workers share them.
test.describe.configure({ mode: "parallel" });

/** Every page opened as who opens it, in a browser set up like the server's or `far` from it; what each logged as an error. */
async function sweep(browser: Browser, far: boolean): Promise<string[]> {
  const analyst = await browser.newContext({ storageState: stateOf.analyst });
  const api = analyst.request;
  const saved = async (page: string, params: string) => {
    const res = await api.post("/api/saved-reports", { data: { name: `Console sweep ${page} ${Date.now()}`, page, params } });
    expect(res.status(), await res.text()).toBe(201);
    return ((await res.json()) as { report: { id: string } }).report.id;
  };
  const reportId = await saved("explore", "op=orders&range=last7&by=date&m=revenue");
  // The starter: a tile of every kind (KPIs, chart, tables, pivot, cohort grid), so each kind's
  // server-drawn HTML is hydrated.
  const dashboardId = await saved("dashboard", serializeDashboard(starterDashboard()));
  const link = await api.post(`/api/saved-reports/${dashboardId}/links`, { data: { mode: "live" } });
  expect(link.status()).toBe(201);
  const shareUrl = new URL(((await link.json()) as { url: string }).url, "http://localhost");
  await analyst.close();

  const tilesDrawn = async (page: Page) => {
    const tiles = page.getByTestId("dashboard-grid").locator("article");
    await expect(tiles.first()).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId("dashboard-grid").locator("article:not([data-status=done])")).toHaveCount(0, { timeout: 120_000 });
  };
  const visits: Record<string, { who: Who; path: string; ready: (page: Page) => Promise<void> }[]> = {
    "/": [{ who: "analyst", path: "/", ready: heading }],
    "/login": [{ who: "visitor", path: "/login", ready: (p) => expect(p.getByLabel("E-mail")).toBeVisible() }],
    "/login/refused": [{ who: "visitor", path: "/login/refused?reason=no_group", ready: heading }],
    "/explore": [{ who: "analyst", path: "/explore", ready: heading }],
    "/cohorts": [{ who: "analyst", path: "/cohorts", ready: heading }],
    "/monitor": [{ who: "analyst", path: "/monitor", ready: heading }],
    "/alerts": [{ who: "analyst", path: "/alerts", ready: heading }],
    "/inbox": [{ who: "analyst", path: "/inbox", ready: heading }],
    "/definitions": [{ who: "analyst", path: "/definitions", ready: heading }],
    "/bin-lookup": [{ who: "analyst", path: "/bin-lookup", ready: heading }],
    "/routing": [{ who: "analyst", path: "/routing", ready: heading }, { who: "admin", path: "/routing", ready: heading }],
    "/reports": [{ who: "analyst", path: "/reports", ready: heading }],
    "/reports/[id]": [{ who: "analyst", path: `/reports/${reportId}`, ready: heading }],
    "/dashboards": [{ who: "analyst", path: "/dashboards", ready: heading }],
    "/dashboards/new": [{ who: "analyst", path: "/dashboards/new", ready: heading }],
    "/dashboards/[id]": [
      { who: "analyst", path: `/dashboards/${dashboardId}`, ready: tilesDrawn },
      // A second look at a warm dashboard is drawn into the page's HTML, then hydrated.
      { who: "analyst", path: `/dashboards/${dashboardId}`, ready: tilesDrawn },
      { who: "admin", path: `/dashboards/${dashboardId}`, ready: tilesDrawn },
    ],
    "/users": [{ who: "admin", path: "/users", ready: heading }],
    "/audit": [{ who: "admin", path: "/audit", ready: heading }],
    "/mail": [{ who: "admin", path: "/mail", ready: heading }],
    "/share/[token]": [{ who: "visitor", path: shareUrl.pathname + shareUrl.search, ready: tilesDrawn }],
  };
  expect(Object.keys(visits).sort(), "every page of app/ is visited").toEqual(appRoutes().sort());

  const found: string[] = [];
  for (const [route, list] of Object.entries(visits)) {
    for (const v of list) {
      const errors = await errorsOn(browser, v.who, v.path, v.ready, far);
      found.push(...errors.map((e) => `${route} (${v.who}${far ? `, ${FAR_AWAY.locale} in ${FAR_AWAY.timezoneId}` : ""}): ${e}`));
    }
  }
  return found;
}

test("no page logs a console error or throws, signed in as who opens it", async ({ browser }) => {
  test.setTimeout(420_000);
  expect(await sweep(browser, false)).toEqual([]);
});

test(`no page logs a console error or throws in a browser set up unlike the server (${FAR_AWAY.locale}, ${FAR_AWAY.timezoneId}, its clock a day and a half ahead)`, async ({ browser }) => {
  test.setTimeout(420_000);
  expect(await sweep(browser, true)).toEqual([]);
});
