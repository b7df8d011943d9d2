/**
 * Scheduled reports with e-mail on, as `npm start` runs them: a dashboard of its own (the run's
 * built dashboard, its own store) whose mail goes to the demo mail sink, which this spec starts, and
 * the real service the other specs use. In Chromium: the preview shows the e-mail and sends nothing;
 * Send now puts both e-mails in the sink, where an admin reads them at /mail; the outside
 * recipient's e-mail holds a share link that opens without signing in, counts the view, and stops
 * working when revoked; a dashboard user's holds the in-app link; an analyst may not read the sink.
 *
 * The shared dashboard of the other specs keeps e-mail off (e2e/alerts.spec.ts says so), hence a
 * second one here.
 */
import { join, resolve } from "node:path";
import { expect, test, type Browser, type BrowserContext, type Locator, type Page } from "./support/test";
import { startMailSink, type MailSink } from "../lib/core/mail/sink";
import { dashboardEnvFor, e2eEnv } from "./support/env";
import { createUser, ownDashboardStore, startOwnDashboard, type OwnDashboard } from "./support/own-dashboard";

/** The mail dashboard's address, on a free port (set before the tests run). */
let BASE = "";
const stamp = Date.now().toString(36);

let sink: MailSink;
let dashboard: OwnDashboard | undefined;
const people = {} as Record<"admin" | "analyst", { email: string; password: string }>;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  const env = e2eEnv();
  const dir = join(env.dir, "notify-daily");
  const db = await ownDashboardStore(dir);
  for (const role of ["admin", "analyst"] as const) people[role] = createUser(db, `mail-${role}-${stamp}@e2e.test`, role);
  sink = await startMailSink({ dir: resolve(dir, "mail"), port: 0 });
  dashboard = await startOwnDashboard("mail", dir, {
    ...dashboardEnvFor(env, 5, 10),
    SMTP_HOST: sink.host,
    SMTP_PORT: String(sink.port),
    SMTP_TLS: "none",
    SMTP_USER: sink.auth.user,
    SMTP_PASSWORD: sink.auth.pass,
    MAIL_FROM: "alerts@demo.local",
    MAIL_SINK_DIR: sink.dir,
  });
  BASE = dashboard.url;
});

test.afterAll(async () => {
  await dashboard?.stop();
  await sink?.close();
});

async function signedIn(browser: Browser, role: "admin" | "analyst"): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: BASE });
  const page = await context.newPage();
  await page.goto("/login");
  await page.getByLabel("E-mail").fill(people[role].email);
  await page.getByLabel("Password").fill(people[role].password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
  return { context, page };
}

/** /alerts is drawn by the server: a control works once React has hydrated it. */
async function whenHydrated(control: Locator): Promise<void> {
  await expect.poll(() => control.evaluate((el) => Object.keys(el).some((k) => k.startsWith("__reactProps$"))), { message: "the page is live" }).toBe(true);
}

test("Send now puts the e-mails in the demo sink an admin reads; the preview sends nothing; the outside recipient's share link opens without signing in, counts, and is revocable", async ({ browser }) => {
  test.setTimeout(300_000);
  const { page } = await signedIn(browser, "admin");
  const reportName = `Gateways for partners ${stamp}`;
  const created = await page.request.post("/api/saved-reports", { data: { name: reportName, page: "explore", params: "op=orders&range=last7&by=gateway_alias&m=attempts,revenue" } });
  expect(created.status()).toBe(201);
  const reportId = ((await created.json()) as { report: { id: string } }).report.id;
  // The admin by address (a dashboard user: the in-app link) and a partner who is no user (the share link).
  const partner = `partner-${stamp}@e2e.test`;
  const subscribed = await page.request.post("/api/notifications/subscriptions", {
    data: { report_id: reportId, schedule: { every: "week", weekday: 1, hour: 8 }, recipients: { users: [], emails: [people.admin.email, partner] } },
  });
  expect(subscribed.status(), await subscribed.text()).toBe(201);
  const subscription = ((await subscribed.json()) as { subscription: { id: string; shareLinkId: string } }).subscription;

  await page.goto("/alerts");
  await expect(page.getByText(/^E-mail is on: 127\.0\.0\.1:\d+ \(no encryption\), from alerts@demo\.local/)).toBeVisible();
  const item = page.getByRole("list", { name: "Scheduled reports" }).getByRole("listitem").filter({ has: page.getByRole("link", { name: reportName, exact: true }) });
  const previewButton = item.getByRole("button", { name: `Preview the next e-mail of ${reportName}` });
  await whenHydrated(previewButton);

  // The preview: each audience's e-mail, its HTML in a sandbox, and nothing sent.
  await previewButton.click();
  const preview = item.getByRole("region", { name: `Preview of ${reportName}` });
  await expect(preview.getByText(/^Nothing was sent\./)).toBeVisible({ timeout: 90_000 });
  const toUsers = preview.getByRole("article", { name: "To dashboard users (links into the dashboard)" });
  const toOutside = preview.getByRole("article", { name: "To outside addresses" });
  await expect(toUsers.getByRole("definition").first()).toHaveText(people.admin.email);
  await expect(toOutside.getByRole("definition").first()).toHaveText(partner);
  await expect(toOutside.getByText(new RegExp(`^${reportName}: Last 7 days, as shared: \\d{4}-\\d{2}-\\d{2} to \\d{4}-\\d{2}-\\d{2} \\(UTC\\)$`))).toBeVisible();
  await expect(toOutside.locator("iframe")).toHaveAttribute("sandbox", "");
  await expect(toOutside.frameLocator("iframe").getByRole("heading", { level: 1 })).toHaveText(reportName);
  await expect(toOutside.getByText("The share link is shown by its last characters; the e-mail carries the whole link.")).toBeVisible();
  const mailNow = async () => ((await (await page.request.get("/api/mail")).json()) as { messages: { id: string; to: string[]; subject: string }[] }).messages;
  expect(await mailNow()).toEqual([]);

  // Send now: both e-mails go through the outbox to the sink; the schedule stays as it was.
  await item.getByRole("button", { name: `Send ${reportName} now` }).click();
  await expect(page.getByRole("status").filter({ hasText: "sent now" })).toHaveText(`“${reportName}” sent now: 2 e-mails queued, 0 inbox messages. Its schedule is unchanged.`, { timeout: 90_000 });
  await expect.poll(async () => (await mailNow()).map((m) => m.to.join(",")).sort(), { timeout: 60_000, message: "both e-mails reach the sink" }).toEqual([people.admin.email, partner].sort());

  // The sink viewer, newest first, with to, subject and time; the partner's e-mail holds the share link.
  await page.goto("/mail");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Demo mail");
  const rows = page.getByRole("table").getByRole("row");
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(1).getByRole("cell").nth(2)).toHaveText(new RegExp(`^${reportName}: `));
  await rows.filter({ hasText: partner }).getByRole("link").click();
  const message = page.getByRole("article", { name: "Message" });
  await expect(message.getByRole("heading", { level: 2 })).toHaveText(new RegExp(`^${reportName}: `));
  await expect(message.locator("iframe")).toHaveAttribute("sandbox", "");
  await expect(message.frameLocator("iframe").getByRole("link", { name: "Open the report" })).toBeVisible();
  const text = (await message.locator("pre").textContent()) ?? "";
  const shareUrl = new RegExp(`${BASE}/share/[A-Za-z0-9_-]{43}`).exec(text)?.[0];
  expect(shareUrl, text).toBeDefined();
  expect(text).not.toContain(`/reports/${reportId}`);
  await page.goto("/mail");
  await page.getByRole("table").getByRole("row").filter({ hasText: people.admin.email }).getByRole("link").click();
  const own = (await page.getByRole("article", { name: "Message" }).locator("pre").textContent()) ?? "";
  expect(own).toContain(`Open the report: ${BASE}/reports/${reportId}`);
  expect(own).not.toContain("/share/");

  // Someone with no account opens the link: the report, no sign-in.
  const visitor = await browser.newContext({ baseURL: BASE });
  const outsider = await visitor.newPage();
  await outsider.goto(shareUrl!);
  await expect(outsider).not.toHaveURL(/\/login/);
  await expect(outsider.getByRole("heading", { level: 1 })).toHaveText(reportName);

  // Listed under the report's links, labelled by the subscription, the view counted; revoked there, it stops.
  const links = async () => ((await (await page.request.get(`/api/saved-reports/${reportId}/links`)).json()) as { links: { id: string; label: string | null; viewCount: number; revokedAt: string | null }[] }).links;
  const listed = (await links()).find((l) => l.id === subscription.shareLinkId);
  expect(listed).toMatchObject({ label: "Scheduled report: Every Monday at 08:00 (UTC)", revokedAt: null });
  expect(listed!.viewCount).toBeGreaterThanOrEqual(1);
  const revoked = await page.request.delete(`/api/saved-reports/${reportId}/links/${subscription.shareLinkId}`);
  expect(revoked.status()).toBe(200);
  await outsider.reload();
  await expect(outsider.getByRole("heading", { level: 1 })).toHaveText("This link has been revoked");
  await visitor.close();
});

test("an analyst may not read the demo sink: the page sends them home, the API answers 403, and ids are not paths", async ({ browser }) => {
  const { page } = await signedIn(browser, "analyst");
  await page.goto("/mail");
  await expect(page).toHaveURL(/[?&]denied=%2Fmail/);
  expect((await page.request.get("/api/mail")).status()).toBe(403);
  const admin = await signedIn(browser, "admin");
  for (const id of ["..%2F..%2Fdashboard.log", "..", "2026-01-01T00-00-00-000Z-1"]) {
    const res = await admin.page.request.get(`/api/mail/${id}`);
    expect(res.status(), id).toBe(404);
  }
});
