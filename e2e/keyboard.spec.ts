/**
 * The keyboard path: a skip link first, the shortcuts' help under "?", "/" to the filters and
 * Ctrl + Enter to run, on a real page in Chromium.
 */
import { expect, test } from "./support/test";
import { authFile } from "./support/env";
import { expectNoSeriousA11yViolations } from "./support/helpers";

test.use({ storageState: authFile("analyst") });

test("skip link, shortcut help, / to the filters, Ctrl + Enter runs the report", async ({ page }) => {
  await page.goto("/explore");
  const form = page.getByRole("form", { name: "Report settings" });
  await expect(form.getByRole("button", { name: "Run report" })).toBeEnabled();

  // The first Tab stop skips the top bar.
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to main content" });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/#content$/);
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.closest("header") === null && document.getElementById("content")?.contains(document.activeElement))).toBe(true);

  // "?" lists the shortcuts in a modal dialog; Escape closes it.
  await page.locator("body").click({ position: { x: 2, y: 400 } });
  await page.keyboard.press("?");
  const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(help).toBeVisible();
  await expect(help.getByText("Go to the page's filters")).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await page.keyboard.press("Escape");
  await expect(help).toBeHidden();

  // "/" goes to the filters; typed into a field, it is text.
  await page.keyboard.press("/");
  const inFilters = () => page.evaluate(() => document.activeElement?.closest("fieldset")?.querySelector("legend")?.textContent?.trim() ?? null);
  expect(await inFilters()).toBe("Filters");
  await page.keyboard.press("?");
  await expect(help).toBeHidden();

  // Ctrl + Enter runs the report from anywhere on the page.
  await page.locator("body").click({ position: { x: 2, y: 400 } });
  await page.keyboard.press("Control+Enter");
  await expect(page).toHaveURL(/[?&]op=orders/);
  await expect(page.getByRole("row", { name: "Totals" })).toBeVisible();
});
