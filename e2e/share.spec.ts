/**
 * An analyst saves a report and shares it; a manager without an account opens the link on a phone
 * and sees the same totals; after revocation the same URL shows no data.
 */
import { expect, test } from "./support/test";
import { authFile, e2eEnv } from "./support/env";
import { expectNoSeriousA11yViolations, screenshots } from "./support/helpers";

test("save, share, open on a phone without an account, revoke", async ({ browser }) => {
  const analyst = await browser.newContext({ storageState: authFile("analyst") });
  const page = await analyst.newPage();
  await page.goto("/explore?op=orders&range=last30&by=gateway_id&m=attempts,approvals,revenue&kpi=approval_rate");
  const totals = page.getByRole("row", { name: "Totals" });
  await expect(totals).toBeVisible();
  const analystTotals = (await totals.innerText()).replace(/\s+/g, " ").trim();

  await page.getByRole("button", { name: "Save report" }).click();
  const naming = page.getByRole("dialog", { name: "Save this report" });
  await naming.getByRole("textbox", { name: "Name" }).fill("Gateways, last 30 days");
  await naming.getByRole("button", { name: /^Save/ }).click();
  await expect(page.getByText("Saved.")).toBeVisible();

  await page.goto("/reports");
  const item = page.getByRole("listitem").filter({ hasText: "Gateways, last 30 days" }).first();
  await item.getByRole("button", { name: "Share links" }).click();
  await item.getByRole("button", { name: "Create share link" }).click();
  const urlBox = item.getByRole("textbox", { name: "New share link URL" });
  await expect(urlBox).toHaveValue(/\/share\/[A-Za-z0-9_-]{43}$/);
  const shareUrl = await urlBox.inputValue();
  await screenshots(page, "saved-reports-sharing");

  // A fresh browser with no session, phone-sized.
  const manager = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const phone = await manager.newPage();
  await phone.goto(shareUrl);
  await expect(phone.getByRole("heading", { level: 1, name: "Gateways, last 30 days" })).toBeVisible();
  await expect(phone.getByText("Shared by:")).toBeVisible();
  // Who shared it is told by organisation; the sharer's address is in neither the page nor its data.
  const analystEmail = e2eEnv().users.analyst.email;
  await expect(phone.getByText(`a colleague at ${analystEmail.split("@")[1]}`)).toBeVisible();
  expect(await phone.content()).not.toContain(analystEmail);
  const sharedTotals = phone.getByRole("row", { name: "Totals" });
  await expect(sharedTotals).toBeVisible();
  expect((await sharedTotals.innerText()).replace(/\s+/g, " ").trim()).toBe(analystTotals);
  await expectNoSeriousA11yViolations(phone);
  await phone.screenshot({ path: "test-results/screenshots/share-phone.png", fullPage: true });

  // The share page's visitor cannot reach anything else.
  for (const [method, path] of [["POST", "/api/reports/order-summary"], ["POST", "/api/bin-lookup"], ["GET", "/api/saved-reports"], ["GET", "/api/upstream/status"]] as const) {
    const res = await phone.request.fetch(path, { method, headers: { "content-type": "application/json" }, data: method === "POST" ? "{}" : undefined });
    expect(res.status()).toBe(401);
  }

  // Revoke: the same URL now shows no data.
  await page.reload();
  await item.getByRole("button", { name: "Share links" }).click();
  await item.getByRole("button", { name: "Revoke" }).first().click();
  await page.getByRole("dialog", { name: "Revoke this share link?" }).getByRole("button", { name: "Revoke link" }).click();
  await expect(item.getByRole("cell", { name: "revoked" }).first()).toBeVisible();
  await phone.goto(shareUrl);
  await expect(phone.getByRole("heading", { name: "This link has been revoked" })).toBeVisible();
  await expect(phone.getByRole("row", { name: "Totals" })).toHaveCount(0);

  await analyst.close();
  await manager.close();
});
