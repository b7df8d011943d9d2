import { expect, test as setup } from "./test";
import { e2eEnvs } from "./env";

// Signs each role in once on every worker's dashboard through the real sign-in page and saves the
// session in that worker's folder for the specs (authFile).
for (const [index, env] of e2eEnvs().entries()) {
  for (const role of ["admin", "analyst", "viewer"] as const) {
    setup(`sign in as ${role} on worker ${index}'s dashboard`, async ({ page }) => {
      await page.goto(`${env.dashboardUrl}/login`);
      await page.getByLabel("E-mail").fill(env.users[role].email);
      await page.getByLabel("Password").fill(env.users[role].password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(page).not.toHaveURL(/\/login/);
      await page.context().storageState({ path: `${env.dir}/${role}.json` });
    });
  }
}
