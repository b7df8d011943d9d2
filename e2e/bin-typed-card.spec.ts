/**
 * A card number TYPED into the BIN box, key by key as a person types it (not pasted whole): the box
 * takes it, spaces included, keeps its first 8 digits as the BIN and holds, sends, stores and logs
 * nothing after them, at any key on the way.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test, type Page } from "./support/test";
import { authFile, e2eEnv } from "./support/env";

/** Every form control's live value on the page (the HTML does not hold what was typed). */
const controlValues = (page: Page) => page.evaluate(() => [...document.querySelectorAll("input, textarea")].map((e) => (e as HTMLInputElement).value).join("\n"));
const storage = (page: Page) => page.evaluate(() => JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage), document.cookie]));

/** More than 8 digits of the card number, in every form they could take, are nowhere in `text`. */
function expectNoMoreThanBin(where: string, text: string, pan: string) {
  const digits = pan.replace(/\D/g, "");
  const needles = [digits.slice(0, 9), digits.slice(8), pan.slice(0, 11), pan.slice(10), pan.slice(5, 14), pan.replace(/ /g, "-").slice(0, 11)];
  for (const needle of needles) expect(text.includes(needle), `${where} holds ${needle} of the card number`).toBe(false);
}

test("a card number typed digit by digit gives its first 8 digits, and no key on the way keeps, sends or stores more", async ({ browser }) => {
  const env = e2eEnv();
  const context = await browser.newContext({ storageState: authFile("analyst") });
  const page = await context.newPage();
  /** Every request the page sends: its URL, headers and body. */
  const sent: string[] = [];
  page.on("request", (r) => sent.push(`${r.url()}\n${JSON.stringify(r.headers())}\n${r.postData() ?? ""}`));
  await page.goto("/bin-lookup");
  const form = page.getByRole("form", { name: "BIN lookup" });
  const box = form.getByLabel("BIN", { exact: true });
  const note = form.getByRole("status", { name: "BIN from card number" });

  // 4111 1111 1111 1111 as asked; then a number whose digits after the BIN all differ from it, so a
  // leak of them could be seen anywhere.
  for (const [pan, bin] of [
    ["4111 1111 1111 1111", "41111111"],
    ["4147 2093 5762 8841", "41472093"],
  ] as const) {
    await box.fill("");
    await box.click();
    // One key at a time, as typed; after every key the box holds no more than a BIN's digits.
    for (const key of pan) {
      await page.keyboard.type(key);
      const held = (await box.inputValue()).replace(/\D/g, "");
      expect(held.length, `after typing "${key}" the box holds ${held}`).toBeLessThanOrEqual(8);
      expect(bin.startsWith(held)).toBe(true);
    }
    await expect(box).toHaveValue(bin);
    await expect(note).toHaveText(`Using BIN ${bin} from the typed card number; the rest of the number was not kept.`);
    await expect(box).toHaveAttribute("aria-invalid", "false");
    await form.getByRole("button", { name: "Preview route" }).click();
    await expect(page.getByRole("status", { name: "Lookup status" })).toContainText(`BIN ${bin} would go to gateway`);
  }
  // The same box also takes a whole number typed with the keyboard's own method, in one go.
  await box.fill("");
  await box.pressSequentially("5105-1051-0510-5100");
  await expect(box).toHaveValue("51051051");

  const pan = "4147 2093 5762 8841";
  expectNoMoreThanBin("the link", page.url(), pan);
  expectNoMoreThanBin("the page", await page.content(), pan);
  expectNoMoreThanBin("the form's values", await controlValues(page), pan);
  expectNoMoreThanBin("the browser's storage", await storage(page), pan);
  const routed = sent.filter((s) => s.includes("/api/bin-lookup/"));
  expect(routed.some((s) => s.includes('"bin":"41111111"')), "the lookup sent BIN 41111111").toBe(true);
  expect(routed.some((s) => s.includes('"bin":"41472093"')), "the lookup sent BIN 41472093").toBe(true);
  expectNoMoreThanBin("a request", sent.join("\n"), pan);
  expectNoMoreThanBin("a request", sent.join("\n"), "4111 1111 1111 1111");
  expectNoMoreThanBin("a request", sent.join("\n"), "5105 1051 0510 5100");
  await context.close();

  // Nor in either log (written as the requests were served).
  await new Promise((r) => setTimeout(r, 500));
  for (const log of ["service.log", "dashboard.log"]) expectNoMoreThanBin(log, readFileSync(join(env.dir, log), "utf8"), pan);
});
