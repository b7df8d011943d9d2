/**
 * An admin manages users in the browser: adds an analyst, whose generated password signs in; disables
 * them (their open session ends at once) and enables them; resets their password. Analysts and
 * viewers cannot reach the page.
 */
import { expect, test, type Browser, type Page } from "./support/test";
import { authFile, e2eEnv } from "./support/env";
import { expectNoSeriousA11yViolations, screenshots } from "./support/helpers";

async function signIn(browser: Browser, email: string, password: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto("/login");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  return page;
}

test("an admin adds, disables, enables and resets a user; the user's sessions follow", async ({ browser }) => {
  const admin = await (await browser.newContext({ storageState: authFile("admin") })).newPage();
  await admin.goto("/");
  await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" }).click();
  await expect(admin.getByRole("heading", { name: "Users" })).toBeVisible();
  const email = `new.analyst.${Date.now()}@demo.local`;

  const form = admin.getByRole("form", { name: "Add a user" });
  await form.getByLabel("E-mail").fill(email);
  await form.getByLabel("Role").selectOption("analyst");
  await form.getByRole("button", { name: "Add user" }).click();
  const shown = admin.getByRole("status").filter({ hasText: email });
  await expect(shown).toBeVisible();
  const password = (await shown.getByLabel("Generated password").textContent())!.trim();
  expect(password.length).toBeGreaterThanOrEqual(20);
  await expectNoSeriousA11yViolations(admin);
  await screenshots(admin, "users");
  await shown.getByRole("button", { name: "Done" }).click();
  await expect(admin.getByRole("status")).toHaveCount(0);
  const row = admin.getByRole("row").filter({ hasText: email });
  await expect(row.getByRole("combobox", { name: `Role of ${email}` })).toHaveValue("analyst");

  // The new analyst signs in and can open Explore, but not the users page.
  const user = await signIn(browser, email, password);
  await expect(user).not.toHaveURL(/\/login/);
  await user.goto("/explore");
  await expect(user).toHaveURL(/\/explore/);
  await user.goto("/users");
  await expect(user).toHaveURL(/\/\?denied=%2Fusers$/);
  await expect(user.getByText("Users is for admins; you are signed in as an analyst.", { exact: false })).toBeVisible();
  expect((await user.request.get("/api/users")).status()).toBe(403);
  // A report route (a Pages API route, bundled apart from the pages) keeps the session's check too.
  const day = e2eEnv().endDate;
  const report = () => user.request.post("/api/reports/order-summary", { data: { start_date: day, end_date: day } });
  expect([200, 202]).toContain((await report()).status());
  expect([200, 202]).toContain((await report()).status());

  // Disabled: the open session ends on its next request, on every route; enabled: the same password works again.
  await row.getByRole("button", { name: `Disable ${email}` }).click();
  await expect(row.getByText("Disabled")).toBeVisible();
  expect((await report()).status()).toBe(401);
  await user.goto("/explore");
  await expect(user).toHaveURL(/\/login/);
  await row.getByRole("button", { name: `Enable ${email}` }).click();
  await expect(row.getByText("Active")).toBeVisible();
  const again = await signIn(browser, email, password);
  await expect(again).not.toHaveURL(/\/login/);

  // A new password: the old one stops working, the new one signs in.
  admin.once("dialog", (d) => void d.accept());
  await row.getByRole("button", { name: `Reset password of ${email}` }).click();
  const reset = admin.getByRole("status").filter({ hasText: email });
  const newPassword = (await reset.getByLabel("Generated password").textContent())!.trim();
  expect(newPassword).not.toBe(password);
  const refused = await signIn(browser, email, password);
  await expect(refused.getByText("The e-mail address or password is incorrect.")).toBeVisible();
  await expect(refused).toHaveURL(/\/login/);
  await expect(await signIn(browser, email, newPassword)).not.toHaveURL(/\/login/);

  // The admin's own row offers no way to lock themselves out.
  const own = admin.getByRole("row").filter({ hasText: "(you)" });
  await expect(own.getByRole("combobox")).toBeDisabled();
  await expect(own.getByRole("button")).toHaveCount(0);
});
