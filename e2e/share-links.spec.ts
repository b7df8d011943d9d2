/**
 * Sharing that cannot be got wrong: several links on one report, each row naming its link (label,
 * creation time, the token's last characters), a one-click copy of a new link, an expiry in hours,
 * revocation that asks first naming the link and revokes exactly the row pressed; the naming dialog
 * that points out a name already used; and a shared dashboard's table tile downloaded as CSV. The
 * links again on a phone, tapped.
 */
import { readFileSync } from "node:fs";
import { expect, test, type APIRequestContext, type Page } from "./support/test";
import { authFile } from "./support/env";
import { expectNoSeriousA11yViolations, expectNoSidewaysScroll, parseCsv } from "./support/helpers";
import { questionLines, readWorkbook, sheetAsCsvRows } from "../lib/report/table/testing/xlsx";

interface LinkRow {
  id: string;
  label: string | null;
  tokenTail: string | null;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
}

async function saveItem(request: APIRequestContext, name: string, page: "explore" | "dashboard", params: string): Promise<string> {
  const res = await request.post("/api/saved-reports", { data: { name, page, params } });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { report: { id: string } }).report.id;
}

async function listLinks(request: APIRequestContext, reportId: string): Promise<LinkRow[]> {
  const res = await request.get(`/api/saved-reports/${reportId}/links`);
  expect(res.status()).toBe(200);
  return ((await res.json()) as { links: LinkRow[] }).links;
}

/** "2026-03-28 14:05:09": how the list shows an instant in the browser's zone (UTC here). */
const shown = (iso: string) => iso.slice(0, 19).replace("T", " ");

const openShare = async (page: Page, url: string) => {
  await page.goto(url);
  return page.getByRole("heading", { level: 1 });
};

test("three links on one report: each row names its link, copies, expires in hours; revoking the middle row asks naming it and revokes only it", async ({ browser }) => {
  const context = await browser.newContext({ storageState: authFile("analyst"), timezoneId: "UTC", permissions: ["clipboard-read", "clipboard-write"] });
  const page = await context.newPage();
  const name = `Three links ${Date.now()}`;
  const reportId = await saveItem(page.request, name, "explore", "op=orders&range=last7&by=gateway_id&m=attempts");

  await page.goto("/reports");
  const item = page.getByRole("listitem").filter({ hasText: name });
  await item.getByRole("button", { name: "Share links" }).click();
  const form = item.getByRole("form", { name: "New share link" });
  const urlBox = item.getByRole("textbox", { name: "New share link URL" });

  const asked = [
    { label: "For the bank manager", amount: 30, unit: "days" },
    { label: "For the auditor", amount: 6, unit: "hours" },
    { label: "For the board", amount: 2, unit: "days" },
  ] as const;
  const made: { label: string; url: string; token: string }[] = [];
  for (const a of asked) {
    await form.getByRole("textbox", { name: "Label (optional)" }).fill(a.label);
    await form.getByRole("spinbutton", { name: "Expires after, amount" }).fill(String(a.amount));
    await form.getByRole("combobox", { name: "Expires after, unit" }).selectOption(a.unit);
    await form.getByRole("button", { name: "Create share link" }).click();
    // The new link's row is marked and labelled; the URL box holds its whole URL.
    await expect(item.locator("tbody tr").filter({ hasText: "new" })).toContainText(a.label);
    const url = await urlBox.inputValue();
    expect(url).toMatch(/\/share\/[A-Za-z0-9_-]{43}$/);
    expect(made.map((m) => m.url)).not.toContain(url);

    // One click copies exactly that URL.
    await item.getByRole("button", { name: "Copy link" }).click();
    await expect(item.getByText("Copied to the clipboard.")).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
    made.push({ label: a.label, url, token: url.split("/share/")[1]! });
  }

  // Newest first: board, auditor, bank manager. Each row: label, token tail, creation time, expiry.
  const links = await listLinks(page.request, reportId);
  expect(links.map((l) => l.label)).toEqual(["For the board", "For the auditor", "For the bank manager"]);
  const rows = item.locator("tbody tr");
  await expect(rows).toHaveCount(3);
  await expect(item.getByRole("columnheader", { name: "Created (UTC)" })).toBeVisible();
  for (const [i, l] of links.entries()) {
    const token = made.find((m) => m.label === l.label)!.token;
    expect(l.tokenTail).toBe(token.slice(-6));
    const cells = rows.nth(i).getByRole("cell");
    // The newest link carries a "new" mark after its label.
    await expect(cells.nth(0)).toHaveText(i === 0 ? `${l.label!}new` : l.label!);
    await expect(cells.nth(1)).toHaveText(`…${token.slice(-6)}`);
    await expect(cells.nth(2)).toHaveText(shown(l.createdAt));
    await expect(cells.nth(4)).toHaveText(shown(l.expiresAt));
  }
  const auditor = links[1]!;
  expect(Date.parse(auditor.expiresAt) - Date.parse(auditor.createdAt)).toBeGreaterThanOrEqual(6 * 3_600_000 - 1_000);
  expect(Date.parse(auditor.expiresAt) - Date.parse(auditor.createdAt)).toBeLessThanOrEqual(6 * 3_600_000 + 1_000);
  expect(Date.parse(links[0]!.expiresAt) - Date.parse(links[0]!.createdAt)).toBeGreaterThanOrEqual(2 * 86_400_000 - 1_000);

  // Once the panel is drawn again, no whole token is anywhere on the page: only the tails.
  await page.reload();
  await item.getByRole("button", { name: "Share links" }).click();
  await expect(rows).toHaveCount(3);
  const html = await page.content();
  for (const m of made) expect(html).not.toContain(m.token);

  // Revoke on the middle row: the dialog names that link; Escape leaves everything as it was.
  const middle = rows.nth(1);
  const revokeMiddle = middle.getByRole("button", { name: /^Revoke/ });
  await revokeMiddle.click();
  const dialog = page.getByRole("dialog", { name: "Revoke this share link?" });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(`“For the auditor” (ending …${auditor.tokenTail}, created ${shown(auditor.createdAt)} UTC)`);
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await expectNoSeriousA11yViolations(page);
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(revokeMiddle).toBeFocused();
  expect((await listLinks(page.request, reportId)).map((l) => l.revokedAt)).toEqual([null, null, null]);

  await revokeMiddle.click();
  await dialog.getByRole("button", { name: "Revoke link" }).click();
  await expect(dialog).toBeHidden();
  await expect(middle.getByRole("cell").nth(4)).toHaveText("revoked");
  // Exactly the middle one, on the server as on screen.
  const after = await listLinks(page.request, reportId);
  expect(after.map((l) => [l.label, l.revokedAt !== null])).toEqual([
    ["For the board", false],
    ["For the auditor", true],
    ["For the bank manager", false],
  ]);
  await expect(rows.nth(0).getByRole("button", { name: /^Revoke/ })).toBeVisible();
  await expect(rows.nth(2).getByRole("button", { name: /^Revoke/ })).toBeVisible();

  // And for whoever holds the links: the auditor's is refused, the others still open.
  const visitor = await browser.newContext();
  const v = await visitor.newPage();
  await expect(await openShare(v, made.find((m) => m.label === "For the auditor")!.url)).toHaveText("This link has been revoked");
  await expect(await openShare(v, made.find((m) => m.label === "For the bank manager")!.url)).toHaveText(name);
  await expect(await openShare(v, made.find((m) => m.label === "For the board")!.url)).toHaveText(name);
  await visitor.close();
  await context.close();
});

test("on a phone: several links, each labelled, copied, expiring in hours; revoking a row asks naming its link and revokes exactly it", async ({ browser }) => {
  const context = await browser.newContext({
    storageState: authFile("analyst"),
    timezoneId: "UTC",
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    permissions: ["clipboard-read", "clipboard-write"],
  });
  const page = await context.newPage();
  const name = `Phone links ${Date.now()}`;
  const reportId = await saveItem(page.request, name, "explore", "op=orders&range=last7&by=card_brand&m=attempts");

  await page.goto("/reports");
  const item = page.getByRole("listitem").filter({ hasText: name });
  await item.getByRole("button", { name: "Share links" }).tap();
  const form = item.getByRole("form", { name: "New share link" });
  const urlBox = item.getByRole("textbox", { name: "New share link URL" });
  const made: { label: string; url: string; hours: number }[] = [];
  for (const [label, hours] of [
    ["For the risk team", 3],
    ["For the acquirer", 12],
    ["For the CFO", 48],
  ] as const) {
    await form.getByRole("textbox", { name: "Label (optional)" }).fill(label);
    await form.getByRole("spinbutton", { name: "Expires after, amount" }).fill(String(hours));
    await form.getByRole("combobox", { name: "Expires after, unit" }).selectOption("hours");
    await form.getByRole("button", { name: "Create share link" }).tap();
    await expect(item.locator("tbody tr").filter({ hasText: "new" })).toContainText(label);
    const url = await urlBox.inputValue();
    expect(url).toMatch(/\/share\/[A-Za-z0-9_-]{43}$/);
    // One tap copies exactly that URL; the box and its button fit the screen.
    await item.getByRole("button", { name: "Copy link" }).tap();
    await expect(item.getByText("Copied to the clipboard.")).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
    for (const el of [urlBox, item.getByRole("button", { name: "Copy link" })]) {
      const box = (await el.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    made.push({ label, url, hours });
  }
  // The panel scrolls its table inside its own box: the page itself does not scroll sideways.
  await expectNoSidewaysScroll(page, "share links on a phone");

  // Newest first; each expires the hours it was given after it was made.
  const links = await listLinks(page.request, reportId);
  expect(links.map((l) => l.label)).toEqual(["For the CFO", "For the acquirer", "For the risk team"]);
  for (const l of links) {
    const hours = made.find((m) => m.label === l.label)!.hours;
    expect(Math.abs(Date.parse(l.expiresAt) - Date.parse(l.createdAt) - hours * 3_600_000)).toBeLessThanOrEqual(1_000);
  }
  const rows = item.locator("tbody tr");
  await expect(rows).toHaveCount(3);
  for (const [i, l] of links.entries()) await expect(rows.nth(i).getByRole("cell").nth(4)).toHaveText(shown(l.expiresAt));

  // Revoke, tapped on the middle row: the dialog names that link, fits the screen, and Cancel keeps everything.
  const acquirer = links[1]!;
  const middle = rows.nth(1);
  const revoke = middle.getByRole("button", { name: `Revoke For the acquirer (…${acquirer.tokenTail})` });
  await revoke.tap();
  const dialog = page.getByRole("dialog", { name: "Revoke this share link?" });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(`“For the acquirer” (ending …${acquirer.tokenTail}, created ${shown(acquirer.createdAt)} UTC)`);
  const box = (await dialog.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  for (const b of ["Cancel", "Revoke link"]) await expect(dialog.getByRole("button", { name: b })).toBeInViewport();
  await dialog.getByRole("button", { name: "Cancel" }).tap();
  await expect(dialog).toBeHidden();
  expect((await listLinks(page.request, reportId)).map((l) => l.revokedAt)).toEqual([null, null, null]);

  await revoke.tap();
  await dialog.getByRole("button", { name: "Revoke link" }).tap();
  await expect(dialog).toBeHidden();
  await expect(middle.getByRole("cell").nth(4)).toHaveText("revoked");
  expect((await listLinks(page.request, reportId)).map((l) => [l.label, l.revokedAt !== null])).toEqual([
    ["For the CFO", false],
    ["For the acquirer", true],
    ["For the risk team", false],
  ]);
  await expect(rows.nth(0).getByRole("button", { name: /^Revoke/ })).toBeVisible();
  await expect(rows.nth(2).getByRole("button", { name: /^Revoke/ })).toBeVisible();

  // Whoever holds the links: only the acquirer's is refused.
  const visitor = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const v = await visitor.newPage();
  for (const m of made) await expect(await openShare(v, m.url)).toHaveText(m.label === "For the acquirer" ? "This link has been revoked" : name);
  await visitor.close();
  await context.close();
});

test("saving asks for the name in a dialog that points out a name the user already gave", async ({ browser }) => {
  const context = await browser.newContext({ storageState: authFile("analyst") });
  const page = await context.newPage();
  const params = "op=orders&range=last7&by=card_brand&m=attempts,approvals";
  const name = `Brands this week ${Date.now()}`;
  await saveItem(page.request, name, "explore", params);

  await page.goto(`/explore?${params}`);
  await expect(page.getByRole("row", { name: "Totals" })).toBeVisible();
  const open = page.getByRole("button", { name: "Save report" });
  await open.click();
  const dialog = page.getByRole("dialog", { name: "Save this report" });
  const field = dialog.getByRole("textbox", { name: "Name" });
  await expect(field).toBeFocused();

  // The same name in other case and spacing is the same name to a reader of the list.
  await field.fill(`  ${name.toUpperCase().replace(" ", "   ")} `);
  await expect(dialog.getByRole("status")).toHaveText(`You already have a saved report named “${name}”. Saving makes a second one with the same name; change the name to tell them apart.`);
  await expect(dialog.getByRole("button", { name: "Save anyway" })).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  // Escape closes without saving and gives the focus back.
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(open).toBeFocused();

  await open.click();
  await expect(field).toHaveValue("");
  await field.fill(`${name} (VISA only)`);
  await expect(dialog.getByRole("status")).toHaveCount(0);
  await dialog.getByRole("button", { name: "Save", exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText("Saved. Find it under Saved reports.")).toBeVisible();
  const mine = (await (await page.request.get("/api/saved-reports/names?page=explore")).json()) as { items: { name: string }[] };
  expect(mine.items.map((i) => i.name).filter((n) => n.startsWith(name)).sort()).toEqual([name, `${name} (VISA only)`]);
  await context.close();
});

test("a shared dashboard downloads its table tile as CSV, the rows the tile shows, and as a workbook, and prints without its buttons", async ({ browser }) => {
  const context = await browser.newContext({ storageState: authFile("analyst") });
  const page = await context.newPage();
  const table = "table.2|op=orders&range=last30&by=gateway_alias&m=revenue,attempts,approvals&kpi=approval_rate&sort=-revenue|";
  const name = `Shared tiles ${Date.now()}`;
  const id = await saveItem(page.request, name, "dashboard", `range=last30&t=${encodeURIComponent(table)}`);
  const link = await page.request.post(`/api/saved-reports/${id}/links`, { data: { mode: "live", label: "CSV check" } });
  expect(link.status()).toBe(201);
  const { url } = (await link.json()) as { url: string };

  const visitor = await browser.newContext();
  const v = await visitor.newPage();
  await v.goto(url);
  await expect(v.getByRole("heading", { level: 1, name })).toBeVisible();
  const tile = v.locator("article[data-kind=table]");
  await expect(tile).toHaveAttribute("data-status", "done", { timeout: 90_000 });
  const title = (await tile.locator("header h2").innerText()).trim();

  const shownHeader = (await tile.locator("thead th").allInnerTexts()).map((t) => t.trim());
  const shownRows = await tile.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (c) => (c.textContent ?? "").trim())));
  expect(shownRows.length).toBeGreaterThan(0);

  const [download] = await Promise.all([v.waitForEvent("download"), tile.getByRole("button", { name: `Download CSV of ${title}` }).click()]);
  expect(download.suggestedFilename()).toMatch(/^Shared-tiles-\d+_.+_\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}\.csv$/);
  const all = parseCsv(readFileSync((await download.path())!, "utf8"));
  const blank = all.findIndex((r) => r.length === 1 && r[0] === "");
  const meta = new Map(all.slice(0, blank).map((r) => [r[0]!, r[1]!]));
  expect(meta.get("Dashboard")).toBe(name);
  expect(meta.get("Tile")).toBe(title);
  expect(meta.get("Shared by")).toBeTruthy();
  const header = all[blank + 1]!;
  const body = all.slice(blank + 2).filter((r) => r.length > 1);
  const rows = body.slice(0, -1);

  // The same rows in the same order, the same gateways, the same attempt counts as the tile shows.
  expect(header.length).toBe(shownHeader.length);
  expect(rows.map((r) => r[0])).toEqual(shownRows.map((r) => r[0]));
  const attemptsAt = shownHeader.indexOf("Attempts");
  expect(attemptsAt).toBeGreaterThan(0);
  expect(header[attemptsAt]).toBe("Attempts");
  expect(rows.map((r) => Number(r[attemptsAt]))).toEqual(shownRows.map((r) => Number(r[attemptsAt]!.replace(/,/g, ""))));

  // The whole dashboard as one workbook: the tile's sheet holds exactly its CSV's table, and the
  // first sheet says whose link it is and when the workbook was made.
  const [book] = await Promise.all([v.waitForEvent("download"), v.getByRole("button", { name: "Download dashboard as Excel" }).click()]);
  expect(book.suggestedFilename()).toMatch(/^Shared-tiles-\d+_\d{4}-\d{2}-\d{2}\.xlsx$/);
  const workbook = await readWorkbook(readFileSync((await book.path())!));
  expect(sheetAsCsvRows(workbook.getWorksheet(title)!, header.length)).toEqual(all.slice(blank + 1).filter((r) => r.length > 1));
  const question = new Map(questionLines(workbook).map((r) => [r[0]!, r[1]!]));
  expect(question.get("Dashboard")).toBe(name);
  expect(question.get("Shared by")).toBe(meta.get("Shared by"));
  expect(question.get("Generated at")).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} /);

  // The whole dashboard as a printable page: the button prints, and print leaves the buttons out.
  await v.evaluate(() => {
    (window as unknown as { printed: number }).printed = 0;
    window.print = () => void ((window as unknown as { printed: number }).printed += 1);
  });
  await v.getByRole("button", { name: "Print dashboard" }).click();
  expect(await v.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1);
  await v.emulateMedia({ media: "print" });
  await expect(tile.getByRole("button", { name: `Download CSV of ${title}` })).toBeHidden();
  await expect(v.getByRole("button", { name: "Print dashboard" })).toBeHidden();
  await expect(tile.locator("tbody tr").first()).toBeVisible();
  await visitor.close();
  await context.close();
});

test("a link whose maker is made a viewer is paused, with a page that says so, and an admin revokes it from the report's list", async ({ browser }) => {
  const admin = await browser.newContext({ storageState: authFile("admin"), timezoneId: "UTC" });
  const email = `sharer.${Date.now()}@e2e.test`;
  const made = await admin.request.post("/api/users", { data: { email, role: "analyst" } });
  expect(made.status(), await made.text()).toBe(201);
  const { user, password } = (await made.json()) as { user: { id: string }; password: string };

  const sharer = await browser.newContext();
  const signIn = await sharer.newPage();
  await signIn.goto("/login");
  await signIn.getByLabel("E-mail").fill(email);
  await signIn.getByLabel("Password").fill(password);
  await signIn.getByRole("button", { name: "Sign in" }).click();
  await expect(signIn).not.toHaveURL(/\/login/);
  const name = `Paused when demoted ${Date.now()}`;
  const reportId = await saveItem(sharer.request, name, "explore", "op=orders&range=last7&by=gateway_id&m=attempts");
  const issued = await sharer.request.post(`/api/saved-reports/${reportId}/links`, { data: { mode: "live", label: "For the partner" } });
  expect(issued.status(), await issued.text()).toBe(201);
  const { url, link } = (await issued.json()) as { url: string; link: { id: string } };
  const token = url.slice(url.lastIndexOf("/") + 1);

  const visitor = await (await browser.newContext()).newPage();
  await expect(await openShare(visitor, url)).toHaveText(name);

  // Made a viewer: the link stops serving at once, its page says why, and its API answers 403.
  const demoted = await admin.request.patch(`/api/users/${user.id}`, { data: { role: "viewer" } });
  expect(demoted.status(), await demoted.text()).toBe(200);
  await expect(await openShare(visitor, url)).toHaveText("This link is paused");
  await expect(visitor.getByText("may no longer share it")).toBeVisible();
  await expect(visitor.getByRole("row", { name: "Totals" })).toHaveCount(0);
  await expectNoSeriousA11yViolations(visitor);
  const api = await visitor.request.get(`/api/share/${token}`);
  expect(api.status()).toBe(403);
  expect(((await api.json()) as { kind: string }).kind).toBe("paused");
  // The former sharer can no longer manage the link.
  expect((await sharer.request.delete(`/api/saved-reports/${reportId}/links/${link.id}`)).status()).toBe(403);

  // An admin finds it paused in the report's list (no Rotate offered) and revokes it.
  const page = await admin.newPage();
  await page.goto("/reports");
  const item = page.getByRole("listitem").filter({ hasText: name });
  await item.getByRole("button", { name: "Share links" }).click();
  const row = item.locator(`tr[data-link-id="${link.id}"]`);
  await expect(row.getByRole("cell", { name: "paused: its maker may no longer share" })).toBeVisible();
  await expect(row.getByRole("button", { name: /^Rotate/ })).toHaveCount(0);
  await row.getByRole("button", { name: /^Revoke/ }).click();
  await page.getByRole("dialog", { name: "Revoke this share link?" }).getByRole("button", { name: "Revoke link" }).click();
  await expect(row.getByRole("cell", { name: "revoked" })).toBeVisible();
  expect((await listLinks(admin.request, reportId)).find((l) => l.id === link.id)?.revokedAt).toEqual(expect.any(String));
  await expect(await openShare(visitor, url)).toHaveText("This link has been revoked");

  await sharer.close();
  await admin.close();
});
