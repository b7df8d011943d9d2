/**
 * Company sign-in in Chromium through a real OpenID Connect provider (oidc-provider, started by the
 * Playwright config, e2e/support/oidc.ts): a person signs in with the IdP's button and gets the role
 * their groups map to; a person in no mapped group is refused with a page that says so; a change of
 * groups changes the role at the next sign-in. A second dashboard with OIDC_SSO_ONLY and a 20-second
 * SSO session lifetime shows one button, refuses a right password except for the break-glass
 * account, and locks out a person removed at the IdP within that lifetime.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { expect, test, type Page } from "./support/test";
import { dashboardEnvFor, e2eEnv } from "./support/env";
import { createUser, ownDashboardStore, startOwnDashboard, type OwnDashboard } from "./support/own-dashboard";
import { IDP_USERS, readIdpUsers, writeIdpUsers } from "./support/oidc";

const env = e2eEnv();
const { oidc } = env;
const button = `Continue with ${oidc.providerName}`;
const SSO_LIFETIME_SECONDS = 20;

function idpUser(username: string) {
  const u = IDP_USERS.find((x) => x.username === username);
  if (!u) throw new Error(`no IdP user ${username}`);
  return u;
}

function setGroups(username: string, groups: string[] | null): void {
  const users = readIdpUsers(oidc).filter((u) => u.username !== username || groups !== null);
  writeIdpUsers(
    oidc,
    users.map((u) => (u.username === username && groups ? { ...u, groups } : u)),
  );
}

/** From the dashboard's sign-in page through the IdP (logging in there when it asks) and back. */
async function signInWithIdp(page: Page, username: string): Promise<void> {
  const idp = new URL(oidc.issuer).origin;
  await page.getByRole("button", { name: button }).click();
  // The IdP shows its form only when it has no session of its own for this browser; otherwise it
  // sends the browser straight back (redirects commit no page, so the next page is one or the other).
  await page.waitForURL((u) => u.origin === idp || u.pathname !== "/login", { timeout: 60_000 });
  if (new URL(page.url()).origin === idp) {
    const u = idpUser(username);
    await page.getByLabel("Username").fill(u.username);
    await page.getByLabel("IdP password").fill(u.password);
    await page.getByRole("button", { name: "Log in to the IdP" }).click();
    await page.waitForURL((u) => u.origin !== idp, { timeout: 60_000 });
  }
}

test.describe("company sign-in", () => {
  test.afterAll(() => writeIdpUsers(oidc, [...IDP_USERS]));

  test("a person signs in through the IdP with the mapped role, which follows their groups at the next sign-in", async ({ browser }) => {
    const page = await (await browser.newContext()).newPage();
    await page.goto("/explore");
    await expect(page).toHaveURL(/\/login\?callbackUrl=%2Fexplore/);
    // With passwords still on, the IdP's button and the password form are both offered.
    await expect(page.getByRole("button", { name: button })).toBeVisible();
    await expect(page.getByLabel("Password")).toBeVisible();
    await signInWithIdp(page, "ada");
    await expect(page).toHaveURL(/\/explore/);
    await expect(page.getByLabel("role: analyst")).toBeVisible();
    await expect(page.getByText("ada@sso.e2e.test")).toBeVisible();

    setGroups("ada", ["bi-admins", "marketing"]);
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login/);
    // The IdP remembers her: no form this time, and the new groups come with the new sign-in.
    await signInWithIdp(page, "ada");
    await expect(page.getByLabel("role: admin")).toBeVisible();
    await page.goto("/users");
    await expect(page.getByRole("heading", { name: "Users" })).toBeVisible();
  });

  test("a person in no mapped group is refused with a page that says why, and gets no session", async ({ browser }) => {
    const page = await (await browser.newContext()).newPage();
    await page.goto("/login");
    await signInWithIdp(page, "cyd");
    await expect(page).toHaveURL(/\/login\/refused\?reason=no_group/);
    await expect(page.getByRole("heading", { name: "No access to Payments Analytics" })).toBeVisible();
    await expect(page.getByTestId("refusal")).toContainText("in none of the groups that give access");
    await page.goto("/explore");
    await expect(page).toHaveURL(/\/login\?callbackUrl=/);
  });
});

test.describe("SSO only, with a short SSO session lifetime", () => {
  test.describe.configure({ mode: "serial" });
  const dir = join(env.dir, "sso-only");
  const people: Record<string, { email: string; password: string }> = {};
  let server: OwnDashboard | undefined;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    const db = await ownDashboardStore(dir);
    for (const [email, role] of [
      ["breakglass@e2e.test", "admin"],
      ["pat@e2e.test", "analyst"],
    ] as const) {
      people[email] = createUser(db, email, role);
    }
    // On the address the test IdP has as its second redirect.
    server = await startOwnDashboard(
      "SSO-only",
      dir,
      {
        ...dashboardEnvFor(env, 5, 10),
        // Its own secret: the two dashboards share the host's cookies, never each other's sessions.
        NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
        OIDC_SSO_ONLY: "true",
        OIDC_BREAK_GLASS: "breakglass@e2e.test",
        OIDC_SESSION_MAX_AGE_SECONDS: String(SSO_LIFETIME_SECONDS),
      },
      Number(new URL(oidc.ssoOnlyUrl).port),
    );
  });

  test.afterAll(async () => {
    await server?.stop();
  });

  test("the sign-in page shows one button; a right password is refused except for the break-glass account", async ({ browser }) => {
    const page = await (await browser.newContext({ baseURL: oidc.ssoOnlyUrl })).newPage();
    await page.goto("/login");
    await expect(page.getByRole("main").getByRole("button")).toHaveCount(1);
    await expect(page.getByRole("button", { name: button })).toBeVisible();
    await expect(page.getByLabel("Password")).toHaveCount(0);

    await page.getByRole("link", { name: "Emergency access with a password" }).click();
    for (const email of ["pat@e2e.test", "breakglass@e2e.test"]) {
      await page.getByLabel("E-mail").fill(email);
      await page.getByLabel("Password").fill(people[email]!.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      if (email === "pat@e2e.test") await expect(page.getByRole("main").getByRole("alert")).toHaveText("The e-mail address or password is incorrect.");
    }
    await expect(page).not.toHaveURL(/\/login/);
    await expect(page.getByLabel("role: admin")).toBeVisible();

    // The admin's Users page says how each person can still sign in: the analyst's password no longer lets them.
    await page.goto("/users");
    const signIn = (email: RegExp, how: string) => page.getByRole("row", { name: email }).getByRole("cell", { name: how, exact: true });
    await expect(signIn(/pat@e2e\.test/, "None: passwords are off (SSO only)")).toBeVisible();
    await expect(signIn(/breakglass@e2e\.test/, "Password")).toBeVisible();
  });

  test("a person removed at the IdP loses access within the SSO session lifetime", async ({ browser }) => {
    const page = await (await browser.newContext({ baseURL: oidc.ssoOnlyUrl })).newPage();
    await page.goto("/login");
    await signInWithIdp(page, "sam");
    await expect(page.getByLabel("role: viewer")).toBeVisible();

    setGroups("sam", null);
    // Within the lifetime: the session ends when it is over, whatever the IdP says meanwhile.
    await expect
      .poll(
        async () => {
          await page.goto("/");
          return new URL(page.url()).pathname;
        },
        { timeout: (SSO_LIFETIME_SECONDS + 40) * 1000, intervals: [2000] },
      )
      .toBe("/login");

    // Signing in again: the IdP no longer knows them. A real IdP ends the sessions of a person it
    // removes; the test IdP keeps its session cookie (and fails on an account that has gone), so that
    // session is ended here, as the IdP would.
    await page.context().clearCookies({ domain: new URL(oidc.issuer).hostname });
    await page.getByRole("button", { name: button }).click();
    await page.getByLabel("Username").fill("sam");
    await page.getByLabel("IdP password").fill(idpUser("sam").password);
    await page.getByRole("button", { name: "Log in to the IdP" }).click();
    await expect(page.getByRole("main").getByRole("alert")).toHaveText("Unknown user name or wrong password.");
  });
});
