/**
 * The routing workspace in Chromium, against the real service and dashboard (two-person rule on):
 * an admin edits a copy of the live configuration (a bad BIN prefix refused at its field, the diff
 * and a preview that advances no rotation), proposes it; a second admin the proposer made after
 * proposing (and whose password the proposer was shown) is refused; an analyst holding the routing
 * permission from before approves it; the service
 * then really routes the BIN by the new rule, the page shows the new live version, and the audit
 * log holds the proposal, the approval and the apply; a proposed restore is rejected with a reason. An analyst without the routing permission
 * reads the workspace with no edit control; a viewer is turned away; a phone shows it without
 * sideways scrolling.
 */
import { expect, test, type Browser, type BrowserContext, type Page } from "./support/test";
import type { BinRoutingResponse } from "../lib/contract/bin-routing";
import type { WorkspaceAnswer } from "../lib/features/routing/model";
import { expectNoSeriousA11yViolations, expectNoSidewaysScroll, screenshots, serviceCall } from "./support/helpers";
import { authFile, e2eEnv } from "./support/env";

/** An 8-digit BIN no generated rule names, so only the rule this spec adds decides where it goes. */
const BIN = "45999901";
const RULE = `e2e route ${BIN}`;

async function workspace(context: BrowserContext): Promise<WorkspaceAnswer> {
  const res = await context.request.get("/api/routing");
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as WorkspaceAnswer;
}

/** A second admin, made through the users API and signed in through the sign-in page. */
async function secondAdmin(browser: Browser, admin: BrowserContext): Promise<BrowserContext> {
  const email = `routing.second.${Date.now()}@e2e.test`;
  const made = await admin.request.post("/api/users", { data: { email, role: "admin" } });
  expect(made.status(), await made.text()).toBe(201);
  const { password } = (await made.json()) as { password: string };
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto("/login");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
  await page.close();
  return context;
}

const liveVersionLine = (page: Page) => page.getByTestId("routing-live-version");

/** Grants or withdraws the e2e analyst's routing permission (the Users page's API), as the admin. */
async function analystRouting(admin: BrowserContext, routing: boolean): Promise<void> {
  const list = await admin.request.get("/api/users");
  expect(list.status()).toBe(200);
  const { users } = (await list.json()) as { users: { id: string; email: string }[] };
  const analyst = users.find((u) => u.email === e2eEnv().users.analyst.email);
  expect(analyst, "the e2e analyst exists").toBeTruthy();
  const res = await admin.request.patch(`/api/users/${analyst!.id}`, { data: { routing } });
  expect(res.status(), await res.text()).toBe(200);
}

test("an admin proposes a change, an account the admin made cannot approve it, an independent editor does; routing follows it and the audit log has every step", async ({ browser }) => {
  test.setTimeout(180_000);
  const admin = await browser.newContext({ storageState: authFile("admin") });
  // The analyst (made by the users CLI: the admin never saw their password) may change routing from before the proposal.
  await analystRouting(admin, true);
  try {
  const before = await workspace(admin);
  expect(before.two_person).toBe(true);
  expect(before.can_edit).toBe(true);
  const live = before.live!;
  const target = live.config.groups.find((g) => !g.is_fallback && g.members.some((m) => m.active !== false));
  expect(target, "the generated configuration has a group besides the fallback with an active member").toBeTruthy();
  const activeMids = target!.members.filter((m) => m.active !== false).map((m) => String(m.gateway_id));
  const reason = `e2e: ${BIN} to ${target!.group_name} (${Date.now()})`;

  const page = await admin.newPage();
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Routing" }).click();
  await expect(page.getByRole("heading", { name: "Routing", level: 1 })).toBeVisible();
  await expect(liveVersionLine(page)).toContainText(`Version ${live.version},`);
  await expect(page.getByRole("table", { name: "Live routing rules in precedence order" })).toBeVisible();

  await page.getByRole("button", { name: "Edit a copy" }).click();
  await page.getByRole("button", { name: "Add BIN rule" }).click();
  // The rule just added is the editor's last row; its fields are named after the rule, which is renamed below.
  const added = page.getByTestId("routing-editor").locator("tr[data-rule-index]").last();
  const prefix = added.getByLabel(/^BIN prefix of /);
  // Too short: refused at the field, in the service's words, and nothing can be proposed.
  await prefix.fill("4599");
  await expect(prefix).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("bin_prefix must be a string of 6 to 8 digits")).toBeVisible();
  await expect(page.getByRole("button", { name: "Propose" })).toBeDisabled();
  await prefix.fill(BIN);
  await added.getByLabel(/^Group of /).selectOption(String(target!.group_id));
  await added.getByLabel(/^Name of rule /).fill(RULE);
  await expect(prefix).not.toHaveAttribute("aria-invalid", "true");

  const diff = page.getByTestId("routing-diff");
  await expect(diff).toContainText(`Added BIN rule "${RULE}"`);
  await expect(diff).toContainText(`Traffic whose rule changes: BIN ${BIN}…`);

  // The preview: live sends the BIN to the fallback, the edited copy to the target group; no rotation moves.
  const preview = page.getByTestId("routing-preview");
  await preview.getByLabel("BINs to preview").fill(BIN);
  await preview.getByRole("button", { name: "Preview" }).click();
  await expect(preview.getByRole("status")).toContainText("No rotation advanced");
  const row = preview.locator(`tr[data-bin="${BIN}"]`);
  await expect(row.getByRole("cell").nth(0)).not.toContainText(RULE);
  await expect(row.getByRole("cell").nth(1)).toContainText(`${target!.group_name} (#${target!.group_id}) · rule "${RULE}"`);
  await expect(row.getByRole("cell").nth(2)).toHaveText("changes");
  const afterPreview = await workspace(admin);
  expect(afterPreview.live!.groups_state).toEqual(live.groups_state);

  // A reason is required.
  await page.getByRole("button", { name: "Propose" }).click();
  await expect(page.getByText("Give a reason for the change")).toBeVisible();
  await page.getByLabel("Reason for the change").fill(reason);
  await page.getByRole("button", { name: "Propose" }).click();
  await expect(page.getByRole("status", { name: "Routing status" })).toContainText("Proposed: it waits for another editor to approve it.");
  const mine = page.getByRole("list", { name: "Pending changes" }).getByRole("listitem").filter({ hasText: reason });
  await expect(mine).toContainText("You proposed this change: another editor approves it.");
  await expect(mine.getByRole("button", { name: "Approve and apply" })).toHaveCount(0);
  // The proposal changed nothing live.
  expect((await workspace(admin)).live!.version).toBe(live.version);

  // One person's second account: made by the proposer after proposing, signed in with the password the proposer was shown.
  const second = await secondAdmin(browser, admin);
  const other = await second.newPage();
  await other.goto("/routing");
  const theirs = other.getByRole("list", { name: "Pending changes" }).getByRole("listitem").filter({ hasText: reason });
  await expect(theirs).toContainText(`Added BIN rule "${RULE}"`);
  // The page says why instead of offering Approve, and the API refuses it in the same words.
  await expect(theirs.getByTestId("approval-refusal")).toContainText("under the two-person rule you may not approve it");
  await expect(theirs.getByRole("button", { name: "Approve and apply" })).toHaveCount(0);
  const pendingId = (await workspace(admin)).pending.find((c) => c.reason === reason)!.id;
  const refused = await second.request.post(`/api/routing/changes/${pendingId}/approve`);
  expect(refused.status()).toBe(403);
  expect(await refused.text()).toContain("under the two-person rule you may not approve it");
  expect((await workspace(admin)).live!.version).toBe(live.version);

  // A second person approves it.
  const analyst = await browser.newContext({ storageState: authFile("analyst") });
  const approver = await analyst.newPage();
  await approver.goto("/routing");
  const forAnalyst = approver.getByRole("list", { name: "Pending changes" }).getByRole("listitem").filter({ hasText: reason });
  await forAnalyst.getByRole("button", { name: "Approve and apply" }).click();
  await expect(approver.getByRole("status", { name: "Routing status" })).toContainText(`Applied: version ${live.version + 1} is live.`);
  await expect(liveVersionLine(approver)).toContainText(`Version ${live.version + 1},`);
  await expect(approver.getByRole("table", { name: "Live routing rules in precedence order" }).locator(`tr[data-rule-name="${RULE}"]`)).toContainText(`BIN ${BIN}…`);
  await analyst.close();

  // The service itself now routes the BIN by the new rule.
  const routed = (await serviceCall("/api/bin-routing/route", { bin: BIN })) as unknown as BinRoutingResponse;
  expect(routed.group_id).toBe(target!.group_id);
  expect(routed.session_info.rule_name).toBe(RULE);
  expect(activeMids).toContain(routed.gateway_id);

  // The first admin's page shows the new version when reloaded, and the change as decided.
  await page.reload();
  await expect(liveVersionLine(page)).toContainText(`Version ${live.version + 1},`);
  await expect(page.getByRole("list", { name: "Pending changes" }).getByRole("listitem").filter({ hasText: reason })).toHaveCount(0);

  await page.goto("/audit?kind=routing");
  const entries = page.getByRole("row").filter({ hasText: reason });
  await expect(entries).toHaveCount(3);
  await expect(entries.filter({ hasText: "Routing version proposed" })).toHaveCount(1);
  await expect(entries.filter({ hasText: "Routing version approved" })).toHaveCount(1);
  await expect(entries.filter({ hasText: "Routing version applied" })).toHaveCount(1);

  // Restoring the version before needs a reason and, under the two-person rule, a second editor:
  // this one is rejected with a reason, and live routing stays as it is.
  const restoreReason = `e2e: restore v${live.version} (${Date.now()})`;
  const rejectReason = `e2e: keep ${BIN} where it is (${Date.now()})`;
  await page.goto("/routing");
  const old = page.getByRole("list", { name: "Configuration versions, newest first" }).locator(`li[data-version="${live.version}"]`);
  await old.getByRole("button", { name: `Restore v${live.version}` }).click();
  await old.getByRole("button", { name: "Propose restore" }).click();
  await expect(old.getByRole("alert")).toHaveText("Give a reason for restoring this version: it is recorded with the change.");
  await old.getByLabel(`Reason for restoring v${live.version}`).fill(restoreReason);
  await old.getByRole("button", { name: "Propose restore" }).click();
  await expect(page.getByRole("status", { name: "Routing status" })).toContainText(`Restore of version ${live.version} proposed: it waits for another editor.`);
  await other.reload();
  const restore = other.getByRole("list", { name: "Pending changes" }).getByRole("listitem").filter({ hasText: restoreReason });
  await expect(restore).toContainText(`Restore version ${live.version} on version ${live.version + 1}: waiting for approval`);
  await restore.getByRole("button", { name: "Reject" }).click();
  await restore.getByLabel("Reason for rejecting").fill(rejectReason);
  await restore.getByRole("button", { name: "Reject change" }).click();
  await expect(other.getByRole("status", { name: "Routing status" })).toContainText("Change rejected.");
  await expect(other.getByRole("list", { name: "Pending changes" }).getByRole("listitem").filter({ hasText: restoreReason })).toHaveCount(0);
  expect((await workspace(admin)).live!.version).toBe(live.version + 1);
  await page.goto("/audit?kind=routing");
  await expect(page.getByRole("row").filter({ hasText: restoreReason }).filter({ hasText: "Routing version proposed" })).toHaveCount(1);
  await expect(page.getByRole("row").filter({ hasText: rejectReason }).filter({ hasText: "Routing change rejected" })).toHaveCount(1);
  await second.close();
  } finally {
    await analystRouting(admin, false);
    await admin.close();
  }
});

test("an analyst without the routing permission reads the workspace with no edit control; a viewer is turned away", async ({ browser }) => {
  const analyst = await browser.newContext({ storageState: authFile("analyst") });
  const page = await analyst.newPage();
  await page.goto("/routing");
  await expect(page.getByRole("heading", { name: "Routing", level: 1 })).toBeVisible();
  await expect(page.getByTestId("routing-read-only")).toContainText("Read only.");
  await expect(page.getByTestId("routing-read-only")).toContainText("routing permission");
  await expect(page.getByRole("table", { name: "Live routing groups" })).toBeVisible();
  await expect(page.getByRole("table", { name: "Live routing rules in precedence order" })).toBeVisible();
  // A MID reads as every page names it ("Wells 02 (#2)") once a report has named it: one by MID,
  // asked through the dashboard, then a member of a live group found in it.
  const { endDate } = e2eEnv();
  let named = (await (await analyst.request.post("/api/reports/order-summary", { data: { start_date: endDate, end_date: endDate, group_by: ["gateway_id", "gateway_alias"], metrics: ["attempts"] } })).json()) as {
    id: string;
    status: { state: string; result?: { data: { gateway_id: number; gateway_alias: string }[] } };
  };
  while (named.status.state !== "done") {
    expect(["queued", "fetching"]).toContain(named.status.state);
    await new Promise((r) => setTimeout(r, 250));
    named = (await (await analyst.request.get(`/api/reports/jobs/${named.id}`)).json()) as typeof named;
  }
  const aliases = new Map(named.status.result!.data.map((r) => [String(r.gateway_id), r.gateway_alias]));
  const member = (await workspace(analyst)).live!.config.groups.flatMap((g) => g.members).find((m) => aliases.has(String(m.gateway_id)));
  expect(member, "a live group's member attempted on the last day").toBeTruthy();
  await page.reload();
  await expect(page.getByRole("table", { name: "Live routing groups" })).toContainText(`${aliases.get(String(member!.gateway_id))} (#${member!.gateway_id}) · ${member!.weight}`);
  await expect(page.getByRole("table", { name: "Live routing groups" })).not.toContainText(/\bMID \d/);
  await expect(page.getByRole("button", { name: "Edit a copy" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Restore v\d+$/ })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Approve and apply" })).toHaveCount(0);
  // The service preview is reading: an analyst may use it.
  const preview = page.getByTestId("routing-preview");
  await preview.getByLabel("BINs to preview").fill("12ab");
  await preview.getByRole("button", { name: "Preview" }).click();
  await expect(preview.getByRole("alert")).toHaveText("Enter at least one BIN (6 to 8 digits), separated by spaces, commas or new lines.");
  await expectNoSeriousA11yViolations(page);
  // The API refuses the analyst's change in words.
  const live = (await workspace(analyst)).live!;
  const refused = await analyst.request.post("/api/routing/changes", { data: { config: live.config, reason: "not allowed", base_version: live.version } });
  expect(refused.status()).toBe(403);
  await analyst.close();

  const viewer = await browser.newContext({ storageState: authFile("viewer") });
  const v = await viewer.newPage();
  await v.goto("/routing");
  await expect(v).toHaveURL(/\/\?denied=%2Frouting$/);
  await expect(v.getByRole("alert").filter({ hasText: "Routing is" })).toHaveText(
    "Routing is for analysts and admins; you are signed in as a viewer. Ask an administrator if you need it.",
  );
  expect((await viewer.request.get("/api/routing")).status()).toBe(403);
  await viewer.close();
});

test("the workspace on a phone: everything reachable without sideways scrolling", async ({ browser }) => {
  const context = await browser.newContext({ storageState: authFile("admin"), viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  await page.goto("/routing");
  await expect(page.getByRole("heading", { name: "Routing", level: 1 })).toBeVisible();
  await expect(liveVersionLine(page)).toBeVisible();
  await expectNoSidewaysScroll(page, "routing");
  await page.getByRole("button", { name: "Edit a copy" }).click();
  await expect(page.getByTestId("routing-editor")).toBeVisible();
  await expectNoSidewaysScroll(page, "routing-editing");
  // Desktop and phone screenshots of the editor, with the same check at 390 and 360 px.
  await screenshots(page, "routing-editing");
  await context.close();
});
