/**
 * Rates that are still maturing say so, in Chromium against the real service: over the last 30 days
 * the attempt-dated chargeback rate reads "(maturing)", its change against the 30 days before keeps
 * its sign but is not called better or worse, one click swaps it for the event-dated rate (equal to
 * the chargebacks received in those days ÷ their approvals, from direct service calls) with the
 * difference explained on the page, and a KPI tile says "maturing" beside its value.
 */
import { expect, test, type Locator } from "./support/test";
import { addDays } from "../lib/contract/dates";
import { formatChange, formatValue } from "../lib/report/metrics/format";
import { authFile, e2eEnv } from "./support/env";
import { downloadCsv, expectNoSeriousA11yViolations, serviceCall } from "./support/helpers";

test.use({ storageState: authFile("analyst") });

const clean = (s: string) => s.replace(/\s+/g, " ").trim();

/** Sums over a range, straight from the service (by card brand: a few rows, added up here). */
async function sums(start: string, end: string) {
  const r = await serviceCall("/api/data", { start_date: start, end_date: end, group_by: ["card_brand"], metrics: ["approvals", "cb_count", "cb_count_by_cb_date"] });
  const add = (k: string) => r.data.reduce((s, row) => s + Number(row[k] ?? 0), 0);
  return { approvals: add("approvals"), cb: add("cb_count"), cbReceived: add("cb_count_by_cb_date") };
}

/** The text of the totals row's cell under the column whose header is `header` (or starts with it). */
async function totalsCell(table: Locator, header: string): Promise<{ text: string; title: string | null }> {
  const headers = (await table.getByRole("columnheader").allInnerTexts()).map(clean);
  const i = headers.findIndex((h) => h === header || h.startsWith(`${header} `));
  expect(i, `a column "${header}" in ${JSON.stringify(headers)}`).toBeGreaterThanOrEqual(0);
  const cell = table.getByRole("row", { name: "Totals" }).locator("[role=cell],[role=rowheader]").nth(i);
  return { text: clean(await cell.innerText()), title: await cell.getAttribute("title") };
}

test("the last 30 days' chargeback rate is maturing, its change has no verdict, and one click gives the event-dated rate", async ({ page }) => {
  const end = e2eEnv().endDate;
  const start = addDays(end, -29);
  const [now, before] = await Promise.all([sums(start, end), sums(addDays(start, -30), addDays(start, -1))]);
  const rateNow = now.cb / now.approvals;
  const rateDelta = rateNow - before.cb / before.approvals;

  await page.goto("/explore?op=orders&range=last30&m=approvals&kpi=cb_rate_count&cmp=prev");
  const table = page.getByRole("table").first();
  await expect(table.getByRole("row", { name: "Totals" })).toBeVisible();

  // The rate says it is maturing, and why on hover.
  const rate = await totalsCell(table, "Chargeback rate (count)");
  expect(rate.text).toBe(`${formatValue(rateNow, "percent")} (maturing)`);
  expect(rate.title).toMatch(/^Chargebacks on sales this recent are still arriving/);
  // The change keeps its sign and is not called better or worse (no colour either).
  const change = await totalsCell(table, "Chargeback rate (count) change");
  expect(change.text).toBe(`${formatChange(rateDelta, "points")} (maturing)`);
  expect(change.text).toMatch(/^[+\u2212]|^0 /);
  expect(change.text).not.toMatch(/better|worse/);
  expect(change.title).toMatch(/^No better or worse/);
  const changeCell = table.getByRole("row", { name: "Totals" }).locator("[role=cell]").filter({ hasText: change.text }).first();
  await expect(changeCell).not.toHaveClass(/text-emerald|text-red/);

  // The CSV keeps the numbers and names the maturing values in a last column.
  const csv = await downloadCsv(page);
  expect(csv.header.at(-1)).toBe("Maturing");
  expect(csv.totals.at(-1)).toContain("Chargeback rate (count)");
  expect(Number(csv.totals[csv.header.findIndex((h) => h.startsWith("Chargeback rate (count) change"))])).toBeCloseTo(rateDelta * 100, 2);

  // One click: the event-dated rate, explained in words.
  const notice = page.getByRole("note", { name: "Maturing rates" });
  await expect(notice).toContainText("still maturing");
  await notice.getByRole("button", { name: "Use event-dated rates" }).click();
  await expect(page).toHaveURL(/kpi=cb_rate_count_by_cb_date/);
  const explained = page.getByRole("note", { name: "Event-dated rates" });
  await expect(explained).toContainText("counts them on the day they arrived");
  await expect(table.getByRole("columnheader", { name: /^Chargeback rate \(count, by CB date\)/ }).first()).toBeVisible();
  const eventDated = await totalsCell(table, "Chargeback rate (count, by CB date)");
  expect(eventDated.text).toBe(formatValue(now.cbReceived / now.approvals, "percent"));
  const eventChange = await totalsCell(table, "Chargeback rate (count, by CB date) change");
  expect(eventChange.text).not.toContain("maturing");
  // Checked once both answers are drawn (a table waiting for its comparison is dimmed on purpose).
  await expect(table).toHaveAttribute("aria-busy", "false");
  await expectNoSeriousA11yViolations(page);

  // A KPI tile over the same days says maturing beside its value, and its change has no verdict.
  const tile = "kpi.1|op=orders&range=last30&kpi=cb_rate_count&cm=cb_rate_count|";
  await page.goto(`/dashboards/new?range=last30&t=${encodeURIComponent(tile)}`);
  const kpi = page.getByRole("article").first();
  await expect(kpi.getByTestId("kpi-value")).toHaveText(formatValue(rateNow, "percent"), { timeout: 60_000 });
  await expect(kpi.getByTestId("kpi-maturing")).toHaveText("maturing");
  await expect(kpi.getByText(/Chargebacks on sales this recent are still arriving/)).toBeVisible();
  await expect(kpi.getByText(/^[+\u2212]\d+\.\d\d pp \(maturing\)$/)).toBeVisible();
  await expect(kpi.getByText(/\((better|worse)\)/)).toHaveCount(0);
});
