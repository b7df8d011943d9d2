/**
 * Hardening against the running dashboard: security headers, framing, cross-site writes,
 * signed-out cookies, the sign-in redirect, and throttles under parallel guesses.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type APIRequestContext, type Browser } from "./support/test";
import { authFile, e2eEnv } from "./support/env";

test.use({ storageState: authFile("analyst") });

async function shareLink(request: APIRequestContext, body: object = { mode: "live" }): Promise<{ token: string; url: string; name: string }> {
  const name = `Hardening ${Date.now()}`;
  const saved = await request.post("/api/saved-reports", { data: { name, page: "explore", params: "op=orders&range=last7&by=date&m=attempts" } });
  expect(saved.status()).toBe(201);
  const { report } = (await saved.json()) as { report: { id: string } };
  const link = await request.post(`/api/saved-reports/${report.id}/links`, { data: body });
  expect(link.status()).toBe(201);
  return { ...((await link.json()) as { token: string; url: string }), name };
}

async function signIn(browser: Browser, callbackUrl?: string) {
  const { users } = e2eEnv();
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto(callbackUrl === undefined ? "/login" : `/login?callbackUrl=${callbackUrl}`);
  await page.getByLabel("E-mail").fill(users.analyst.email);
  await page.getByLabel("Password").fill(users.analyst.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
  return { context, page };
}

test("every page and API response carries the security headers, and pages run under their CSP", async ({ page, request }) => {
  const { token } = await shareLink(request);
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content.Security.Policy/i.test(m.text())) violations.push(m.text());
  });
  for (const path of ["/", "/explore", "/cohorts", "/bin-lookup", "/reports", "/definitions", `/share/${token}`, "/login"]) {
    const res = await page.goto(path);
    const h = res!.headers();
    expect(h["x-content-type-options"], path).toBe("nosniff");
    expect(h["referrer-policy"], path).toBeTruthy();
    expect(h["content-security-policy"], path).toContain("frame-ancestors 'none'");
    expect(h["content-security-policy"], path).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
    expect(h["strict-transport-security"], path).toBeUndefined(); // plain http here
  }
  // The app works under its own policy: a report runs (client scripts, fetches, the chart).
  await page.goto("/explore?op=orders&range=last7&by=date&m=attempts");
  await expect(page.getByRole("row", { name: "Totals" })).toBeVisible();
  expect(violations).toEqual([]);
  for (const path of ["/api/health", "/api/upstream/status", "/api/saved-reports"]) {
    const res = await request.get(path);
    expect(res.headers()["x-content-type-options"], path).toBe("nosniff");
    expect(res.headers()["content-security-policy"], path).toContain("frame-ancestors 'none'");
  }
});

test("a share page cannot be framed by another site", async ({ browser, request }) => {
  const { url, name } = await shareLink(request);
  // A page on another origin (another port) that tries to frame the report.
  const server: Server = createServer((_, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html><title>framer</title><iframe id="f" src="${url}" width="800" height="600"></iframe>`);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  const visitor = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await visitor.newPage();
  try {
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForTimeout(1500);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame).toBeDefined();
    const text = await frame!.evaluate(() => document.body?.innerText ?? "").catch(() => "");
    expect(text).not.toContain(name);
    // The same link opened directly works.
    await page.goto(url);
    await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  } finally {
    await visitor.close();
    server.close();
  }
});

test("state-changing requests from another site are refused, with or without a body", async ({ request }) => {
  const cross = { "sec-fetch-site": "cross-site" };
  const saved = await request.post("/api/saved-reports", { headers: cross, data: { name: "x", page: "explore", params: "range=last7" } });
  expect(saved.status()).toBe(403);
  expect(((await saved.json()) as { error: { type: string } }).error.type).toBe("ForbiddenError");
  const evilOrigin = await request.post("/api/saved-reports", { headers: { origin: "https://evil.example" }, data: { name: "x", page: "explore", params: "range=last7" } });
  expect(evilOrigin.status()).toBe(403);
  // A body-less write (rotate a link) is checked the same way.
  const listed = (await (await request.get("/api/saved-reports")).json()) as { reports: { id: string }[] };
  const id = listed.reports[0]?.id ?? "00000000-0000-0000-0000-000000000000";
  const rotate = await request.post(`/api/saved-reports/${id}/links/00000000-0000-0000-0000-000000000000/rotate`, { headers: cross });
  expect(rotate.status()).toBe(403);
  // The dashboard's own pages pass.
  const ok = await request.post("/api/saved-reports", { headers: { "sec-fetch-site": "same-origin" }, data: { name: "same origin", page: "explore", params: "range=last7" } });
  expect(ok.status()).toBe(201);
});

test("signing out ends the session on the server: a copied cookie stops working", async ({ browser }) => {
  const { context, page } = await signIn(browser);
  const cookies = await context.cookies();
  expect((await page.request.get("/api/upstream/status")).status()).toBe(200);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
  const thief = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  await thief.addCookies(cookies);
  expect((await thief.request.get("/api/upstream/status")).status()).toBe(401);
  await thief.close();
  await context.close();
});

test("sign-in through a hostile callbackUrl stays on the dashboard", async ({ browser }) => {
  const { dashboardUrl } = e2eEnv();
  for (const hostile of ["%2F%09%2Fevil.example", "%2F%5Cevil.example", "https%3A%2F%2Fevil.example%2F", "%2F%2Fevil.example"]) {
    const { context, page } = await signIn(browser, hostile);
    expect(new URL(page.url()).origin).toBe(dashboardUrl);
    await context.close();
  }
});

test("parallel wrong guesses are checked at most up to the limits", async ({ playwright, request }) => {
  const { dashboardUrl } = e2eEnv();
  const { token } = await shareLink(request, { mode: "live", password: "correct horse battery" });

  // 50 wrong share passwords at once from one address: at most 20 are checked.
  const visitor = await playwright.request.newContext({ baseURL: dashboardUrl });
  const unlocks = await Promise.all(
    Array.from({ length: 50 }, () =>
      visitor.post(`/api/share/${token}/unlock`, { form: { password: "wrong guess" }, headers: { "x-forwarded-for": "198.51.100.200" }, maxRedirects: 0 }),
    ),
  );
  const outcomes = unlocks.map((r) => new URL(r.headers()["location"] ?? "", dashboardUrl).searchParams.get("error"));
  expect(outcomes.filter((o) => o === "wrong").length).toBeLessThanOrEqual(20);
  expect(outcomes.filter((o) => o === "throttled").length).toBeGreaterThanOrEqual(30);
  // Someone else (another address) with the right password still gets in.
  const other = await visitor.post(`/api/share/${token}/unlock`, { form: { password: "correct horse battery" }, headers: { "x-forwarded-for": "198.51.100.201" }, maxRedirects: 0 });
  expect(other.headers()["set-cookie"] ?? "").toContain("share_unlock");

  await visitor.dispose();

  // 50 wrong sign-ins to one account at once from one address: at most 5 are checked. A context of
  // their own, on new connections: on a busy machine the first batch's idle ones can reach the
  // server's keep-alive limit just as they are reused, and the request is reset on the way.
  const signer = await playwright.request.newContext({ baseURL: dashboardUrl });
  const csrf = (await (await signer.get("/api/auth/csrf")).json()) as { csrfToken: string };
  const signIns = await Promise.all(
    Array.from({ length: 50 }, () =>
      signer.post("/api/auth/callback/credentials", {
        form: { csrfToken: csrf.csrfToken, email: "target@e2e.test", password: "wrong guess", json: "true" },
        headers: { "x-forwarded-for": "198.51.100.202" },
        maxRedirects: 0,
      }),
    ),
  );
  const errors = await Promise.all(
    signIns.map(async (r) => {
      const location = r.headers()["location"] ?? ((await r.json().catch(() => ({}))) as { url?: string }).url ?? "";
      return decodeURIComponent(new URL(location, dashboardUrl).searchParams.get("error") ?? "");
    }),
  );
  expect(errors.filter((e) => e === "CredentialsSignin").length).toBeLessThanOrEqual(5);
  expect(errors.filter((e) => e.startsWith("Throttled:")).length).toBeGreaterThanOrEqual(45);
  await signer.dispose();
});
