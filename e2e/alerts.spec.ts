/**
 * Alerts and scheduled reports against the real service, with e-mail off (no SMTP_HOST in
 * e2e): the page says so, and alerts reach the inbox only. An analyst creates a rule through the form
 * that is sure to fire on the e2e data (revenue above $1 per card brand over the last 7 days), reads
 * it back in words, evaluates it now and sees what fired with its numbers (the service's own); the
 * top bar counts the inbox's unread message, the inbox shows it and marks it read; a second
 * evaluation inside the cool-down tells nobody but is listed. A scheduled report is subscribed to
 * through its form, paused, resumed and deleted, and its share link is revoked with it. A bad
 * address is refused at its field and creates nothing. A viewer is sent away from /alerts but reads
 * the alert the rule named them in.
 *
 * The tests share what the first one creates, in order. The rule runs on an hourly minute half an
 * hour away, so the scheduler never evaluates it during the run: every evaluation here is a press of
 * "Evaluate now".
 */
import { expect, test, type Locator, type Page } from "./support/test";
import { authFile, e2eEnv } from "./support/env";
import { formatValue } from "../lib/report/metrics/format";
import { cents, expectNoSeriousA11yViolations, screenshots, serviceCall } from "./support/helpers";

test.use({ storageState: authFile("analyst") });

/** Evaluate now waits for the rule's report in the analyst's turn of the upstream quota. */
const EVALUATION_TIMEOUT = 90_000;

const stamp = Date.now();
const RULE = `Revenue by card brand ${stamp}`;
/** What the rule test learns as it goes. */
const made = { ruleId: "", firing: 0, title: "" };

const inboxLink = (page: Page) => page.getByRole("banner").getByRole("link", { name: /^Inbox\b/ });
const ruleForm = (page: Page) => page.getByRole("form", { name: "New alert rule" });
const ruleItems = (page: Page) => page.getByRole("list", { name: "Alert rules" }).getByRole("listitem").filter({ has: page.getByRole("heading", { level: 3 }) });
const ruleItem = (page: Page, name: string) => ruleItems(page).filter({ has: page.getByRole("heading", { level: 3, name: new RegExp(`^${name} (Active|Paused)$`) }) });
const definitionOf = (item: Locator, term: string) => item.locator(`dt:text-is("${term}") + dd`);
/** The form's rule in words, read back as it is typed. */
const sentence = (form: Locator) => form.locator("p", { hasText: /^(Fires when |Fill in the condition)/ });

/**
 * Everything on /alerts is rendered by the server (the lists are the queries' initial data), so no
 * data appears once the page is live: wait for React to have hydrated the control itself (its props
 * attached to the element) before typing, or the input would be lost.
 */
async function whenHydrated(control: Locator): Promise<void> {
  await expect.poll(() => control.evaluate((el) => Object.keys(el).some((k) => k.startsWith("__reactProps$"))), { message: "the form is live" }).toBe(true);
}

async function unreadByApi(page: Page): Promise<number> {
  const res = await page.request.get("/api/notifications/inbox");
  expect(res.status()).toBe(200);
  return ((await res.json()) as { unread: number }).unread;
}

test("a rule that fires: created in words, evaluated with its numbers, read in the inbox; the cool-down holds the second", async ({ page, browser }) => {
  const { users, endDate } = e2eEnv();
  await page.goto("/alerts");
  await expect(page.getByRole("heading", { level: 1, name: "Alerts" })).toBeVisible();
  // E-mail is off in e2e: said, with what still happens.
  await expect(page.getByText(/^E-mail is off/)).toHaveText(
    "E-mail is off: set SMTP_HOST and MAIL_FROM — alerts and scheduled reports still reach dashboard users in their inbox; other addresses get nothing until it is on.",
  );
  await expect(page.getByText("No alert rules yet. Create one with the form below.")).toBeVisible();
  await expect(inboxLink(page)).toHaveText("Inbox");
  await expectNoSeriousA11yViolations(page); // the new-rule form open, nothing listed

  const form = ruleForm(page);
  const name = form.getByLabel("Name", { exact: true });
  await whenHydrated(name);
  await name.fill(RULE);
  await form.getByLabel("What to watch").selectOption("measure:revenue");
  await form.getByLabel("Fires when it is").selectOption("above");
  await form.getByLabel("Value, in US dollars").fill("1");
  await form.getByLabel("Evaluated per").selectOption("card_brand");
  await form.getByLabel("Window", { exact: true }).selectOption("last7");
  await form.getByLabel("Repeats").selectOption("hour");
  // Half an hour away from now: the scheduler's next slot for the rule falls after the run.
  const minute = (new Date().getUTCMinutes() + 30) % 60;
  await form.getByLabel("At minute past the hour (0–59)").fill(String(minute));
  await form.getByRole("checkbox", { name: `${users.viewer.email} (viewer)` }).check();
  await expect(form.getByRole("checkbox", { name: `${users.analyst.email} (analyst, you)` })).toBeChecked();
  await form.getByLabel("Cool-down (minutes)").fill("60");
  // The form reads the rule back before it is sent (its state has every field typed).
  const inWords = "Revenue above $1.00, over the last 7 days, per Card brand";
  await expect(sentence(form)).toHaveText("Fires when revenue is above $1.00, over the last 7 days, per Card brand.");
  await form.getByRole("button", { name: "Create alert rule" }).click();

  await expect(page.getByRole("status").filter({ hasText: "Alert rule" })).toHaveText(`Alert rule “${RULE}” created.`);
  const item = ruleItem(page, RULE);
  await expect(item).toHaveCount(1);
  await expect(ruleItems(page)).toHaveCount(1);
  await expect(item.getByRole("heading", { level: 3 })).toHaveText(`${RULE} Active`);
  await expect(definitionOf(item, "Watches")).toHaveText(inWords);
  await expect(definitionOf(item, "Schedule")).toHaveText(`Every hour at :${String(minute).padStart(2, "0")} (UTC)`);
  await expect(definitionOf(item, "Recipients")).toHaveText(`${users.analyst.email}, ${users.viewer.email}; you are always told in the inbox`);
  await expect(definitionOf(item, "Cool-down")).toHaveText("60 minutes (1 hour)");
  await expect(item.getByText("Not evaluated yet: it runs at its next scheduled time.")).toBeVisible();
  // The form starts afresh for the next rule.
  await expect(ruleForm(page).getByLabel("Name", { exact: true })).toHaveValue("");
  await expectNoSeriousA11yViolations(page); // after creating, the rule listed and the form open

  const listed = (await (await page.request.get("/api/notifications/alerts")).json()) as { rules: { id: string; name: string }[] };
  made.ruleId = listed.rules.find((r) => r.name === RULE)!.id;
  expect(made.ruleId).toBeTruthy();
  // The address the rules had before the notifications' API took its feature's name still answers, by a redirect.
  const old = await page.request.get(`/api/alerts/${made.ruleId}`);
  expect(old.status()).toBe(200);
  expect(new URL(old.url()).pathname).toBe(`/api/notifications/alerts/${made.ruleId}`);

  // Evaluate now: every card brand's revenue of the last 7 days is above $1.
  await item.getByRole("button", { name: `Evaluate ${RULE} now` }).click();
  const status = page.getByRole("status").filter({ hasText: "evaluated" });
  await expect(status).toHaveText(new RegExp(`^“${RULE}” evaluated: (\\d+) firing; the recipients were told\\.$`), { timeout: EVALUATION_TIMEOUT });
  made.firing = Number(/: (\d+) firing/.exec((await status.textContent())!)![1]);
  expect(made.firing).toBeGreaterThanOrEqual(1);
  const latest = item.locator("h4:text-is('Last evaluations') + div");
  const fired = latest.getByRole("listitem");
  await expect(fired).toHaveCount(made.firing);
  // Both users named were told in their inbox (e-mail is off: no e-mail).
  await expect(latest.getByText(/^Told \d+ in the inbox/)).toHaveText("Told 2 in the inbox.");

  // Each group fired with its number: the service's revenue per card brand over the same 7 days.
  const start = new Date(Date.parse(`${endDate}T00:00:00Z`) - 6 * 86_400_000).toISOString().slice(0, 10);
  const direct = await serviceCall("/api/data", { start_date: start, end_date: endDate, group_by: ["card_brand"], metrics: ["revenue"] });
  const brands = direct.data.filter((r) => Number(r.revenue) > 1);
  expect(brands.length).toBe(made.firing);
  for (const row of brands) {
    const line = fired.filter({ hasText: new RegExp(`^${row.card_brand}: `, "i") });
    await expect(line).toHaveCount(1);
    const text = (await line.textContent())!;
    expect(text).toMatch(/^[^:]+: Revenue \$[\d,]+\.\d{2} \(fired\)$/);
    expect(cents(/\$([\d,]+\.\d{2})/.exec(text)![1]!.replace(/,/g, ""))).toBe(cents(row.revenue));
  }
  await screenshots(page, "alerts-evaluated");

  // The top bar counts the new message.
  await expect(inboxLink(page)).toHaveText(/^Inbox \((\d+) unread\)$/);
  const count = Number(/\((\d+) unread\)/.exec((await inboxLink(page).textContent())!)![1]);
  expect(count).toBeGreaterThanOrEqual(1);

  // The inbox: the alert, unread, titled with the rule's name.
  await inboxLink(page).click();
  await expect(page).toHaveURL(/\/inbox$/);
  await expect(page.getByRole("heading", { level: 1, name: "Inbox" })).toBeVisible();
  made.title = `${RULE}: ${made.firing} firing`;
  const message = page.getByRole("article", { name: `Unread ${made.title}` });
  await expect(message).toBeVisible();
  await expect(message).toContainText("Alert ·");
  await expect(message).toContainText(`Condition: Revenue above $1.00, over the last 7 days (${start} to ${endDate}).`);
  await expect(message.getByRole("link", { name: `Open ${made.title}` })).toHaveAttribute("href", /^\/explore\?/);
  await expect(page.getByText(`${count} message${count === 1 ? "" : "s"}, ${count} unread.`)).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  // The viewer named as a recipient reads the same alert in their inbox.
  const viewerContext = await browser.newContext({ storageState: authFile("viewer") });
  try {
    const viewer = await viewerContext.newPage();
    await viewer.goto("/inbox");
    await expect(viewer.getByRole("article", { name: `Unread ${made.title}` })).toBeVisible();
    await expect(inboxLink(viewer)).toHaveText("Inbox (1 unread)");
  } finally {
    await viewerContext.close();
  }
  await screenshots(page, "inbox-unread");

  const markRead = message.getByRole("button", { name: `Mark read: ${made.title}` });
  await whenHydrated(markRead);
  await markRead.click();
  await expect(page.getByRole("status").filter({ hasText: "marked read" })).toHaveText(`“${made.title}” marked read.`);
  const read = page.getByRole("article", { name: made.title, exact: true });
  await expect(read).toBeVisible();
  await expect(read).toContainText(" · read");
  await expect(read.getByRole("button", { name: /^Mark read/ })).toHaveCount(0);
  // The count goes away (this run's only unread message).
  await expect(inboxLink(page)).toHaveText("Inbox");
  expect(await unreadByApi(page)).toBe(0);

  // Again, inside the 60-minute cool-down: nothing new is told, but the evaluation is listed.
  await page.goto("/alerts");
  const again = ruleItem(page, RULE);
  const evaluate = again.getByRole("button", { name: `Evaluate ${RULE} now` });
  await whenHydrated(evaluate);
  // The top bar asks for its count again after an evaluation: wait for that answer before reading it.
  const responses: string[] = [];
  page.on("response", (r) => responses.push(new URL(r.url()).pathname));
  await evaluate.click();
  await expect(page.getByRole("status").filter({ hasText: "evaluated" })).toHaveText(`“${RULE}” evaluated: nothing new to tell.`, { timeout: EVALUATION_TIMEOUT });
  await expect.poll(() => responses.slice(responses.indexOf(`/api/notifications/alerts/${made.ruleId}/evaluate`) + 1).includes("/api/notifications/inbox")).toBe(true);
  await expect(again.getByText(/^Nothing new to tell/)).toHaveText(`Nothing new to tell (${made.firing} of ${made.firing} ${made.firing === 1 ? "group meets" : "groups meet"} the condition).`);
  const earlier = again.getByText("Earlier evaluations (1)");
  await expect(earlier).toBeVisible();
  await earlier.click();
  await expect(again.getByRole("listitem").filter({ hasText: /^[^:]+: Revenue \$[\d,]+\.\d{2} \(fired\)$/ })).toHaveCount(made.firing);
  await expect(inboxLink(page)).toHaveText("Inbox");
  expect(await unreadByApi(page)).toBe(0);
});

test("subscribe to a saved report weekly; pause, resume, delete, and its link is revoked", async ({ page }) => {
  const { users } = e2eEnv();
  const reportName = `Card brands weekly ${stamp}`;
  const created = await page.request.post("/api/saved-reports", {
    data: { name: reportName, page: "explore", params: "op=orders&range=last7&by=card_brand&m=revenue" },
  });
  expect(created.status()).toBe(201);
  const reportId = ((await created.json()) as { report: { id: string } }).report.id;
  expect(reportId).toBeTruthy();

  await page.goto("/alerts");
  const form = page.getByRole("form", { name: "Subscribe" });
  const report = form.getByLabel("Report or dashboard");
  await whenHydrated(report);
  await report.selectOption({ label: `${reportName} (${users.analyst.email})` });
  await form.getByLabel("Repeats").selectOption("week");
  await form.getByLabel("On", { exact: true }).selectOption("Monday");
  await form.getByLabel("At (UTC)").selectOption("08:00");
  await expect(form.getByText("Every Monday at 08:00 (UTC).")).toBeVisible();
  await form.getByRole("checkbox", { name: `${users.viewer.email} (viewer)` }).check();
  // Mail goes only to the users' own domain unless an admin allowed another: refused at the field, naming the setting.
  const others = form.getByLabel("Other e-mail addresses (one per line)");
  await others.fill("finance@example.com");
  await form.getByRole("button", { name: "Subscribe" }).click();
  await expect(form.getByRole("group", { name: "Recipients" })).toContainText("“finance@example.com”: example.com is not a domain mail may go to");
  await others.fill("finance@e2e.test");
  await form.getByRole("button", { name: "Subscribe" }).click();

  await expect(page.getByRole("status").filter({ hasText: "Scheduled report" })).toHaveText(`Scheduled report of “${reportName}” created.`);
  const list = page.getByRole("list", { name: "Scheduled reports" });
  const item = list.getByRole("listitem").filter({ has: page.getByRole("link", { name: reportName, exact: true }) });
  await expect(item).toHaveCount(1);
  await expect(item.getByRole("link", { name: reportName, exact: true })).toHaveAttribute("href", /^\/explore\?.*by=card_brand/);
  await expect(item.getByRole("heading", { level: 3 })).toHaveText(`${reportName} Active`);
  await expect(item).toContainText("Explore report");
  await expect(definitionOf(item, "Schedule")).toHaveText("Every Monday at 08:00 (UTC)");
  await expect(definitionOf(item, "Recipients")).toHaveText(`${users.analyst.email}, ${users.viewer.email}, finance@e2e.test`);
  await expect(definitionOf(item, "Link")).toHaveText("Its own live share link, listed under the report’s share links; deleting this revokes it.");
  await expectNoSeriousA11yViolations(page);

  // Its own live share link, listed under the report's links.
  const subs = (await (await page.request.get("/api/notifications/subscriptions")).json()) as { subscriptions: { id: string; reportId: string; shareLinkId: string | null }[] };
  const sub = subs.subscriptions.find((s) => s.reportId === reportId)!;
  expect(sub.shareLinkId).toBeTruthy();
  const linksBefore = (await (await page.request.get(`/api/saved-reports/${reportId}/links`)).json()) as { links: { id: string; revokedAt: string | null }[] };
  expect(linksBefore.links.find((l) => l.id === sub.shareLinkId)?.revokedAt).toBeNull();

  await item.getByRole("button", { name: `Pause the scheduled report of ${reportName}` }).click();
  await expect(item.getByRole("heading", { level: 3 })).toHaveText(`${reportName} Paused`);
  await expect(page.getByRole("status").filter({ hasText: "Scheduled report" })).toHaveText(`The scheduled report of “${reportName}” paused: nothing is sent until resumed.`);
  await item.getByRole("button", { name: `Resume the scheduled report of ${reportName}` }).click();
  await expect(item.getByRole("heading", { level: 3 })).toHaveText(`${reportName} Active`);
  await expect(page.getByRole("status").filter({ hasText: "Scheduled report" })).toHaveText(`The scheduled report of “${reportName}” resumed.`);

  const dialog = new Promise<string>((resolve) =>
    page.once("dialog", (d) => {
      resolve(d.message());
      void d.accept();
    }),
  );
  await item.getByRole("button", { name: `Delete the scheduled report of ${reportName} and revoke its link` }).click();
  expect(await dialog).toBe(`Stop sending “${reportName}”? Its share link is revoked too, so the links in e-mails already sent stop working.`);
  await expect(page.getByRole("status").filter({ hasText: "Scheduled report" })).toHaveText(`The scheduled report of “${reportName}” deleted, and its link revoked.`);
  await expect(item).toHaveCount(0);
  await expect(page.getByText("No scheduled reports yet. Subscribe to a saved report or dashboard with the form below.")).toBeVisible();

  const linksAfter = await page.request.get(`/api/saved-reports/${reportId}/links`);
  expect(linksAfter.status()).toBe(200);
  const after = ((await linksAfter.json()) as { links: { id: string; revokedAt: string | null }[] }).links;
  expect(after.find((l) => l.id === sub.shareLinkId)?.revokedAt).toEqual(expect.any(String));
  expect(after.filter((l) => l.revokedAt === null)).toEqual([]);
});

test("a rule with a bad e-mail address is refused at its field and creates nothing", async ({ page }) => {
  const rulesNow = async () => ((await (await page.request.get("/api/notifications/alerts")).json()) as { rules: { id: string }[] }).rules.map((r) => r.id);
  const before = await rulesNow();
  await page.goto("/alerts");
  await expect(ruleItems(page)).toHaveCount(before.length);
  const form = ruleForm(page);
  const name = form.getByLabel("Name", { exact: true });
  await whenHydrated(name);
  const badName = `Bad address ${stamp}`;
  await name.fill(badName);
  await form.getByLabel("Value, in percent").fill("85");
  const emails = form.getByLabel("Other e-mail addresses (one per line)");
  await emails.fill("not-an-email");
  await form.getByRole("button", { name: "Create alert rule" }).click();

  const summary = form.getByRole("alert");
  await expect(summary).toContainText("The rule was not created.");
  await expect(summary).toContainText("Recipients: “not-an-email”: not an e-mail address");
  // At the field: the textarea is marked invalid and described by its error.
  await expect(emails).toHaveAttribute("aria-invalid", "true");
  await expect(emails).toHaveAccessibleDescription(/“not-an-email”: not an e-mail address$/);
  await expect(form.getByRole("group", { name: "Recipients" })).toContainText("“not-an-email”: not an e-mail address");
  // Nothing typed is lost, and nothing was created.
  await expect(name).toHaveValue(badName);
  await expect(emails).toHaveValue("not-an-email");
  await expect(ruleItems(page)).toHaveCount(before.length);
  await expect(page.getByRole("heading", { level: 3, name: new RegExp(`^${badName}`) })).toHaveCount(0);
  expect(await rulesNow()).toEqual(before);
  await expectNoSeriousA11yViolations(page); // the form showing its errors
  await screenshots(page, "alerts-refused");
});

test("a programme ratio with 1 typed and the condition left alone is saved as above 1.00%, as the form said before saving", async ({ page }) => {
  const ruleName = `Mastercard ECP over 1% ${stamp}`;
  const pct = formatValue(0.01, "percent");
  await page.goto("/alerts");
  const form = ruleForm(page);
  const name = form.getByLabel("Name", { exact: true });
  await whenHydrated(name);
  await name.fill(ruleName);
  // A new rule starts on the approval rate, whose bad news is a fall.
  await expect(form.getByLabel("Fires when it is")).toHaveValue("below");
  await form.getByLabel("What to watch").selectOption("programme:mastercard-ecp");
  // A programme's ratio is bad news when it rises: the untouched condition follows.
  await expect(form.getByLabel("Fires when it is")).toHaveValue("above");
  await expect(sentence(form)).toHaveText("Fill in the condition to see the rule in words.");
  const value = form.getByLabel("Value, in percent");
  await value.fill("1.5");
  await expect(sentence(form)).toHaveText(`Fires when the Mastercard Excessive Chargeback Program ratio is above ${formatValue(0.015, "percent")}, over the month to date, per MID and card brand.`);
  await value.fill("1");
  await expect(sentence(form)).toHaveText(`Fires when the Mastercard Excessive Chargeback Program ratio is above ${pct}, over the month to date, per MID and card brand.`);
  // Half an hour away, as above, so that the scheduler never runs it (it would warm the Monitor's cache).
  await form.getByLabel("At minute past the hour (0–59)").fill(String((new Date().getUTCMinutes() + 30) % 60));
  await form.getByRole("button", { name: "Create alert rule" }).click();

  await expect(page.getByRole("status").filter({ hasText: "Alert rule" })).toHaveText(`Alert rule “${ruleName}” created.`);
  const item = ruleItem(page, ruleName);
  await expect(definitionOf(item, "Watches")).toHaveText(`Mastercard Excessive Chargeback Program ratio above ${pct}, over the month to date, per MID and card brand`);
  const listed = (await (await page.request.get("/api/notifications/alerts")).json()) as { rules: { id: string; name: string; definition: unknown }[] };
  const saved = listed.rules.find((r) => r.name === ruleName)!;
  expect(saved.definition).toMatchObject({ target: { kind: "programme", programme: "mastercard-ecp" }, condition: { kind: "above", value: 0.01 } });
  // A condition chosen by hand stays when the measure changes.
  const next = ruleForm(page);
  await whenHydrated(next.getByLabel("Name", { exact: true }));
  await next.getByLabel("Fires when it is").selectOption("below");
  await next.getByLabel("What to watch").selectOption("programme:mastercard-ecp");
  await expect(next.getByLabel("Fires when it is")).toHaveValue("below");
  await expectNoSeriousA11yViolations(page);

  expect((await page.request.delete(`/api/notifications/alerts/${saved.id}`)).status()).toBe(200);
});

test.describe("as a viewer", () => {
  test.use({ storageState: authFile("viewer") });

  test("a viewer is sent away from /alerts, and can open the inbox", async ({ page }) => {
    await page.goto("/alerts");
    await expect(page).toHaveURL(/\/\?denied=%2Falerts$/);
    await expect(page.getByRole("alert").filter({ hasText: "Alerts is" })).toHaveText(
      "Alerts is for analysts and admins; you are signed in as a viewer. Ask an administrator if you need it.",
    );
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Alerts" })).toHaveCount(0);

    await page.goto("/inbox");
    await expect(page).toHaveURL(/\/inbox$/);
    await expect(page.getByRole("heading", { level: 1, name: "Inbox" })).toBeVisible();
    await expectNoSeriousA11yViolations(page);
  });
});
