/**
 * Issue 16 in the browser, against the real service: a monthly report compared with the previous
 * period (deltas, words, colours, the dashed comparison series, partial months), its numbers against
 * direct service calls, the pivot's totals against the rows table's, the URL reproducing all of it,
 * axe, and phone screenshots.
 */
import { expect, test } from "@playwright/test";
import { addDays } from "../lib/contract/dates";
import { e2eEnv } from "./support/env";
import { cents, downloadCsv, expectNoSeriousA11yViolations, screenshots, serviceCall } from "./support/helpers";

test.use({ storageState: ".e2e/analyst.json" });

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
  await expect(form.getByText(`Compared with ${addDays(start, -45)} to ${addDays(start, -1)}.`)).toBeVisible();
  await form.getByRole("button", { name: "Run report" }).click();
  await expect(page).toHaveURL(/grain=month/);
  const url = new URL(page.url());
  expect(url.searchParams.get("cmp")).toBe("prev");
  // The order the metrics were chosen in is kept.
  expect(url.searchParams.get("m")).toBe("revenue,attempts,cb_count");

  const totals = page.getByRole("row", { name: "Totals" });
  await expect(totals).toBeVisible();
  await expect(page.getByRole("columnheader", { name: /Revenue \(previous period\)/ })).toBeVisible();
  await expect(page.getByRole("columnheader", { name: /Approval rate change/ })).toBeVisible();
  await expect(page.getByRole("cell", { name: /\(partial\)$/ }).first()).toBeVisible();
  // A change says in words whether it is good news for that measure.
  await expect(totals.getByText(/\((better|worse)\)/).first()).toBeVisible();

  const csv = await downloadCsv(page);
  const col = (label: RegExp) => csv.header.findIndex((h) => label.test(h));
  const [iRev, iRevCmp, iRevChg, iAtt, iAttCmp, iRate, iRateChg] = [
    col(/^Revenue \(USD\)$/),
    col(/^Revenue \(previous period\)/),
    col(/^Revenue change/),
    col(/^Attempts$/),
    col(/^Attempts \(previous period\)$/),
    col(/^Approval rate \(%\)$/),
    col(/^Approval rate change \(pp\)$/),
  ];
  expect([iRev, iRevCmp, iRevChg, iAtt, iAttCmp, iRate, iRateChg].every((i) => i >= 0)).toBe(true);
  expect(csv.meta.find((m) => m[0] === "Periods")?.[1]).toMatch(/^Rows by month; compared with previous period/);

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

  await page.reload();
  await expect(page.getByLabel("Pivot measure")).toHaveValue("approval_rate");
  await expectNoSeriousA11yViolations(page);
  await screenshots(page, "explore-pivot");
});
