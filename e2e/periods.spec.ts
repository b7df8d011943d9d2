/**
 * Periods and comparisons in the browser, against the real service: a monthly report compared with
 * the previous period of the same length (deltas, words, colours, the dashed comparison series,
 * partial months), its numbers against direct service calls, the pivot's totals against the rows
 * table's, last quarter against the previous calendar period month by month (the compared days on
 * hover and in the CSV, a range that is not whole months refused with its reason), the URL
 * reproducing all of it, axe, and phone screenshots.
 */
import { expect, test } from "./support/test";
import { addDays } from "../lib/contract/dates";
import { authFile, e2eEnv } from "./support/env";
import { cents, downloadCsv, expectNoSeriousA11yViolations, expectWorkbookIsCsv, screenshots, serviceCall } from "./support/helpers";

test.use({ storageState: authFile("analyst") });

test("a monthly report against the previous period: deltas, partial months, the dashed series, the service's own sums", async ({ page }) => {
  const env = e2eEnv();
  // 45 days always cut at least one month.
  const start = addDays(env.endDate, -44);
  await page.goto(`/explore?op=orders&range=${start}..${env.endDate}&by=date&m=revenue,attempts,cb_count&kpi=approval_rate`);
  // The URL names a report, so it runs at once: its totals mean the page is live (hydrated) and a
  // choice made in the form is not lost to the first render.
  await expect(page.getByRole("row", { name: "Totals" })).toBeVisible();
  const form = page.getByRole("form", { name: "Report settings" });
  await form.getByLabel("Date rows by").selectOption("month");
  await form.getByLabel("Compare to").selectOption("previous");
  await expect(form.getByLabel("Date rows by")).toHaveValue("month");
  await expect(form.getByText(`Compared with the previous 45 days, ${addDays(start, -45)} to ${addDays(start, -1)}.`)).toBeVisible();
  await form.getByRole("button", { name: "Run report" }).click();
  await expect(page).toHaveURL(/grain=month/);
  const url = new URL(page.url());
  expect(url.searchParams.get("cmp")).toBe("prev");
  // The order the metrics were chosen in is kept.
  expect(url.searchParams.get("m")).toBe("revenue,attempts,cb_count");

  const totals = page.getByRole("row", { name: "Totals" });
  await expect(totals).toBeVisible();
  await expect(page.getByRole("columnheader", { name: /Revenue \(previous 45 days\)/ })).toBeVisible();
  await expect(page.getByRole("columnheader", { name: /Approval rate change/ })).toBeVisible();
  await expect(page.getByRole("cell", { name: /\(partial\)$/ }).first()).toBeVisible();
  // A change says in words whether it is good news for that measure.
  await expect(totals.getByText(/\((better|worse)\)/).first()).toBeVisible();

  const csv = await downloadCsv(page);
  const col = (label: RegExp) => csv.header.findIndex((h) => label.test(h));
  const [iRev, iRevCmp, iRevChg, iAtt, iAttCmp, iRate, iRateChg] = [
    col(/^Revenue \(USD\)$/),
    col(/^Revenue \(previous 45 days\)/),
    col(/^Revenue change/),
    col(/^Attempts$/),
    col(/^Attempts \(previous 45 days\)$/),
    col(/^Approval rate \(%\)$/),
    col(/^Approval rate change \(pp\)$/),
  ];
  expect([iRev, iRevCmp, iRevChg, iAtt, iAttCmp, iRate, iRateChg].every((i) => i >= 0)).toBe(true);
  expect(csv.meta.find((m) => m[0] === "Periods")?.[1]).toMatch(/^Rows by month; compared with the previous 45 days/);

  // Independently: the service's own sums over exactly each side (by card brand, a few rows, added here;
  // without a group-by the service answers at its finest grain).
  const sums = async (from: string, to: string) => {
    const r = await serviceCall("/api/data", { start_date: from, end_date: to, group_by: ["card_brand"], metrics: ["revenue", "attempts", "approvals"] });
    const add = (k: string, f: (v: string | number | null | undefined) => number) => r.data.reduce((s, row) => s + f(row[k]), 0);
    return { revenue: add("revenue", cents), attempts: add("attempts", Number), approvals: add("approvals", Number) };
  };
  const now = await sums(start, env.endDate);
  const before = await sums(addDays(start, -45), addDays(start, -1));
  expect(cents(csv.totals[iRev])).toBe(now.revenue);
  expect(cents(csv.totals[iRevCmp])).toBe(before.revenue);
  expect(cents(csv.totals[iRevChg])).toBe(now.revenue - before.revenue);
  expect(Number(csv.totals[iAtt])).toBe(now.attempts);
  expect(Number(csv.totals[iAttCmp])).toBe(before.attempts);
  const points = (now.approvals / now.attempts - before.approvals / before.attempts) * 100;
  expect(Math.abs(Number(csv.totals[iRateChg]) - points)).toBeLessThan(0.006);
  // Month rows: the months the range meets, the cut ones marked.
  expect(csv.rows.length).toBeGreaterThanOrEqual(2);
  expect(csv.rows.some((r) => /\(partial\)$/.test(r[0]!))).toBe(true);

  // The chart overlays the comparison as a dashed series.
  const chart = page.getByRole("figure").first();
  await expect(chart.locator("path[stroke-dasharray]").first()).toBeAttached();

  // A table of a few rows is as tall as its rows: its totals end the box, with no empty space under them.
  const table = await page.getByRole("table").filter({ has: page.getByRole("row", { name: "Totals" }) }).boundingBox();
  const totalsRow = await page.getByRole("row", { name: "Totals" }).boundingBox();
  expect(table!.y + table!.height - (totalsRow!.y + totalsRow!.height)).toBeLessThan(4);

  // The URL reproduces all of it.
  await page.reload();
  await expect(page.getByRole("row", { name: "Totals" })).toBeVisible();
  const again = await downloadCsv(page);
  expect(again.rows).toEqual(csv.rows);
  expect(again.totals).toEqual(csv.totals);

  await expectNoSeriousA11yViolations(page);
  await screenshots(page, "explore-compared");
});

test("a KPI tile compared with days partly before the data begins says how many it covers, with no verdict", async ({ page }) => {
  const env = e2eEnv();
  const start = addDays(env.endDate, -29);
  // Thirty days that straddle the data's first day (the generated data holds 150 days).
  const cmp = { start: addDays(env.endDate, -169), end: addDays(env.endDate, -140) };
  const byDay = await serviceCall("/api/data", { start_date: cmp.start, end_date: cmp.end, group_by: ["date"], metrics: ["revenue"] });
  const covered = new Set(byDay.data.map((x) => String(x.date))).size;
  expect(covered, "the compared days straddle the data's first day").toBeGreaterThan(0);
  expect(covered).toBeLessThan(30);
  const tile = "kpi.1|op=orders&range=last30&by=date&m=revenue|";
  await page.goto(`/dashboards/new?range=${start}..${env.endDate}&cmp=${cmp.start}..${cmp.end}&t=${encodeURIComponent(tile)}`);
  const kpi = page.getByRole("article").first();
  await expect(kpi.getByText(`(data on ${covered} of 30 days)`)).toBeVisible({ timeout: 60_000 });
  await expect(kpi.getByText(/% \(partly covered\)$/)).toBeVisible();
  await expect(kpi.getByText(/\((better|worse)\)/)).toHaveCount(0);
});

test("the pivot's totals equal the rows table's, and the layout is in the URL", async ({ page }) => {
  const env = e2eEnv();
  const start = addDays(env.endDate, -59);
  await page.goto(`/explore?op=orders&range=${start}..${env.endDate}&by=date,card_brand&grain=month&m=revenue,attempts&kpi=approval_rate`);
  const totals = page.getByRole("row", { name: "Totals" });
  await expect(totals).toBeVisible();
  const rowsCsv = await downloadCsv(page);
  const iRev = rowsCsv.header.findIndex((h) => /^Revenue \(USD\)$/.test(h));

  await page.getByRole("group", { name: "Table layout" }).getByRole("button", { name: "Pivot" }).click();
  await expect(page).toHaveURL(/table=pivot/);
  const pivot = page.getByRole("table");
  await expect(pivot).toBeVisible();
  await expect(page.getByLabel("Pivot measure")).toHaveValue("revenue");
  const pivotCsv = await downloadCsv(page);
  // Grand total (last cell of the totals line) equals the rows table's revenue total.
  expect(cents(pivotCsv.totals.at(-1))).toBe(cents(rowsCsv.totals[iRev]));
  // Each month's row total equals the sum of that month's rows in the rows table.
  for (const r of pivotCsv.rows) {
    const month = r[0]!;
    const fromRows = rowsCsv.rows.filter((x) => x[0] === month).reduce((s, x) => s + cents(x[iRev]), 0);
    expect(cents(r.at(-1)), month).toBe(fromRows);
  }

  // A KPI pivot: its grand total is the ratio of sums, as the rows table's totals row.
  await page.getByLabel("Pivot measure").selectOption("approval_rate");
  await expect(page).toHaveURL(/pm=approval_rate/);
  const iRate = rowsCsv.header.findIndex((h) => /^Approval rate/.test(h));
  const ratePivot = await downloadCsv(page);
  expect(ratePivot.totals.at(-1)).toBe(rowsCsv.totals[iRate]);
  // Its workbook holds exactly its CSV.
  await expectWorkbookIsCsv(page);

  await page.reload();
  await expect(page.getByLabel("Pivot measure")).toHaveValue("approval_rate");
  await expectNoSeriousA11yViolations(page);
  await screenshots(page, "explore-pivot");
});

test("last quarter against the previous calendar period: month beside month, the compared days on hover and in the CSV, a range that is not whole months refused", async ({ page }) => {
  await page.goto("/explore?op=orders&range=last30&by=date&m=revenue,approvals");
  await expect(page.getByRole("row", { name: "Totals" })).toBeVisible();
  const form = page.getByRole("form", { name: "Report settings" });
  // Today as the page has it (in the reporting time zone), and the quarters from it, computed here.
  const today = /today is (\d{4}-\d{2}-\d{2})/.exec((await form.getByRole("group", { name: "Date range" }).innerText()) ?? "")![1]!;
  const [year, month] = today.split("-").map(Number) as [number, number];
  const thisQuarter = year * 12 + Math.floor((month - 1) / 3) * 3; // months since year 0 of its first month
  const label = (i: number) => `${Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, "0")}`;
  const first = (i: number) => `${label(i)}-01`;
  const last = (i: number) => new Date(Date.UTC(Math.floor(i / 12), (i % 12) + 1, 0)).toISOString().slice(0, 10);
  const days = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
  const report = [0, 1, 2].map((k) => thisQuarter - 3 + k);
  const compared = report.map((i) => i - 3);

  await form.getByLabel("Period").selectOption("lastquarter");
  await form.getByLabel("Date rows by").selectOption("month");
  await form.getByLabel("Compare to").selectOption("calendar");
  const cmpHint = `Compared with the previous quarter (previous calendar period), ${first(compared[0]!)} to ${last(compared[2]!)}`;
  await expect(form.getByText(cmpHint)).toBeVisible();
  await form.getByRole("button", { name: "Run report" }).click();
  await expect(page).toHaveURL(/cmp=prevcal/);
  const url = new URL(page.url());
  expect([url.searchParams.get("range"), url.searchParams.get("grain")]).toEqual(["lastquarter", "month"]);
  await expect(page.getByRole("row", { name: "Totals" })).toBeVisible();
  await expect(page.getByRole("columnheader", { name: "Revenue (previous quarter)" })).toBeVisible();

  // Each month's row stands beside the month three before, whatever their lengths; its date cell names
  // the compared days on hover, and its "Compared with" cell shows them.
  for (const [k, i] of report.entries()) {
    const dateCell = page.getByRole("cell", { name: label(i), exact: true });
    await dateCell.hover();
    await expect(dateCell).toHaveAttribute("title", `Compared with ${first(compared[k]!)} to ${last(compared[k]!)}.`);
    const row = page.getByRole("row").filter({ has: dateCell });
    await expect(row.getByRole("cell", { name: `${first(compared[k]!)} to ${last(compared[k]!)}`, exact: true })).toBeVisible();
  }

  // The CSV: the compared range of each row in its own column, the compared values the service's own
  // sums over exactly that month.
  const csv = await downloadCsv(page);
  expect(csv.header.slice(0, 2)).toEqual(["Month", "Compared with"]);
  expect(csv.rows.map((r) => [r[0], r[1]])).toEqual(report.map((i, k) => [label(i), `${first(compared[k]!)} to ${last(compared[k]!)}`]));
  const reportDays = days(first(report[0]!), last(report[2]!));
  const comparedDays = days(first(compared[0]!), last(compared[2]!));
  const lengths = reportDays === comparedDays ? "" : ` (${comparedDays} days against the report's ${reportDays}; month beside month)`;
  // The data's 150 days reach at most part of the quarter before last: the service's own days with
  // data in it are what the page says the comparison covers.
  const byDay = await serviceCall("/api/data", { start_date: first(compared[0]!), end_date: last(compared[2]!), group_by: ["date"], metrics: ["revenue", "approvals"] });
  const covered = new Set(byDay.data.map((x) => String(x.date))).size;
  expect(covered, "the generated data starts inside or after the compared quarter").toBeLessThan(comparedDays);
  const coverage = ` (compared period: data on ${covered} of ${comparedDays} days)`;
  expect(csv.meta.find((m) => m[0] === "Periods")?.[1]).toBe(
    `Rows by month; compared with the previous quarter (previous calendar period), ${first(compared[0]!)} to ${last(compared[2]!)}${lengths}${coverage}`,
  );
  // A comparison its data covers only in part is not called better or worse; the compared total says how much it covers.
  const totals = page.getByRole("row", { name: "Totals" });
  await expect(totals.getByText(/\((better|worse)\)/)).toHaveCount(0);
  await expect(totals.getByText(`(data on ${covered} of ${comparedDays} days)`).first()).toBeVisible();
  expect(csv.header.at(-1)).toBe("Compared period coverage");
  expect(csv.totals.at(-1)).toBe(`data on ${covered} of ${comparedDays} days`);
  const iRevCmp = csv.header.indexOf("Revenue (previous quarter) (USD)");
  const iApprCmp = csv.header.indexOf("Approvals (previous quarter)");
  expect(iRevCmp).toBeGreaterThan(0);
  expect(iApprCmp).toBeGreaterThan(0);
  for (const [k, i] of compared.entries()) {
    const r = await serviceCall("/api/data", { start_date: first(i), end_date: last(i), group_by: ["card_brand"], metrics: ["revenue", "approvals"] });
    expect(cents(csv.rows[k]![iRevCmp]), label(i)).toBe(r.data.reduce((s, x) => s + cents(x.revenue), 0));
    expect(Number(csv.rows[k]![iApprCmp]), label(i)).toBe(r.data.reduce((s, x) => s + Number(x.approvals ?? 0), 0));
  }
  await expectNoSeriousA11yViolations(page);
  await screenshots(page, "explore-calendar-compare");

  // A range that is not whole months has no previous calendar period: the form says why and will not
  // run. Seven days are never whole months (the last 30 days are November on 30 November).
  await form.getByLabel("Period").selectOption("last7");
  const start7 = addDays(today, -6);
  await expect(form.getByText(`${start7}..${today} is not whole calendar months, so it has no previous calendar period`)).toBeVisible();
  await expect(form.getByRole("button", { name: "Run report" })).toBeDisabled();
  // A custom comparison has its own start and end: one that overlaps the report is refused, and one of
  // as many whole months but other days is said plainly.
  await form.getByLabel("Period").selectOption("lastquarter");
  await form.getByLabel("Compare to").selectOption("custom");
  await form.getByLabel("Comparison starts on").fill(first(report[1]!));
  await form.getByLabel("Comparison ends on").fill(last(report[2]! + 1));
  await expect(form.getByText(/overlaps the report's/)).toBeVisible();
  await expect(form.getByRole("button", { name: "Run report" })).toBeDisabled();
  // Three whole months, some months back, of another number of days than the report's.
  const back = [6, 7, 8, 9, 10, 11, 12, 13, 14].map((n) => report[0]! - n).find((i) => days(first(i), last(i + 2)) !== reportDays)!;
  await form.getByLabel("Comparison starts on").fill(first(back));
  await form.getByLabel("Comparison ends on").fill(last(back + 2));
  await expect(form.getByText(`Compared with a custom range, ${first(back)} to ${last(back + 2)} (${days(first(back), last(back + 2))} days against the report's ${reportDays}; month beside month).`)).toBeVisible();
  await expect(form.getByRole("button", { name: "Run report" })).toBeEnabled();

  // The same refusal from a link: nothing runs, the reason is listed.
  await page.goto("/explore?op=orders&range=last7&by=date&cmp=prevcal&m=revenue");
  const alert = page.getByRole("alert").filter({ hasText: "nothing was run" });
  await expect(alert).toBeVisible();
  await expect(alert.getByRole("listitem").filter({ has: page.locator("code", { hasText: "cmp" }) })).toContainText(`${start7}..${today} is not whole calendar months`);
});
