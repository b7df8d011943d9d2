/**
 * Inputs that forgive, on a desktop and on a phone: a pasted card number in the BIN box gives its
 * BIN and nothing else of it is kept anywhere (field, page, link, requests, logs); in bulk a
 * grouped card number is one card; text filters offer the known values that contain what is typed
 * and send exactly what the chip shows; an id never seen is flagged before running, an impossible
 * one refused, and the empty answer names the filter that emptied it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test, type Browser, type Page } from "./support/test";
import { authFile, e2eEnv } from "./support/env";
import { expectNoSeriousA11yViolations } from "./support/helpers";

const DEVICES = [
  { name: "desktop", viewport: { width: 1440, height: 900 }, isMobile: false, hasTouch: false },
  { name: "phone", viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
] as const;

async function open(browser: Browser, device: (typeof DEVICES)[number]) {
  const context = await browser.newContext({ storageState: authFile("analyst"), viewport: device.viewport, isMobile: device.isMobile, hasTouch: device.hasTouch });
  const page = await context.newPage();
  /** Every request the page sends: its URL and body. */
  const sent: string[] = [];
  page.on("request", (r) => sent.push(`${r.url()}\n${r.postData() ?? ""}`));
  return { context, page, sent };
}

/** Every form control's live value on the page (the HTML does not hold what was typed). */
const controlValues = (page: Page) => page.evaluate(() => [...document.querySelectorAll("input, textarea")].map((e) => (e as HTMLInputElement).value).join("\n"));

/** The card number's digits after its BIN, in every form they could take, are nowhere in `text`. */
function expectNoRest(where: string, text: string, pan: string) {
  const digits = pan.replace(/\D/g, "");
  for (const needle of [digits, pan, digits.slice(8), pan.slice(10)]) {
    expect(text.includes(needle), `${where} holds ${needle} of the card number`).toBe(false);
  }
}

for (const device of DEVICES) {
  test(`${device.name}: a pasted card number gives its first 8 digits, and the rest is kept nowhere`, async ({ browser }) => {
    const env = e2eEnv();
    const { context, page, sent } = await open(browser, device);
    await page.goto("/bin-lookup");
    const form = page.getByRole("form", { name: "BIN lookup" });
    const box = form.getByLabel("BIN", { exact: true });
    // Pasted as a paste lands: the whole text in one input event. 4111 1111 1111 1111 as asked; a
    // second number whose digits after the BIN differ from it, so a leak of them could be seen.
    for (const [pan, bin] of [
      ["4111 1111 1111 1111", "41111111"],
      ["4147-2093-5762-8841", "41472093"],
    ] as const) {
      await box.fill("");
      await box.focus();
      await page.keyboard.insertText(pan);
      await expect(box).toHaveValue(bin);
      await expect(form.getByRole("status", { name: "BIN from card number" })).toHaveText(`Using BIN ${bin} from the pasted card number; the rest of the number was not kept.`);
      await form.getByRole("button", { name: "Preview route" }).click();
      await expect(page.getByRole("status", { name: "Lookup status" })).toContainText(`BIN ${bin} would go to gateway`);
      if (pan.startsWith("4147")) {
        expectNoRest("the link", page.url(), pan);
        expectNoRest("the page", await page.content(), pan);
        expectNoRest("the form's values", await controlValues(page), pan);
      }
    }
    const routed = sent.filter((s) => s.includes("/api/bin-lookup/"));
    expect(routed.some((s) => s.includes('"bin":"41111111"')), "the lookup sent BIN 41111111").toBe(true);
    expect(routed.some((s) => s.includes('"bin":"41472093"')), "the lookup sent BIN 41472093").toBe(true);
    expectNoRest("a request", sent.join("\n"), "4147-2093-5762-8841");
    expect(sent.join("\n")).not.toContain("4111111111111111");

    // Bulk: a grouped card number is one card (cut to its BIN as it comes in), spaces still separate BINs.
    await page.getByRole("tab", { name: /Bulk/ }).click();
    const bulk = page.getByRole("form", { name: "Bulk BIN lookup" });
    const list = bulk.getByLabel(/BINs \(up to 100\)/);
    await list.focus();
    await page.keyboard.insertText("4111 1111 1111 1111\n4147-2093-5762-8841, 414720 510510");
    await expect(list).toHaveValue("41111111\n41472093, 414720 510510");
    await expect(bulk.getByRole("status", { name: "Card numbers cut to BINs" })).toHaveText("2 card numbers were cut to their first 8 digits, the BIN; the rest was not kept.");
    await expect(bulk).toContainText("A card number (12 to 19 digits, grouped with spaces or dashes as printed, like 4111 1111 1111 1111) is one card");
    await expect(bulk.getByRole("list", { name: "Tokens not looked up" })).toHaveCount(0);
    await bulk.getByRole("button", { name: "Preview 4 BINs" }).click();
    await expect(page.getByRole("status", { name: "Bulk lookup status" })).toContainText("4 looked up; nothing advanced.");
    const rows = page.getByRole("region", { name: "Routes (scrollable)" }).locator("tbody tr");
    await expect(rows.locator("td:nth-child(2)")).toHaveText(["41111111", "41472093", "414720", "510510"]);
    expectNoRest("the bulk page", (await page.content()) + (await controlValues(page)) + page.url(), "4147-2093-5762-8841");
    expectNoRest("a request", sent.join("\n"), "4147-2093-5762-8841");
    await expectNoSeriousA11yViolations(page);
    await context.close();

    // Nor in either log (written as the requests were served).
    await new Promise((r) => setTimeout(r, 500));
    for (const log of ["service.log", "dashboard.log"]) expectNoRest(log, readFileSync(join(env.dir, log), "utf8"), "4147-2093-5762-8841");
  });

  test(`${device.name}: text filters offer known values that contain what is typed; an unseen id is flagged, an impossible one refused; the empty answer names its filter`, async ({ browser }) => {
    const { context, page, sent } = await open(browser, device);
    // A report by bank and gateway: the dashboard now knows those values, without a call of its own.
    await page.goto("/explore?range=last7&by=bank,gateway_id&m=attempts");
    await expect(page.getByRole("row", { name: "Totals" })).toBeVisible();

    const form = page.getByRole("form", { name: "Report settings" });
    await form.getByLabel("Add a filter on").selectOption("bank");
    const bank = form.getByRole("combobox", { name: "Add Issuing bank values" });
    await expect(form).not.toContainText("(one per line)");
    await bank.fill("Bank of America");
    const offered = form.getByRole("listbox", { name: "Issuing bank values seen in recent reports" }).getByRole("option");
    await expect(offered).toHaveText(["BANK OF AMERICA N.A."]);
    // Typed text is sent as typed, and flagged before running, with the known value beside it.
    await bank.press("Enter");
    await expect(form.getByRole("list", { name: "Issuing bank values" }).getByRole("listitem")).toHaveText(["Bank of America (not seen in recent reports)×"]);
    await expect(form.getByRole("status", { name: "Issuing bank values not seen" })).toHaveText(
      /^“Bank of America” not seen in the last (report|\d+ reports): the report may come back empty\. Seen: “BANK OF AMERICA N\.A\.”\.$/,
    );
    await form.getByRole("button", { name: "Remove Bank of America from Issuing bank" }).click();
    // Runs of spaces and another case: the suggestion still offered, and chosen as it is known.
    await bank.fill("  bank   of america ");
    await expect(offered).toHaveText(["BANK OF AMERICA N.A."]);
    await offered.first().click();
    const chips = form.getByRole("list", { name: "Issuing bank values" }).getByRole("listitem");
    await expect(chips).toHaveText(["BANK OF AMERICA N.A.×"]);
    await expect(form.getByRole("status", { name: "Issuing bank values not seen" })).toHaveCount(0);

    await form.getByLabel("Add a filter on").selectOption("gateway_id");
    const gateway = form.getByRole("combobox", { name: "Add Gateway ID values" });
    await gateway.fill("-3, 9999");
    await gateway.press("Escape");
    await form.getByRole("button", { name: "Add", exact: true }).last().click();
    await expect(form.getByRole("alert")).toContainText("“-3” is negative: a Gateway ID is a whole number of 0 or more");
    await expect(gateway).toHaveValue("-3");
    await expect(form.getByRole("status", { name: "Gateway ID values not seen" })).toHaveText(/^9999 not seen in the last (report|\d+ reports): the report may come back empty\.$/);
    await gateway.fill("");

    await form.getByRole("button", { name: "Run report" }).click();
    await expect(page.getByTestId("empty-result-words")).toHaveText(
      /^No records, most likely because of the filter Gateway ID is 9999: 9999 was not seen in the last (report|\d+ reports)\. Remove it or choose values the suggestions offer\.$/,
    );
    // What was sent is exactly what the chips show.
    const run = sent.filter((s) => s.includes("/api/reports/order-summary")).at(-1) ?? "";
    expect(JSON.parse(run.split("\n")[1]!)).toMatchObject({ filters: { bank: ["BANK OF AMERICA N.A."], gateway_id: [9999] } });
    await expectNoSeriousA11yViolations(page);
    await context.close();
  });
}
