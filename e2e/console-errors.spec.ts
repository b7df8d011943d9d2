/**
 * Every page of the app, opened in Chromium the way its users open it (signed out, as an analyst, as
 * an admin, and a share link as a visitor), logs no console error and throws nothing: a React
 * hydration mismatch (#418), a failed request or an uncaught exception fails the page it happens on.
 *
 * In a browser set up like the server, the colour-scheme sweep (e2e/dark-mode.spec.ts) opens the
 * main pages four times over (two schemes, two sizes) and checks each for errors the same way; this
 * file opens every other page and way in, and checks that the two together open every page of app/,
 * so a new page without a visit fails. In a browser set up unlike the server it opens them all.
 */
import { expect, test, type Browser, type BrowserContextOptions } from "./support/test";
import { appRoutes, listenForErrors, makeSweepData, otherVisits, schemeVisits, stateOf, type Visit } from "./support/page-visits";

/**
 * A reader whose browser is set up unlike the server (another language, another time zone, a clock
 * on another day): a page that formats with the browser's locale, zone or clock during its first
 * render draws other text than the server did.
 */
const FAR_AWAY: BrowserContextOptions = { locale: "de-DE", timezoneId: "Pacific/Kiritimati" };

// The two browser setups are independent sweeps, each with its own report, dashboard and link, so
// the two workers share them.
test.describe.configure({ mode: "parallel" });

/** What each visit logged as an error while it loaded, hydrated and settled, in a browser set up like the server's or `far` from it. */
async function sweep(browser: Browser, visits: Visit[], far: boolean): Promise<string[]> {
  const found: string[] = [];
  for (const v of visits) {
    const context = await browser.newContext({ storageState: stateOf[v.who], ...(far ? FAR_AWAY : {}) });
    // Its clock a day and a half ahead of the server's: a render that reads the browser's clock differs.
    if (far) await context.clock.setFixedTime(Date.now() + 36 * 3_600_000);
    const page = await context.newPage();
    const errors = listenForErrors(page);
    const res = await page.goto(v.path);
    expect(res?.status(), `${v.path} as ${v.who}`).toBeLessThan(400);
    await v.ready(page);
    const logged = await errors.settled(Date.now());
    await context.close();
    found.push(...logged.map((e) => `${v.route} (${v.name}, ${v.who}${far ? `, ${FAR_AWAY.locale} in ${FAR_AWAY.timezoneId}` : ""}): ${e}`));
  }
  return found;
}

test("no page logs a console error or throws, signed in as who opens it", async ({ browser }) => {
  test.setTimeout(420_000);
  const data = await makeSweepData(browser, "Console sweep");
  const routes = new Set([...schemeVisits(data), ...otherVisits(data)].map((v) => v.route));
  expect([...routes].sort(), "every page of app/ is opened, here or by the colour-scheme sweep").toEqual(appRoutes().sort());
  expect(await sweep(browser, otherVisits(data), false)).toEqual([]);
});

test(`no page logs a console error or throws in a browser set up unlike the server (${FAR_AWAY.locale}, ${FAR_AWAY.timezoneId}, its clock a day and a half ahead)`, async ({ browser }) => {
  test.setTimeout(420_000);
  const data = await makeSweepData(browser, "Console sweep, far");
  // Each page once, but the warm dashboard's second look, which is a way in of its own.
  const seen = new Set<string>();
  const visits = [...otherVisits(data), ...schemeVisits(data)].filter((v) => {
    const key = `${v.who} ${v.path} ${v.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  expect(await sweep(browser, visits, true)).toEqual([]);
});
