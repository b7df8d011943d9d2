/**
 * Explore against the real service: a report grouped by date and gateway with three metrics and a
 * filter; the chart, the table's totals and rates, a direct call to the service, reload, CSV, a11y.
 */
import { expect, test } from "./support/test";
import { addDays } from "../lib/contract/dates";
import { periodsIn } from "../lib/report/periods/periods";
import { authFile, e2eEnv } from "./support/env";
import { cents, downloadCsv, expectNoSeriousA11yViolations, screenshots, serviceCall } from "./support/helpers";

test.use({ storageState: authFile("analyst") });

test("a report by date and gateway: chart series, totals, rates, and the service's own numbers", async ({ page }) => {
  const env = e2eEnv();
  // Build the report with the form's own controls, starting from an empty Explore page.
  await page.goto("/explore");
  const form = page.getByRole("form", { name: "Report settings" });
  await form.getByLabel("Period").selectOption("last7");
  await form.getByLabel("Add a dimension").selectOption("gateway_id");
  for (const label of ["Chargebacks", "Chargeback amount", "Refunds", "Refund amount", "Chargeback rate (count)", "Refund rate", "Net revenue"]) {
    const chip = form.getByRole("button", { name: `Remove ${label}`, exact: true });
    if (await chip.count()) await chip.click();
  }
  await form.getByLabel("Add a filter on").selectOption("sales_type");
  await form.getByRole("checkbox", { name: "Rebills", exact: true }).check();
  await form.getByRole("button", { name: "Run report" }).click();
  await expect(page).toHaveURL(/range=last7/);
  const url = page.url();
  const params = new URL(url).searchParams;
  expect(params.get("by")).toBe("date,gateway_id");
  expect(params.get("m")).toBe("attempts,approvals,revenue");
  expect(params.get("f.sales_type")).toBe("Rebills");
  await expect(page.getByRole("row", { name: "Totals" })).toBeVisible();

  const csv = await downloadCsv(page);
  const col = (label: RegExp) => csv.header.findIndex((h) => label.test(h));
  const [iDate, iGw, iAtt, iApp, iRev, iRate] = [col(/^Date$/), col(/^Gateway ID$/), col(/^Attempts$/), col(/^Approvals$/), col(/^Revenue/), col(/^Approval rate/)];
  expect([iDate, iGw, iAtt, iApp, iRev, iRate].every((i) => i >= 0)).toBe(true);
  expect(csv.rows.length).toBeGreaterThan(10);

  // Every total is the sum of its column; the rate on the totals row is the ratio of the sums.
  const sum = (i: number, f = (v: string) => Number(v)) => csv.rows.reduce((s, r) => s + f(r[i]!), 0);
  expect(Number(csv.totals[iAtt])).toBe(sum(iAtt));
  expect(Number(csv.totals[iApp])).toBe(sum(iApp));
  expect(cents(csv.totals[iRev])).toBe(sum(iRev, cents));
  expect(Math.abs(Number(csv.totals[iRate]) - (sum(iApp) / sum(iAtt)) * 100)).toBeLessThan(0.006);
  for (const r of csv.rows) {
    if (Number(r[iAtt]) > 0) expect(Math.abs(Number(r[iRate]) - (Number(r[iApp]) / Number(r[iAtt])) * 100)).toBeLessThan(0.006);
  }

  // The same numbers as a direct call to the service with the same request.
  const end = env.endDate;
  const direct = await serviceCall("/api/data", {
    start_date: addDays(end, -6),
    end_date: end,
    group_by: ["date", "gateway_id"],
    metrics: ["attempts", "approvals", "revenue"],
    filters: { sales_type: "Rebills" },
  });
  expect(csv.rows.map((r) => [r[iDate], Number(r[iGw]), Number(r[iAtt]), Number(r[iApp]), cents(r[iRev])])).toEqual(
    direct.data.map((d) => [d.date, d.gateway_id, d.attempts, d.approvals, cents(d.revenue)]),
  );

  // The chart draws one series per gateway (the 10 largest and "Other" beyond that).
  const gateways = new Set(direct.data.map((d) => d.gateway_id));
  const legend = page.getByRole("list", { name: "Series" }).getByRole("listitem");
  await expect(legend).toHaveCount(gateways.size > 10 ? 11 : gateways.size);

  // The totals row on screen shows the same totals.
  await expect(page.getByRole("row", { name: "Totals" })).toContainText(Number(csv.totals[iAtt]).toLocaleString("en-US"));

  // Reload reproduces the report from the URL.
  await page.reload();
  await expect(page.getByRole("row", { name: "Totals" })).toContainText(Number(csv.totals[iAtt]).toLocaleString("en-US"));
  expect(new URL(page.url()).search).toBe(new URL(url, env.dashboardUrl).search);
  const again = await downloadCsv(page);
  expect(again.rows).toEqual(csv.rows);
  expect(again.meta.map((m) => m[0])).toEqual(expect.arrayContaining([expect.stringMatching(/range/i), expect.stringMatching(/time ?zone/i)]));

  await expectNoSeriousA11yViolations(page);
  await screenshots(page, "explore");
});

test("the metrics picker: opened by keyboard, searched, checked, closed by Escape and by a click outside, reset", async ({ page }) => {
  // Its panel comes when first wanted: pressing the button before that still opens it.
  await page.goto("/explore");
  const form = page.getByRole("form", { name: "Report settings" });
  const open = form.getByRole("button", { name: "Choose metrics…" });
  const chips = form.getByRole("list", { name: "Metrics" }).getByRole("button", { name: /^Remove / });
  await expect(open).toBeVisible();
  const before = await chips.count();
  expect(before).toBeGreaterThan(0);
  await open.focus();
  await page.keyboard.press("Enter");
  const panel = page.getByRole("dialog", { name: "Choose metrics" });
  await expect(panel).toBeVisible();
  await expect(open).toHaveAttribute("aria-expanded", "true");
  // The search box has the focus; a search narrows the list to what matches, descriptions included.
  const search = panel.getByLabel("Search metrics");
  await expect(search).toBeFocused();
  await page.keyboard.type("rebill");
  await expect(panel.getByRole("checkbox", { name: /^Rebill attempts/ })).toBeVisible();
  await expect(panel.getByRole("checkbox", { name: /^Revenue/ })).toHaveCount(0);
  for (const option of await panel.locator("label:has(input[type=checkbox])").allTextContents()) expect(option.toLowerCase()).toContain("rebill");
  await page.keyboard.type("zzz-nothing");
  await expect(panel.getByText("Nothing matches")).toBeVisible();
  await search.fill("");
  await panel.getByRole("checkbox", { name: /^Rebill attempts/ }).check();
  await expect(form.getByRole("button", { name: "Remove Rebill attempts", exact: true })).toBeVisible();
  // Escape closes it and gives the focus back to its button.
  await page.keyboard.press("Escape");
  await expect(panel).toBeHidden();
  await expect(open).toBeFocused();
  await expect(open).toHaveAttribute("aria-expanded", "false");
  await expect(chips).toHaveCount(before + 1);
  // A click outside closes it; Reset to defaults puts back the report's default columns.
  await open.click();
  await expect(panel).toBeVisible();
  await page.getByRole("heading", { level: 1 }).click();
  await expect(panel).toBeHidden();
  await open.click();
  await panel.getByRole("button", { name: "Reset to defaults" }).click();
  await expect(panel).toBeHidden();
  await expect(chips).toHaveCount(before);
  await expect(open).toBeFocused();

  // On a small phone the open panel fits the screen: the page does not scroll sideways.
  await page.setViewportSize({ width: 360, height: 740 });
  await open.click();
  await expect(panel).toBeVisible();
  const width = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  expect(width.scroll, "no sideways scrolling with the metrics panel open at 360 px").toBeLessThanOrEqual(width.inner);
  await page.keyboard.press("Escape");
});

test("the cohort grid renders, masks cycles not reached, and a cell equals the service's answer", async ({ page }) => {
  const env = e2eEnv();
  await page.goto("/cohorts?range=last90&rows=day&cell=retention&cycles=6");
  const grid = page.getByRole("region", { name: /\(scrollable\)/ }).first();
  await expect(grid.locator("tbody tr").first()).toBeVisible();
  // The youngest cohorts have not reached cycle 1 yet: masked, not 0.
  await expect(grid.locator("td[data-masked=true]").first()).toBeVisible();

  const start = addDays(env.endDate, -89);
  const direct = await serviceCall("/api/data/cohort", { start_date: start, end_date: env.endDate, group_by: ["date", "billing_cycle"], metrics: ["approvals_by_initial_date"] });
  const byDay = new Map<string, Map<number, number>>();
  for (const r of direct.data) {
    const m = byDay.get(String(r.date)) ?? new Map<number, number>();
    m.set(Number(r.billing_cycle), Number(r.approvals_by_initial_date));
    byDay.set(String(r.date), m);
  }
  // The oldest cohort has reached cycle 1: its cell is approvals at cycle 1 ÷ approvals at cycle 0.
  const firstRow = grid.locator("tbody tr").first();
  const day = (await firstRow.locator("th").innerText()).trim();
  const cycles = [...byDay.entries()].find(([d]) => day.includes(d) || d === day)?.[1] ?? byDay.get(start)!;
  const c0 = cycles.get(0) ?? 0;
  const c1 = cycles.get(1) ?? 0;
  expect(c0).toBeGreaterThan(0);
  await expect(firstRow.locator("td").first()).toHaveText(c0.toLocaleString("en-US"));
  const cell1 = (await firstRow.locator("td").nth(2).innerText()).replace("%", "");
  expect(Math.abs(Number(cell1) - (c1 / c0) * 100)).toBeLessThan(0.006);

  await expectNoSeriousA11yViolations(page);
  await screenshots(page, "cohorts");
});

test("the cohort grid marks the months the range cuts as partial, with their days on hover and in the CSV", async ({ page }) => {
  const env = e2eEnv();
  // From the 15th of the month before last to today: the first month is always cut, the last one
  // unless today ends its month; the month between is whole.
  const start = `${addDays(`${env.endDate.slice(0, 7)}-01`, -40).slice(0, 7)}-15`;
  const months = periodsIn({ start, end: env.endDate }, "month");
  expect(months.map((m) => m.partial)).toEqual([true, false, months.at(-1)!.end !== env.endDate]);
  const shown = months.map((m) => (m.partial ? `${m.label} (partial)` : m.label));
  const note = (m: (typeof months)[number]) => `Only ${m.from} to ${m.to} of ${m.start} to ${m.end} is in the range.`;

  await page.goto(`/cohorts?range=${start}..${env.endDate}&rows=month&cell=retention&cycles=3`);
  const grid = page.getByRole("region", { name: /by signup month and billing cycle \(scrollable\)/ });
  const labels = grid.locator("tbody th");
  await expect(labels).toHaveText(shown);
  await expect(labels.first()).toHaveAttribute("title", note(months[0]!));
  await expect(labels.nth(1)).not.toHaveAttribute("title", /.+/);

  const csv = await downloadCsv(page);
  expect(csv.header.slice(0, 3)).toEqual(["Cohort", "Customers", "Cycle 0"]);
  expect(csv.rows.map((r) => r[0])).toEqual(shown);
  expect(csv.meta.filter((l) => l[0] === "Note").map((l) => l[1])).toEqual(months.filter((m) => m.partial).map((m) => `${m.label} (partial): ${note(m)}`));
  await screenshots(page, "cohorts-partial");
});

test("the other pages pass the accessibility check and are screenshotted", async ({ page }) => {
  for (const [path, name] of [["/", "home"], ["/definitions", "definitions"], ["/reports", "saved-reports"], ["/explore", "explore-empty"]] as const) {
    await page.goto(path);
    await expectNoSeriousA11yViolations(page);
    await screenshots(page, name);
  }
});

test("the sign-in page passes the accessibility check", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto("/login");
  await expectNoSeriousA11yViolations(page);
  await screenshots(page, "login");
  await context.close();
});
