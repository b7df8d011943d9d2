/**
 * The colour scheme in Chromium. With the system's scheme emulated as dark, the pages (the main ones,
 * the admin's users and audit log, a shared dashboard opened by a visitor, the sign-in page) are dark
 * from their first paint without any press; in both schemes, at desktop and phone width, axe finds no
 * serious or critical violation on any of them (colour contrast among them), and nothing is logged as
 * a console error (a hydration mismatch would be) until 1.5 s after the page is ready, as the console
 * sweep (e2e/console-errors.spec.ts) checks the pages this one does not open. The nav's System /
 * Light / Dark toggle switches at once, is kept across reloads and for the pages without the nav, and
 * System follows the system while a page is open. Printing stays light.
 */
import { expect, test, type Page, type TestInfo } from "./support/test";
import { seriousA11yViolations } from "./support/helpers";
import { heading, listenForErrors, makeSchemeData, schemeVisits, stateOf } from "./support/page-visits";

type Scheme = "light" | "dark";

// Each test makes its own saved dashboard and contexts: the sweep's workers share them out.
test.describe.configure({ mode: "parallel" });

const VIEWPORTS = { desktop: { width: 1440, height: 900 }, phone: { width: 390, height: 844 } } as const;

/**
 * Records, as the page is parsed, whether <html> was already dark when <body> began: the scheme is
 * then in place for the first paint (a script run after parsing would leave it unset here).
 */
const RECORD_SCHEME_AT_BODY = () => {
  const seen = (w: Window & { __schemeAtBody?: string }) => {
    if (w.__schemeAtBody === undefined && document.body) w.__schemeAtBody = document.documentElement.classList.contains("dark") ? "dark" : "light";
  };
  new MutationObserver((_, observer) => {
    seen(window);
    if (document.body) observer.disconnect();
  }).observe(document, { childList: true, subtree: true });
};

/**
 * What the page looks like under its scheme: <html>'s class, and the body's background and text as
 * painted (sRGB relative luminance, whatever colour syntax the browser computes).
 */
async function schemeOf(page: Page): Promise<{ atBody: string | undefined; dark: boolean; luminance: number; textLuminance: number }> {
  return page.evaluate(() => {
    const luminance = (colour: string) => {
      const canvas = document.createElement("canvas");
      canvas.width = canvas.height = 1;
      const ctx = canvas.getContext("2d")!;
      ctx.fillStyle = colour;
      ctx.fillRect(0, 0, 1, 1);
      const [r, g, b] = Array.from(ctx.getImageData(0, 0, 1, 1).data).map((c) => {
        const s = c / 255;
        return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      }) as [number, number, number];
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const body = getComputedStyle(document.body);
    return {
      atBody: (window as Window & { __schemeAtBody?: string }).__schemeAtBody,
      dark: document.documentElement.classList.contains("dark"),
      luminance: luminance(body.backgroundColor),
      textLuminance: luminance(body.color),
    };
  });
}

async function expectScheme(page: Page, scheme: Scheme, where: string): Promise<void> {
  // A change of the system's scheme reaches the page as an event, a moment after it is emulated.
  await expect.poll(async () => (await schemeOf(page)).dark, { message: `${where}: <html> dark` }).toBe(scheme === "dark");
  const s = await schemeOf(page);
  if (scheme === "dark") {
    expect(s.luminance, `${where}: the page's background is dark`).toBeLessThan(0.02);
    expect(s.textLuminance, `${where}: the text is light`).toBeGreaterThan(0.8);
  } else {
    expect(s.luminance, `${where}: the page's background is light`).toBeGreaterThan(0.9);
    expect(s.textLuminance, `${where}: the text is dark`).toBeLessThan(0.05);
  }
}

/** A full-page screenshot, kept in the test's output folder and attached to its result. */
async function png(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(name);
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach(name, { path, contentType: "image/png" });
}

for (const scheme of ["dark", "light"] as const) {
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    test(`with the system in ${scheme}, the main pages at ${size} size are ${scheme} from the first paint, pass axe, log no error`, async ({ browser }, testInfo) => {
      test.setTimeout(600_000);
      const visits = schemeVisits(await makeSchemeData(browser, "Dark mode"));
      const problems: string[] = [];
      for (const v of visits) {
        const context = await browser.newContext({ storageState: stateOf[v.who], colorScheme: scheme, viewport });
        await context.addInitScript(RECORD_SCHEME_AT_BODY);
        const page = await context.newPage();
        const errors = listenForErrors(page);
        const res = await page.goto(v.path);
        expect(res?.status(), v.path).toBeLessThan(400);
        await v.ready(page);
        const readyAt = Date.now();
        const s = await schemeOf(page);
        expect(s.atBody, `${v.name}: the scheme when <body> began`).toBe(scheme);
        await expectScheme(page, scheme, v.name);
        problems.push(...(await seriousA11yViolations(page)).map((x) => `${v.name}: ${x}`));
        if (scheme === "dark" && (size === "desktop" || ["home", "explore", "dashboard", "share", "login", "audit"].includes(v.name))) await png(page, testInfo, `${v.name}-${scheme}-${size}.png`);
        problems.push(...(await errors.settled(readyAt)).map((e) => `${v.name}: ${e}`));
        await context.close();
      }
      expect(problems).toEqual([]);
    });
  }
}

test("a modal dialog in dark: the page dims behind it and it passes axe", async ({ browser }, testInfo) => {
  const context = await browser.newContext({ storageState: stateOf.analyst, colorScheme: "dark" });
  const page = await context.newPage();
  await page.goto("/");
  await heading(page);
  await page.keyboard.press("?");
  const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(help).toBeVisible();
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  expect(await seriousA11yViolations(page)).toEqual([]);
  const backdrop = await help.evaluate((d) => getComputedStyle(d, "::backdrop").backgroundColor);
  expect(backdrop, "the backdrop darkens the page").toMatch(/^rgba\(2, 6, 23, 0\.7\)$/);
  await png(page, testInfo, "shortcuts-dialog-dark.png");
  await context.close();
});

test("the toggle switches at once, is kept across reloads and for pages without the nav; System follows the system", async ({ browser }) => {
  const context = await browser.newContext({ storageState: stateOf.analyst, colorScheme: "light" });
  await context.addInitScript(RECORD_SCHEME_AT_BODY);
  const page = await context.newPage();
  await page.goto("/");
  await heading(page);
  const toggle = page.getByRole("group", { name: "Colour scheme" });
  const choice = (name: string) => toggle.getByRole("button", { name, exact: true });
  await expect(choice("System")).toHaveAttribute("aria-pressed", "true");
  await expectScheme(page, "light", "System with the system light");

  await choice("Dark").click();
  await expect(choice("Dark")).toHaveAttribute("aria-pressed", "true");
  await expect(choice("System")).toHaveAttribute("aria-pressed", "false");
  await expectScheme(page, "dark", "after pressing Dark");
  expect(await page.evaluate(() => localStorage.getItem("theme"))).toBe("dark");

  await page.reload();
  await heading(page);
  expect((await schemeOf(page)).atBody, "dark before the first paint after a reload").toBe("dark");
  await expectScheme(page, "dark", "Dark after a reload");
  await expect(choice("Dark")).toHaveAttribute("aria-pressed", "true");

  // A page without the nav keeps the choice too.
  await page.goto("/login");
  await expect(page.getByLabel("E-mail").or(page.getByRole("heading", { level: 1 }).first())).toBeVisible();
  await expectScheme(page, "dark", "/login with Dark chosen");
  await page.goto("/");
  await heading(page);

  // Light wins over a dark system; keyboard alone changes it (Tab to it, Space).
  await page.emulateMedia({ colorScheme: "dark" });
  await choice("Light").focus();
  await page.keyboard.press("Space");
  await expect(choice("Light")).toHaveAttribute("aria-pressed", "true");
  await expectScheme(page, "light", "Light with the system dark");
  await page.reload();
  await heading(page);
  expect((await schemeOf(page)).atBody).toBe("light");
  await expectScheme(page, "light", "Light after a reload with the system dark");

  // System follows the system, and its changes while the page is open.
  await choice("System").click();
  await expectScheme(page, "dark", "System with the system dark");
  expect(await page.evaluate(() => localStorage.getItem("theme"))).toBeNull();
  await page.emulateMedia({ colorScheme: "light" });
  await expectScheme(page, "light", "System after the system turned light");
  await page.emulateMedia({ colorScheme: "dark" });
  await expectScheme(page, "dark", "System after the system turned dark again");

  // Another tab's choice applies here at once.
  const other = await context.newPage();
  await other.goto("/");
  await heading(other);
  await other.getByRole("group", { name: "Colour scheme" }).getByRole("button", { name: "Light", exact: true }).click();
  await expect.poll(async () => (await schemeOf(page)).dark, { message: "the first tab follows the second's choice" }).toBe(false);
  await expect(choice("Light")).toHaveAttribute("aria-pressed", "true");
  await context.close();
});

test("on a phone the toggle fits the top bar, each choice whole and named, and works", async ({ browser }, testInfo) => {
  const context = await browser.newContext({ storageState: stateOf.analyst, colorScheme: "light", viewport: VIEWPORTS.phone });
  const page = await context.newPage();
  await page.goto("/");
  await heading(page);
  const toggle = page.getByRole("group", { name: "Colour scheme" });
  for (const name of ["System", "Light", "Dark"]) {
    const box = await toggle.getByRole("button", { name, exact: true }).boundingBox();
    expect(box, name).not.toBeNull();
    expect(box!.x, `${name}: left edge on screen`).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width, `${name}: right edge on screen`).toBeLessThanOrEqual(VIEWPORTS.phone.width);
    expect(box!.width, `${name}: wide enough to tap`).toBeGreaterThanOrEqual(24);
  }
  expect(await toggle.evaluate((g) => g.scrollWidth <= g.clientWidth), "no choice is clipped").toBe(true);
  await toggle.getByRole("button", { name: "Dark", exact: true }).click();
  await expectScheme(page, "dark", "phone, after pressing Dark");
  await png(page, testInfo, "toggle-phone-dark.png");
  await context.close();
});

test("printing stays light when the screen is dark", async ({ browser }) => {
  const context = await browser.newContext({ storageState: stateOf.analyst, colorScheme: "dark" });
  const page = await context.newPage();
  await page.goto("/");
  await heading(page);
  await expectScheme(page, "dark", "screen");
  await page.emulateMedia({ media: "print" });
  // <html> keeps its class while printing; the palette it switches applies to screens only.
  const print = await schemeOf(page);
  expect(print.luminance, "print: the page's background is light").toBeGreaterThan(0.9);
  expect(print.textLuminance, "print: the text is dark").toBeLessThan(0.05);
  await context.close();
});
