/**
 * The screen never changes the question: typed filter lists, report URLs the page cannot
 * apply, custom ranges, sorting after a new grouping, long free text, cohort settings, suggestions,
 * "is not" and the data-only CSV; against the real service and the built dashboard.
 */
import { existsSync, readFileSync } from "node:fs";
import { expect, test, type Page } from "./support/test";
import { addDays } from "../lib/contract/dates";
import { authFile, e2eEnv } from "./support/env";
import { cents, downloadCsv, expectNoSeriousA11yViolations, parseCsv, screenshots, serviceCall } from "./support/helpers";

test.use({ storageState: authFile("analyst") });

/** Report calls the service has logged so far (one JSON line per request). */
function serviceReportCalls(): number {
  const log = `${e2eEnv().dir}/service.log`;
  if (!existsSync(log)) return 0;
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => l.includes('"path":"/api/data')).length;
}

async function runForm(page: Page) {
  await page.getByRole("form", { name: "Report settings" }).getByRole("button", { name: "Run report" }).click();
}

test("a typed list of campaign ids is two values, with the service's own numbers for both", async ({ page }) => {
  const env = e2eEnv();
  const start = addDays(env.endDate, -6);
  const byCampaign = await serviceCall("/api/data", { start_date: start, end_date: env.endDate, group_by: ["campaign_id"], metrics: ["attempts"] });
  const ids = byCampaign.data.map((r) => Number(r.campaign_id)).slice(0, 2);
  expect(ids).toHaveLength(2);

  await page.goto("/explore");
  const form = page.getByRole("form", { name: "Report settings" });
  await form.getByLabel("Period").selectOption("last7");
  await form.getByLabel("Add a filter on").selectOption("campaign_id");
  const box = form.getByLabel("Add Campaign ID values");
  // A token that is not an id stays in the box, named, while the valid ones become values.
  await box.fill(`${ids[0]}, 1x3; ${ids[1]}`);
  await box.press("Enter");
  const chips = form.getByRole("list", { name: "Campaign ID values" }).getByRole("listitem");
  await expect(chips).toHaveCount(2);
  await expect(form.getByRole("alert")).toContainText("“1x3” is not a whole number");
  await expect(box).toHaveValue("1x3");
  await screenshots(page, "filter-typed-list");
  await box.fill("");

  await runForm(page);
  await expect(page).toHaveURL(new RegExp(`f\\.campaign_id=${Math.min(...ids)},${Math.max(...ids)}`));
  await expect(page.getByRole("row", { name: "Totals" })).toBeVisible();
  const csv = await downloadCsv(page);
  const iAtt = csv.header.indexOf("Attempts");
  const iRev = csv.header.indexOf("Revenue (USD)");
  const direct = await serviceCall("/api/data", {
    start_date: start,
    end_date: env.endDate,
    group_by: ["date"],
    metrics: ["attempts", "revenue"],
    filters: { campaign_id: ids },
  });
  expect(Number(csv.totals[iAtt])).toBe(direct.data.reduce((s, r) => s + Number(r.attempts), 0));
  expect(cents(csv.totals[iRev])).toBe(direct.data.reduce((s, r) => s + cents(r.revenue), 0));
});

test("a report URL the page cannot apply runs nothing, says which parameter, and offers the nearest valid report", async ({ page }) => {
  const { endDate: today } = e2eEnv();
  const cases: [string, string, RegExp][] = [
    ["/explore?range=last7&f.card_brand=FOO", "f.card_brand", /“FOO” is not one of VISA/],
    ["/explore?range=last7&by=date,nope", "by", /“nope” is not a dimension/],
    ["/explore?range=last7&m=revenue,bogus", "m", /“bogus” is not a metric/],
    ["/explore?range=2025-13-01..2025-12-31", "range", /2025-13-01 is not a calendar date/],
    [`/explore?range=${today}..${addDays(today, -5)}`, "range", /ends .* before it starts/],
    [`/explore?range=${addDays(today, 1)}..${addDays(today, 5)}`, "range", /ends after today/],
    [`/explore?range=2000-01-01..${today}`, "range", /at most 3,660/],
    ["/explore?range=last7&group-by=date", "group-by", /not a parameter of this page/],
    ["/cohorts?range=last90&cycles=500", "cycles", /must be 1 to 36, not “500”/],
  ];
  for (const [url, param, message] of cases) {
    const before = serviceReportCalls();
    await page.goto(url);
    const alert = page.getByRole("alert").filter({ hasText: "nothing was run" });
    await expect(alert).toBeVisible();
    await expect(alert.getByRole("listitem").filter({ has: page.locator("code", { hasText: param }) })).toContainText(message);
    // Give a call that should not happen the time to happen, then count the service's log lines.
    await page.waitForTimeout(1500);
    expect(serviceReportCalls(), url).toBe(before);
  }
  await screenshots(page, "url-problems-cohorts");

  await page.goto("/explore?range=last7&f.card_brand=FOO,visa");
  await screenshots(page, "url-problems-explore");
  await expectNoSeriousA11yViolations(page);
  await page.getByRole("button", { name: "Open the nearest valid report" }).click();
  await expect(page).toHaveURL(/range=last7/);
  expect(new URL(page.url()).searchParams.get("f.card_brand")).toBe("VISA");
  await expect(page.getByRole("row", { name: "Totals" })).toBeVisible();
});

test("custom ranges in the future, reversed or over the cap are refused next to the field, typed as YYYY-MM-DD", async ({ page }) => {
  const { endDate: today } = e2eEnv();
  await page.goto("/explore");
  const form = page.getByRole("form", { name: "Report settings" });
  await form.getByLabel("Period").selectOption("custom");
  const from = form.getByRole("textbox", { name: "From", exact: true });
  const to = form.getByRole("textbox", { name: "To", exact: true });
  const run = form.getByRole("button", { name: "Run report" });
  const note = form.getByRole("group", { name: "Date range" }).getByRole("alert");

  await to.fill(addDays(today, 3));
  await expect(note).toContainText(`ends after today (${today})`);
  await expect(run).toBeDisabled();
  await from.fill(today);
  await to.fill(addDays(today, -3));
  await expect(note).toContainText("before it starts");
  await from.fill("2000-01-01");
  await to.fill(today);
  await expect(note).toContainText("at most 3,660");
  await from.fill("07/31/2025");
  await expect(note).toContainText("type it as YYYY-MM-DD");
  await screenshots(page, "range-refused");
  await from.fill(addDays(today, -2));
  await expect(note).toHaveCount(0);
  await expect(form.getByText(`3 days, inclusive`)).toBeVisible();
  await expect(run).toBeEnabled();
});

test("a new grouping drops a sort that no longer means the same, and a date grouping sorts by date; suggestions and 'is not'", async ({ page }) => {
  await page.goto("/explore?op=orders&range=last7&by=date&m=attempts,revenue");
  await expect(page.getByRole("row", { name: "Totals" })).toBeVisible();
  await page.getByRole("columnheader", { name: /Revenue/ }).getByRole("button").click();
  await expect(page).toHaveURL(/sort=-revenue/);

  // Group by gateway and date instead: the revenue sort is gone, the rows come in date order.
  const form = page.getByRole("form", { name: "Report settings" });
  await form.getByRole("button", { name: "Remove Date from group by" }).click();
  await form.getByLabel("Add a dimension").selectOption("gateway_id");
  await form.getByLabel("Add a dimension").selectOption("date");
  await runForm(page);
  await expect(page).toHaveURL(/by=gateway_id,date/);
  expect(new URL(page.url()).searchParams.get("sort")).toBeNull();
  await expect(page.getByRole("columnheader", { name: /Date/ })).toHaveAttribute("aria-sort", "ascending");
  const csv = await downloadCsv(page);
  const dates = csv.rows.map((r) => r[csv.header.indexOf("Date")]!);
  expect(dates).toEqual([...dates].sort());

  // The gateways of that answer are suggested when filtering on gateway (no upstream call).
  const gateways = new Set(csv.rows.map((r) => r[csv.header.indexOf("Gateway ID")]));
  const before = serviceReportCalls();
  await form.getByLabel("Add a filter on").selectOption("gateway_id");
  const box = form.getByLabel("Add Gateway ID values");
  // The suggestions come from the dashboard's own cache: each gateway of that answer is offered
  // when its id is typed (others seen in earlier answers may be too).
  const options = form.getByRole("listbox", { name: "Gateway ID values seen in recent reports" }).getByRole("option");
  expect(gateways.size).toBeGreaterThan(0);
  for (const g of gateways) {
    await box.fill(String(g));
    // Named as a MID is everywhere: "Wells 02 (#2)" ("MID #2" before any answer gave its alias).
    await expect(options.filter({ hasText: new RegExp(`(^.+ \\(#${g}\\)|^MID #${g})$`) })).toHaveCount(1);
  }
  await box.fill("");
  expect(serviceReportCalls()).toBe(before);
  await expect(form.getByText("Only “any of”: the reporting service cannot exclude Gateway ID values.")).toBeVisible();

  // Card brand "is not VISA" is sent as the other brands.
  await form.getByLabel("Add a filter on").selectOption("card_brand");
  await form.getByLabel("Card brand condition").selectOption("not");
  await form.getByRole("checkbox", { name: "VISA", exact: true }).check();
  await expect(form.getByText("Sent as any of MASTERCARD, AMEX, DISCOVER")).toBeVisible();
  await form.getByRole("button", { name: "Remove the Gateway ID filter" }).click();
  await screenshots(page, "filter-is-not");
  await runForm(page);
  await expect(page).toHaveURL(/f\.card_brand=AMEX,DISCOVER,MASTERCARD/);
});

test("free text is refused past the contract's length without echoing it, and nothing widens the page", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/explore");
  const form = page.getByRole("form", { name: "Report settings" });
  await form.getByLabel("Add a filter on").selectOption("affid");
  const box = form.getByLabel("Add Affiliate values");
  const long = "a".repeat(300);
  await box.fill(long);
  await box.press("Enter");
  const alert = form.getByRole("alert");
  await expect(alert).toContainText("is longer than 256 characters (it has 300)");
  expect((await alert.innerText()).includes(long)).toBe(false);
  await expect(form.getByRole("list", { name: "Affiliate values" })).toHaveCount(0);
  // A long value that fits the contract wraps as a chip instead of widening the page.
  await box.fill("b".repeat(256));
  await box.press("Enter");
  await expect(form.getByRole("list", { name: "Affiliate values" }).getByRole("listitem")).toHaveCount(1);
  const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(widths.scroll).toBeLessThanOrEqual(widths.client);
  await screenshots(page, "filter-long-text");
});

test("cohort settings refuse out-of-range values with a message instead of truncating", async ({ page }) => {
  await page.goto("/cohorts?range=last90");
  const period = page.getByLabel("Period (days)");
  await period.fill("500");
  await expect(page.getByText("“500” is not applied: enter a whole number from 1 to 366. The grid still uses 30.")).toBeVisible();
  await expect(page).not.toHaveURL(/period=/);
  await period.fill("45");
  await expect(page).toHaveURL(/period=45/);
  await screenshots(page, "cohort-settings");
});

test("the data-only CSV has the header row first and no totals; amounts name their currency", async ({ page }) => {
  await page.goto("/explore?op=orders&range=last7&by=date&m=attempts,revenue");
  await expect(page.getByRole("row", { name: "Totals" })).toBeVisible();
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Data only CSV" }).click()]);
  const rows = parseCsv(readFileSync((await download.path())!, "utf8"));
  expect(rows[0]).toEqual(["Date", "Attempts", "Revenue (USD)"]);
  expect(rows.some((r) => r[0] === "Totals")).toBe(false);
  const annotated = await downloadCsv(page);
  expect(rows.slice(1)).toEqual(annotated.rows);
});
