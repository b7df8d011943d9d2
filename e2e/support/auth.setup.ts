import { expect, test as setup } from "@playwright/test";
import { e2eEnv } from "./env";

// Signs each role in once through the real sign-in page and saves the session for the specs.
for (const role of ["admin", "analyst", "viewer"] as const) {
  setup(`sign in as ${role}`, async ({ page }) => {
    const { users } = e2eEnv();
    await page.goto("/login");
    await page.getByLabel("E-mail").fill(users[role].email);
    await page.getByLabel("Password").fill(users[role].password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).not.toHaveURL(/\/login/);
    await page.context().storageState({ path: `.e2e/${role}.json` });
  });
}
