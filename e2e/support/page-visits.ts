/**
 * Every page of the app, opened the way its users open it, for the two sweeps that open them all:
 * the colour-scheme sweep (e2e/dark-mode.spec.ts: its pages in both schemes at both sizes, under axe,
 * each checked for console errors too) and the console sweep (e2e/console-errors.spec.ts: the other
 * pages and ways in, and every page again in a browser set up unlike the server). Together they open
 * every page.tsx of app/, which the console sweep checks against the folder.
 */
import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { expect, type APIRequestContext, type Browser, type BrowserContextOptions, type Page } from "./test";
import { authFile } from "./env";
import { serializeDashboard, starterDashboard } from "@/lib/report/state/dashboard";

export type Who = "visitor" | "analyst" | "admin";

export const stateOf: Record<Who, BrowserContextOptions["storageState"]> = {
  visitor: { cookies: [], origins: [] },
  analyst: authFile("analyst"),
  admin: authFile("admin"),
};

export interface Visit {
  /** The page.tsx it opens, as its route pattern ("/dashboards/[id]"). */
  route: string;
  name: string;
  who: Who;
  path: string;
  ready: (page: Page) => Promise<void>;
}

/** How long after a page is ready its console is still listened to: hydration and the first effects run after load, and their errors come within moments of it. */
export const SETTLE_MS = 1_500;

/**
 * Each page.tsx of app/, as its route pattern. The print views are left out: no person opens them,
 * the PDF renderer does, with a print token in a header (e2e/pdf.spec.ts prints through them and
 * checks they open nothing without one).
 */
export function appRoutes(dir = "app"): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (path === join("app", "print")) continue;
    if (statSync(path).isDirectory()) out.push(...appRoutes(path));
    else if (name === "page.tsx") out.push(`/${relative("app", dir).split(sep).join("/")}`.replace(/\/$/, "") || "/");
  }
  return out;
}

/** What the colour-scheme sweep opens beyond the fixed pages: a saved dashboard and a live link to it. */
export interface SchemeData {
  dashboardId: string;
  sharePath: string;
}

/** What the console sweep opens besides: a saved report too. */
export interface SweepData extends SchemeData {
  reportId: string;
}

async function asAnalyst<T>(browser: Browser, run: (api: APIRequestContext) => Promise<T>): Promise<T> {
  const context = await browser.newContext({ storageState: stateOf.analyst });
  try {
    return await run(context.request);
  } finally {
    await context.close();
  }
}

async function save(api: APIRequestContext, label: string, page: string, params: string): Promise<string> {
  const res = await api.post("/api/saved-reports", { data: { name: `${label} ${page} ${Date.now()}`, page, params } });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { report: { id: string } }).report.id;
}

/** A saved starter dashboard (a tile of every kind: KPIs, chart, tables, pivot, cohort grid, so each kind's server-drawn HTML is hydrated) and a live link to it. */
async function dashboardAndLink(api: APIRequestContext, label: string): Promise<SchemeData> {
  const dashboardId = await save(api, label, "dashboard", serializeDashboard(starterDashboard()));
  const link = await api.post(`/api/saved-reports/${dashboardId}/links`, { data: { mode: "live" } });
  expect(link.status()).toBe(201);
  const shareUrl = new URL(((await link.json()) as { url: string }).url, "http://localhost");
  return { dashboardId, sharePath: shareUrl.pathname + shareUrl.search };
}

/** What the colour-scheme sweep opens, saved by the analyst. */
export const makeSchemeData = (browser: Browser, label: string): Promise<SchemeData> => asAnalyst(browser, (api) => dashboardAndLink(api, label));

/** What the console sweep opens, saved by the analyst: the scheme sweep's and an Explore report. */
export const makeSweepData = (browser: Browser, label: string): Promise<SweepData> =>
  asAnalyst(browser, async (api) => ({
    ...(await dashboardAndLink(api, label)),
    reportId: await save(api, label, "explore", "op=orders&range=last7&by=date&m=revenue"),
  }));

export const heading = (page: Page) => expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();

export const tilesDrawn = async (page: Page) => {
  const grid = page.getByTestId("dashboard-grid");
  await expect(grid.locator("article").first()).toBeVisible({ timeout: 60_000 });
  await expect(grid.locator("article:not([data-status=done])")).toHaveCount(0, { timeout: 120_000 });
};

/** The main pages, the admin's, a shared dashboard opened by a visitor and the sign-in page: what the colour-scheme sweep opens in both schemes at both sizes. */
export function schemeVisits(d: SchemeData): Visit[] {
  return [
    { route: "/", name: "home", who: "analyst", path: "/", ready: heading },
    {
      route: "/explore",
      name: "explore",
      who: "analyst",
      path: "/explore?op=orders&range=last7&by=date&m=revenue",
      ready: async (p) => {
        await expect(p.getByRole("row", { name: "Totals" })).toBeVisible({ timeout: 60_000 });
        await expect(p.locator(".recharts-surface").first()).toBeVisible();
      },
    },
    { route: "/dashboards", name: "dashboards", who: "analyst", path: "/dashboards", ready: heading },
    { route: "/dashboards/[id]", name: "dashboard", who: "analyst", path: `/dashboards/${d.dashboardId}`, ready: tilesDrawn },
    { route: "/monitor", name: "monitor", who: "analyst", path: "/monitor", ready: async (p) => expect(p.getByRole("status", { name: "Breaches", exact: true })).toBeVisible({ timeout: 60_000 }) },
    { route: "/bin-lookup", name: "bin-lookup", who: "analyst", path: "/bin-lookup", ready: heading },
    { route: "/alerts", name: "alerts", who: "analyst", path: "/alerts", ready: heading },
    { route: "/cohorts", name: "cohorts", who: "analyst", path: "/cohorts", ready: heading },
    { route: "/reports", name: "reports", who: "analyst", path: "/reports", ready: heading },
    { route: "/definitions", name: "definitions", who: "analyst", path: "/definitions", ready: heading },
    { route: "/inbox", name: "inbox", who: "analyst", path: "/inbox", ready: heading },
    { route: "/users", name: "users", who: "admin", path: "/users", ready: heading },
    { route: "/audit", name: "audit", who: "admin", path: "/audit", ready: heading },
    { route: "/share/[token]", name: "share", who: "visitor", path: d.sharePath, ready: tilesDrawn },
    { route: "/login", name: "login", who: "visitor", path: "/login", ready: (p) => expect(p.getByLabel("E-mail")).toBeVisible() },
  ];
}

/** Every other page, and other ways into the scheme sweep's: what only the console sweep opens. */
export function otherVisits(d: SweepData): Visit[] {
  return [
    { route: "/login/refused", name: "refused", who: "visitor", path: "/login/refused?reason=no_group", ready: heading },
    { route: "/explore", name: "explore, empty", who: "analyst", path: "/explore", ready: heading },
    { route: "/routing", name: "routing", who: "analyst", path: "/routing", ready: heading },
    { route: "/routing", name: "routing", who: "admin", path: "/routing", ready: heading },
    { route: "/reports/[id]", name: "saved report", who: "analyst", path: `/reports/${d.reportId}`, ready: heading },
    { route: "/dashboards/new", name: "new dashboard", who: "analyst", path: "/dashboards/new", ready: heading },
    { route: "/dashboards/[id]", name: "dashboard", who: "analyst", path: `/dashboards/${d.dashboardId}`, ready: tilesDrawn },
    // A second look at a warm dashboard is drawn into the page's HTML, then hydrated.
    { route: "/dashboards/[id]", name: "dashboard, second look", who: "analyst", path: `/dashboards/${d.dashboardId}`, ready: tilesDrawn },
    { route: "/dashboards/[id]", name: "dashboard", who: "admin", path: `/dashboards/${d.dashboardId}`, ready: tilesDrawn },
    { route: "/mail", name: "mail", who: "admin", path: "/mail", ready: heading },
  ];
}

/**
 * Collects what a page logs as an error and throws from the moment it is made; `settled` then waits
 * until SETTLE_MS after `readyAt` and returns them.
 */
export function listenForErrors(page: Page): { settled: (readyAt: number) => Promise<string[]> } {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  return {
    settled: async (readyAt) => {
      const left = readyAt + SETTLE_MS - Date.now();
      if (left > 0) await page.waitForTimeout(left);
      return errors;
    },
  };
}
