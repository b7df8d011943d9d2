/**
 * A decrease reads as one wherever it is shown: the Explore table, the downloaded CSV, a KPI tile
 * and the shared page on a phone all carry the same signed change, equal to the change computed here
 * from direct service calls over exactly the two ranges compared.
 */
import { expect, test, type Locator, type Page } from "./support/test";
import { addDays } from "../lib/contract/dates";
import { formatChange, formatValue } from "../lib/report/metrics/format";
import { authFile, e2eEnv } from "./support/env";
import { cents, downloadCsv, expectNoSeriousA11yViolations, serviceCall } from "./support/helpers";

const MINUS = "\u2212";
const clean = (s: string) => s.replace(/\s+/g, " ").trim();

/** Sums over a range, straight from the service (by card brand: a few rows, added up here). */
async function sums(start: string, end: string) {
  const r = await serviceCall("/api/data", { start_date: start, end_date: end, group_by: ["card_brand"], metrics: ["revenue", "cb_count", "approvals"] });
  const add = (k: string) => r.data.reduce((s, row) => s + Number(row[k] ?? 0), 0);
  return { revenueCents: r.data.reduce((s, row) => s + cents(row.revenue), 0), cb: add("cb_count"), approvals: add("approvals") };
}

/** The text of the totals row's cell under the column whose header starts with `header`. */
async function totalsCell(page: Page, table: Locator, header: string): Promise<string> {
  const headers = (await table.getByRole("columnheader").allInnerTexts()).map(clean);
  const i = headers.findIndex((h) => h.startsWith(header));
  expect(i, `a column "${header}" in ${JSON.stringify(headers)}`).toBeGreaterThanOrEqual(0);
  const cells = table.getByRole("row", { name: "Totals" }).locator("[role=cell],[role=rowheader],td,th");
  return clean(await cells.nth(i).innerText());
}

test("a decrease carries its minus sign in the table, the CSV, a KPI tile and the shared page", async ({ browser }) => {
  const env = e2eEnv();
  const end = env.endDate;
  // 27 days, never whole calendar months (which a dashboard compares with the months before, not
  // with as many days before: the last 30 days are November on 30 November).
  const start = addDays(end, -26);
  // Chargebacks dated by the charged-back attempt: the last 27 days have had less time to collect
  // theirs than the 27 before, so their count falls. The fall carries its sign everywhere, and is
  // not called better: the last 27 days are still maturing.
  const [now, before] = await Promise.all([sums(start, end), sums(addDays(start, -27), addDays(start, -1))]);
  const cbDelta = now.cb - before.cb;
  expect(cbDelta, "the generated data has fewer attempt-dated chargebacks in its last 27 days").toBeLessThan(0);
  const revenueDelta = (now.revenueCents - before.revenueCents) / 100;
  const rateDelta = now.cb / now.approvals - before.cb / before.approvals;

  const analyst = await browser.newContext({ storageState: authFile("analyst") });
  const page = await analyst.newPage();
  await page.goto(`/explore?op=orders&range=${start}..${end}&m=revenue,cb_count&kpi=cb_rate_count&cmp=prev`);
  const table = page.getByRole("table").first();
  await expect(table.getByRole("row", { name: "Totals" })).toBeVisible();

  const cbChange = await totalsCell(page, table, "Chargebacks change");
  expect(cbChange).toBe(`${formatChange(cbDelta, "count")} (maturing)`);
  expect(cbChange.startsWith(MINUS)).toBe(true);
  expect(await totalsCell(page, table, "Chargebacks % change")).toBe(`${formatChange(cbDelta / before.cb, "percent")} (maturing)`);
  const revenueChange = await totalsCell(page, table, "Revenue change");
  expect(revenueChange.replace(/ \((better|worse)\)$/, "")).toBe(formatChange(revenueDelta, "currency"));
  const rateChange = await totalsCell(page, table, "Chargeback rate (count) change");
  expect(rateChange).toBe(`${formatChange(rateDelta, "points")} (maturing)`);

  // The CSV holds the same signed numbers.
  const csv = await downloadCsv(page);
  const col = (label: string) => csv.header.findIndex((h) => h.startsWith(label));
  expect(Number(csv.totals[col("Chargebacks change")])).toBe(cbDelta);
  expect(cents(csv.totals[col("Revenue change")])).toBe(now.revenueCents - before.revenueCents);
  expect(Number(csv.totals[col("Chargeback rate (count) change")])).toBeCloseTo(rateDelta * 100, 2);
  expect(Math.sign(Number(csv.totals[col("Chargebacks % change")]))).toBe(-1);

  // A KPI tile over the same days says the same.
  const tile = "kpi.1|op=orders&range=last30&by=date&m=cb_count|";
  await page.goto(`/dashboards/new?range=${start}..${end}&t=${encodeURIComponent(tile)}`);
  const kpi = page.getByRole("article").first();
  await expect(kpi.getByTestId("kpi-value")).toHaveText(formatValue(now.cb, "count"), { timeout: 60_000 });
  await expect(kpi.getByText(`${formatChange(cbDelta / before.cb, "percent")} (maturing)`)).toBeVisible();
  await expect(kpi.getByText("(better)")).toHaveCount(0);

  // Shared, and opened by a manager on a phone without an account: the same signed cells.
  await page.goto(`/explore?op=orders&range=${start}..${end}&m=revenue,cb_count&kpi=cb_rate_count&cmp=prev`);
  await expect(table.getByRole("row", { name: "Totals" })).toBeVisible();
  const res = await page.request.post("/api/saved-reports", {
    data: { name: `Signed changes ${Date.now()}`, page: "explore", params: new URL(page.url()).search.slice(1) },
  });
  expect(res.status()).toBe(201);
  const id = ((await res.json()) as { report: { id: string } }).report.id;
  const link = await page.request.post(`/api/saved-reports/${id}/links`, { data: { expires_in_days: 1 } });
  expect(link.status(), await link.text()).toBe(201);
  const shareUrl = ((await link.json()) as { url: string }).url;

  const manager = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const phone = await manager.newPage();
  await phone.goto(shareUrl);
  const shared = phone.getByRole("table").first();
  await expect(shared.getByRole("row", { name: "Totals" })).toBeVisible();
  expect(await totalsCell(phone, shared, "Chargebacks change")).toBe(cbChange);
  expect(await totalsCell(phone, shared, "Revenue change")).toBe(revenueChange);
  expect(await totalsCell(phone, shared, "Chargeback rate (count) change")).toBe(rateChange);
  // The headline figures above the chart say the same.
  const figures = phone.getByRole("region", { name: "Headline figures" });
  await expect(figures.locator('[data-figure="cb_count"]')).toContainText(cbChange);
  await expect(figures.locator('[data-figure="revenue"]')).toContainText(revenueChange);
  await expect(figures.locator('[data-figure="cb_rate_count"]')).toContainText(rateChange);
  await expectNoSeriousA11yViolations(phone);

  await analyst.close();
  await manager.close();
});
