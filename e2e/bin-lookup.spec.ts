/** BIN lookup against the real service's routing: previews, real routing, bad input, bulk lists, gateway names. */
import { expect, test, type Page } from "./support/test";
import { authFile } from "./support/env";
import { expectNoSeriousA11yViolations, screenshots } from "./support/helpers";

test.use({ storageState: authFile("analyst") });

const BIN = "414720";

async function lookUp(page: Page, bin: string, mode: "Preview" | "Route as a real order") {
  const form = page.getByRole("form", { name: "BIN lookup" });
  await form.getByLabel("BIN", { exact: true }).fill(bin);
  await form.getByRole("radio", { name: new RegExp(`^${mode}`) }).check();
  await form.getByRole("button", { name: mode === "Preview" ? "Preview route" : "Route as a real order" }).click();
}

const text = async (page: Page, label: string) => (await page.getByLabel(label, { exact: true }).innerText()).trim();
const calls = async (page: Page) => Number((await text(page, "Total calls")).replace(/\D/g, ""));

test("a preview moves nothing while a real lookup advances the rotation; each answer says which it was", async ({ page }) => {
  // The dashboard's quota free, so the gateway names can be learnt at once.
  await expect.poll(async () => ((await (await page.request.get("/api/upstream/status")).json()) as { calls_in_window: number }).calls_in_window, { timeout: 30_000 }).toBeLessThan(5);
  await page.goto("/bin-lookup");
  await lookUp(page, BIN, "Preview");
  await expect(page.getByTestId("lookup-kind")).toContainText("Preview: not routed: no rotation advanced.");
  const gateway = await text(page, "Gateway");
  const total = await calls(page);
  // Named as the reports name gateways: "Alias (#id)".
  expect(gateway).toMatch(/^.+ \(#\d+\)$/);
  expect(gateway).not.toContain("name not known");

  // Previews again: the same gateway, the same count.
  await lookUp(page, BIN, "Preview");
  await expect(page.getByRole("status", { name: "Lookup status" })).toContainText("nothing advanced");
  expect(await text(page, "Gateway")).toBe(gateway);
  expect(await calls(page)).toBe(total);
  await screenshots(page, "bin-lookup-preview");

  // A real lookup gets exactly what the previews said, and advances the rotation.
  await lookUp(page, BIN, "Route as a real order");
  await expect(page.getByTestId("lookup-kind")).toContainText("Routed as a real order: the rotation advanced");
  expect(await text(page, "Gateway")).toBe(gateway);
  expect(await calls(page)).toBe(total);
  const next = await text(page, "Next gateway");
  await screenshots(page, "bin-lookup-routed");

  // The next preview shows the rotation moved on.
  await lookUp(page, BIN, "Preview");
  await expect(page.getByTestId("lookup-kind")).toContainText("Preview");
  await expect.poll(() => calls(page)).toBe(total + 1);
  expect(await text(page, "Gateway")).toBe(next);
  await expectNoSeriousA11yViolations(page);
});

test("bad input clears the previous answer and says what a BIN is; an edited BIN marks the answer as the previous one", async ({ page }) => {
  await page.goto("/bin-lookup");
  await lookUp(page, BIN, "Preview");
  await expect(page.getByLabel("Gateway", { exact: true })).toBeVisible();
  const form = page.getByRole("form", { name: "BIN lookup" });
  // Another BIN typed: the answer on screen says it belongs to the previous one.
  await form.getByLabel("BIN", { exact: true }).fill("510510");
  await expect(page.getByTestId("lookup-kind")).toContainText(`This answer is for BIN ${BIN}, the one looked up before.`);
  // Bad input: no answer stays, and the message says what a BIN is.
  await form.getByLabel("BIN", { exact: true }).fill("41a7");
  await form.getByRole("button", { name: "Preview route" }).click();
  await expect(page.getByLabel("Gateway", { exact: true })).toHaveCount(0);
  await expect(form).toContainText("A BIN is the first 6 to 8 digits of the card number");
  await screenshots(page, "bin-lookup-bad-input");
});

test("bulk lookup lists every token it did not use, and why", async ({ page }) => {
  await page.goto("/bin-lookup");
  await page.getByRole("tab", { name: /Bulk/ }).click();
  const form = page.getByRole("form", { name: "Bulk BIN lookup" });
  await form.getByLabel(/BINs \(up to 100\)/).fill(`bin\n${BIN}\n${BIN}\n12\n123456789\n4x4720\n510510`);
  const unused = form.getByRole("list", { name: "Tokens not looked up" }).getByRole("listitem");
  await expect(unused).toHaveText([
    "“bin”: not a number",
    `“${BIN}”: duplicate`,
    "“12”: too short (2 digits; a BIN has 6 to 8)",
    "“123456789”: too long (9 digits; a BIN has 6 to 8)",
    "“4x4720”: not a number",
  ]);
  await form.getByRole("button", { name: "Preview 2 BINs" }).click();
  await expect(page.getByRole("status", { name: "Bulk lookup status" })).toContainText("2 looked up; nothing advanced.");
  const rows = page.getByRole("region", { name: "Routes (scrollable)" }).locator("tbody tr");
  await expect(rows).toHaveCount(2);
  await expect(rows.first().locator("td").nth(2)).toHaveText(/\(#\d+\)/);
  await screenshots(page, "bin-lookup-bulk");
});
