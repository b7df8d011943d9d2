/**
 * The audit log in Chromium: a failed (counted for its address) and a successful sign-in through the
 * real sign-in page are found by an admin at /audit (menu, filters by kind and actor), with their address and time, and the
 * CSV download holds exactly the filtered entries and never the password typed. An analyst is refused
 * the page and the API.
 */
import { readFileSync } from "node:fs";
import { expect, test, type Browser } from "./support/test";
import { authFile, e2eEnv } from "./support/env";
import { expectNoSeriousA11yViolations, parseCsv } from "./support/helpers";

const WRONG_PASSWORD = "Not-The-Password-e2e-31337";

async function trySignIn(browser: Browser, email: string, password: string, address?: string) {
  // An address as the trusted proxy (TRUSTED_PROXY_HOPS=1) would name it: failures are counted per address.
  const context = await browser.newContext(address ? { extraHTTPHeaders: { "x-forwarded-for": address } } : {});
  const page = await context.newPage();
  await page.goto("/login");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  return { context, page };
}

test("an admin finds sign-ins in the audit log, filters them and downloads the CSV", async ({ browser }) => {
  const { users } = e2eEnv();
  const stranger = `nobody.${Date.now()}@audit.test`;
  const address = `203.0.113.${Date.now() % 250}`;
  const failed = await trySignIn(browser, stranger, WRONG_PASSWORD, address);
  await expect(failed.page.locator("#login-error")).toHaveText(/\S/);
  await failed.context.close();
  const ok = await trySignIn(browser, users.viewer.email, users.viewer.password);
  await expect(ok.page).not.toHaveURL(/\/login/);
  await ok.context.close();

  const admin = await (await browser.newContext({ storageState: authFile("admin") })).newPage();
  await admin.goto("/");
  await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit log" }).click();
  await expect(admin.getByRole("heading", { name: "Audit log" })).toBeVisible();
  await expect(admin.getByText(/Entries are kept for 400 days \(AUDIT_RETENTION_DAYS\).*The oldest entry kept is from \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\./)).toBeVisible();

  const form = admin.getByRole("form", { name: "Filter the audit log" });
  await form.getByLabel("Kind").selectOption("sign_in");
  await form.getByLabel("Actor e-mail contains").fill(stranger);
  await form.getByRole("button", { name: "Filter" }).click();
  await expect(admin).toHaveURL(/kind=sign_in/);
  await expect(admin.getByRole("status").filter({ hasText: "1 entry matches" })).toBeVisible();
  const rows = admin.getByRole("row").filter({ hasText: stranger });
  await expect(rows).toHaveCount(1);
  const cells = rows.first().getByRole("cell");
  await expect(cells.nth(1)).toHaveText("Sign-in failed");
  await expect(cells.nth(3)).toHaveText(address);
  // Failed sign-ins are counted per address: the entry says how many, for which e-mails, from where.
  await expect(cells.nth(5)).toContainText(`summary: 1 failed sign-in for 1 e-mail address from ${address} between `);
  await expect(cells.nth(5)).toContainText("unknown account: 1");
  await expectNoSeriousA11yViolations(admin);

  // Every sign-in of the viewer's account: the successful one is among them, newest first.
  await form.getByLabel("Actor e-mail contains").fill(users.viewer.email);
  await form.getByRole("button", { name: "Filter" }).click();
  await expect(admin.getByRole("row").filter({ hasText: "Signed in" }).first()).toBeVisible();
  const times = await admin.locator("tbody time").evaluateAll((ts) => ts.map((t) => t.getAttribute("datetime") ?? ""));
  expect(times.length).toBeGreaterThan(0);
  expect([...times].sort().reverse()).toEqual(times);

  // The CSV of the filtered entries: the same rows as the page, and no password.
  await form.getByLabel("Actor e-mail contains").fill(stranger);
  await form.getByRole("button", { name: "Filter" }).click();
  await expect(admin.getByRole("status").filter({ hasText: "1 entry matches" })).toBeVisible();
  const [download] = await Promise.all([admin.waitForEvent("download"), admin.getByRole("link", { name: "Download CSV" }).click()]);
  const text = readFileSync((await download.path())!, "utf8");
  const csv = parseCsv(text).filter((r) => r.length > 1);
  expect(csv[0]).toEqual(["Time", "Time zone", "Action", "Action code", "Actor", "Actor kind", "Address", "Subject", "Details", "Reason"]);
  expect(csv.slice(1).map((r) => [r[2], r[3], r[4], r[5]])).toEqual([["Sign-in failed", "sign_in.failed", stranger, "anonymous"]]);
  expect(text).not.toContain(WRONG_PASSWORD);
  await admin.context().close();
});

test("a share link made and revoked through the API is in the log with its maker, address and no token", async ({ browser }) => {
  const context = await browser.newContext({ storageState: authFile("admin") });
  const api = context.request;
  const made = await api.post("/api/saved-reports", { data: { name: `Audit link ${Date.now()}`, page: "explore", params: "op=orders&range=last7&by=date&m=revenue" } });
  expect(made.status(), await made.text()).toBe(201);
  const reportId = ((await made.json()) as { report: { id: string } }).report.id;
  const link = await api.post(`/api/saved-reports/${reportId}/links`, { data: { mode: "live", label: "Audit e2e" } });
  expect(link.status(), await link.text()).toBe(201);
  const issued = (await link.json()) as { link: { id: string }; token: string };
  expect((await api.delete(`/api/saved-reports/${reportId}/links/${issued.link.id}`)).status()).toBe(200);

  const res = await api.get(`/api/audit?kind=share_link&subject=${issued.link.id}`);
  expect(res.status()).toBe(200);
  const body = (await res.json()) as { entries: { action: string; actor: string; address: string | null; subject: string }[] };
  expect(body.entries.map((e) => [e.action, e.actor, e.subject])).toEqual([
    ["share_link.revoked", e2eEnv().users.admin.email, "share link Audit e2e"],
    ["share_link.created", e2eEnv().users.admin.email, "share link Audit e2e"],
  ]);
  // The address of the request that made the change, read as the sign-in throttle reads it.
  for (const e of body.entries) expect(e.address).toMatch(/\S/);
  const csv = await (await api.get(`/api/audit?format=csv&kind=share_link&subject=${issued.link.id}`)).text();
  expect(csv).not.toContain(issued.token);
  await context.close();
});

test("an analyst is refused the audit log, the page and its API", async ({ browser }) => {
  const analyst = await (await browser.newContext({ storageState: authFile("analyst") })).newPage();
  await analyst.goto("/");
  await expect(analyst.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit log" })).toHaveCount(0);
  await analyst.goto("/audit");
  await expect(analyst).toHaveURL(/\/\?denied=%2Faudit$/);
  await expect(analyst.getByText("Audit log is for admins; you are signed in as an analyst.", { exact: false })).toBeVisible();
  expect((await analyst.request.get("/api/audit")).status()).toBe(403);
  expect((await analyst.request.get("/api/audit?format=csv")).status()).toBe(403);
  await analyst.context().close();
});
