/**
 * A dashboard's chart tiles, drawn in Chromium by the chart Explore draws with: one line per series
 * with a dot per value and the compared one dashed, one bar per category, value axes worded as the
 * product words money, a name for the drawing, a tooltip a keyboard reaches whose values are the
 * service's own, and the legend naming every series drawn.
 */
import { expect, test, type Locator, type Page } from "./support/test";
import { authFile } from "./support/env";
import { addDays, daysBetween } from "../lib/contract/dates";
import { cents, expectNoSeriousA11yViolations, screenshots, serviceCall } from "./support/helpers";

test.use({ storageState: authFile("analyst") });

/** A cold dashboard waits for its queries' turn in the upstream queue. */
const TILES_TIMEOUT = 60_000;

const TREND = "chart.4|op=orders&range=last7&by=date&m=revenue&chart=line|Revenue trend";
const BY_GATEWAY = "chart.4|op=orders&range=last7&by=gateway_alias&m=revenue&chart=bar|Revenue by gateway";

const grid = (page: Page) => page.getByTestId("dashboard-grid");
const tile = (page: Page, n: number) => grid(page).locator("article").nth(n);

/** The tile's days, as its footer gives them ("2026-11-20 to 2026-11-26"). */
async function tileDays(article: Locator): Promise<{ start: string; end: string; count: number }> {
  const text = await article.locator("footer p").first().innerText();
  const [, start, end] = text.match(/(\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2})/) ?? [];
  expect(start && end, text).toBeTruthy();
  return { start: start!, end: end!, count: daysBetween(start!, end!) + 1 };
}

/** "$1,234.56" → 123456 cents. */
const moneyCents = (text: string) => cents(text.replace(/[$,]/g, ""));

test("chart tiles draw every series, value and category, named and worded as the product words them", async ({ page }) => {
  await page.goto(`/dashboards/new?range=last7&cmp=prev&${[TREND, BY_GATEWAY].map((t) => `t=${encodeURIComponent(t)}`).join("&")}`);
  await expect(grid(page).locator("article[data-status=done]")).toHaveCount(2, { timeout: TILES_TIMEOUT });

  // The trend: the current revenue and the previous period's, dashed.
  const trend = tile(page, 0);
  const caption = (await trend.locator("figcaption span").first().innerText()).trim();
  expect(caption).toBe("Revenue (USD) by day");
  const drawing = trend.getByRole("application", { name: caption });
  await expect(drawing).toBeVisible({ timeout: TILES_TIMEOUT });
  const legend = trend.getByRole("list", { name: "Series" }).locator("li");
  await expect(legend).toHaveText(["Revenue", "Revenue (previous period)"]);
  await expect(trend.locator(".recharts-line")).toHaveCount(2);
  await expect(trend.locator('.recharts-line-curve[stroke-dasharray="6 4"]')).toHaveCount(1);
  // A dot per value: every day of the range, in both periods (a day without sales is a zero).
  const days = await tileDays(trend);
  expect(days.count).toBe(7);
  await expect(trend.locator(".recharts-line-dots circle")).toHaveCount(2 * days.count);
  // The value axis speaks money, compactly, from zero.
  const ticks = await trend.locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value").allTextContents();
  expect(ticks.length).toBeGreaterThanOrEqual(2);
  expect(ticks[0]).toBe("$0");
  for (const t of ticks) expect(t).toMatch(/^\$\d+(\.\d+)?[KMB]?$/);
  // Round numbers: evenly spaced by 1, 2, 2.5 or 5 × 10^n, every label exact.
  const values = ticks.map((t) => Number(t.replace(/[$KMB]/g, "")) * ({ K: 1e3, M: 1e6, B: 1e9 }[t.slice(-1)] ?? 1));
  const step = values[1]! - values[0]!;
  const mantissa = step / 10 ** Math.floor(Math.log10(step));
  expect([1, 2, 2.5, 5].some((m) => Math.abs(m - mantissa) < 1e-9), `step ${step} of ${ticks.join(" / ")}`).toBe(true);
  values.forEach((v, i) => expect(Math.abs(v - i * step), ticks.join(" / ")).toBeLessThan(1e-6 * step));

  // Both drawings on a desktop and a phone, before a tooltip is opened (a tooltip is as wide as its words).
  await expect(tile(page, 1).getByRole("application", { name: /^Revenue \(USD\) by gateway/ })).toBeVisible({ timeout: TILES_TIMEOUT });
  await screenshots(page, "dashboard-chart-tiles");

  // The keyboard reaches the drawing; its tooltip gives the first day's revenue, the service's to the cent.
  await drawing.focus();
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowLeft");
  const tip = trend.locator(".recharts-tooltip-wrapper");
  await expect(tip).toContainText(days.start);
  await expect(tip).toContainText("compared with");
  const shown = (await tip.locator("li").first().innerText()).match(/Revenue:\s*(\$[\d,]+\.\d\d)/)?.[1];
  expect(shown, await tip.innerText()).toBeTruthy();
  const direct = await serviceCall("/api/data", { start_date: days.start, end_date: days.start, group_by: ["date"], metrics: ["revenue"] });
  expect(moneyCents(shown!)).toBe(cents(direct.data[0]?.revenue ?? 0));

  // By gateway: one bar per gateway that sold in these days, solid, beside its dashed previous-period bar.
  const bars = tile(page, 1);
  await expect(bars.getByRole("application", { name: /^Revenue \(USD\) by gateway/ })).toBeVisible({ timeout: TILES_TIMEOUT });
  const gateways = await serviceCall("/api/data", { start_date: days.start, end_date: days.end, group_by: ["gateway_alias"], metrics: ["revenue"] });
  expect(gateways.data.length).toBeGreaterThan(0);
  await expect(bars.locator(".recharts-bar").first().locator(".recharts-bar-rectangle")).toHaveCount(gateways.data.length);
  // Every category of either period is named on its axis, in full in its title.
  const before = await serviceCall("/api/data", { start_date: addDays(days.start, -7), end_date: addDays(days.start, -1), group_by: ["gateway_alias"], metrics: ["revenue"] });
  const categories = new Set([...gateways.data, ...before.data].map((r) => String(r.gateway_alias)));
  const names = await bars.locator(".recharts-surface text title").allTextContents();
  expect([...names].sort()).toEqual([...categories].sort());

  await expectNoSeriousA11yViolations(page);
});
