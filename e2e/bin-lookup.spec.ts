/** BIN lookup against the real service's routing. */
import { expect, test } from "@playwright/test";
import { expectNoSeriousA11yViolations, screenshots } from "./support/helpers";

test.use({ storageState: ".e2e/analyst.json" });

test("a BIN lookup shows a gateway, and a second lookup shows the rotation advance", async ({ page }) => {
  await page.goto("/bin-lookup");
  const form = page.getByRole("form", { name: "BIN lookup" });
  await form.getByLabel("BIN", { exact: true }).fill("414720");
  await form.getByRole("button", { name: "Look up route" }).click();
  const gateway = page.getByLabel("Gateway", { exact: true });
  await expect(gateway).not.toBeEmpty();
  const calls1 = Number((await page.getByLabel("Total calls").innerText()).replace(/\D/g, ""));
  const next = (await page.getByLabel("Next gateway").innerText()).trim();
  await form.getByRole("button", { name: "Look up route" }).click();
  await expect(page.getByLabel("Total calls")).toHaveText(String(calls1 + 1));
  await expect(gateway).toHaveText(next);

  await expectNoSeriousA11yViolations(page);
  await screenshots(page, "bin-lookup");
});

