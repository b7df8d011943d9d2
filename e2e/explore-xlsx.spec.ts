/**
 * A long Explore table (more than the 5,000 rows the browser writes itself) downloads as a workbook
 * the server writes and streams: the browser asks POST /api/reports/explore-xlsx, and the file holds
 * the page's CSV cell by cell (header, every row, totals; amounts as numbers, the header frozen).
 */
import { readFileSync } from "node:fs";
import { expect, test } from "./support/test";
import { addDays } from "../lib/contract/dates";
import { downloadCsv } from "./support/helpers";
import { authFile, e2eEnv } from "./support/env";
import { questionLines, readWorkbook, sheetAsCsvRows } from "../lib/report/table/testing/xlsx";

test("a table of more than 5,000 rows downloads as a workbook written on the server, holding the CSV", async ({ browser }) => {
  test.setTimeout(300_000);
  const env = e2eEnv();
  const context = await browser.newContext({ storageState: authFile("analyst") });
  const page = await context.newPage();
  // By day, BIN and product over 140 days: about one row an order.
  await page.goto(`/explore?op=orders&range=${addDays(env.endDate, -139)}..${env.endDate}&by=date,bin,product_id&m=attempts,revenue&kpi=approval_rate&sort=-revenue`);
  await expect(page.getByRole("row", { name: "Totals" })).toBeVisible({ timeout: 240_000 });
  const csv = await downloadCsv(page);
  expect(csv.rows.length).toBeGreaterThan(5_000);

  const asked = page.waitForResponse((r) => r.url().includes("/api/reports/explore-xlsx") && r.status() === 200);
  const [file] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download Excel" }).click()]);
  await asked;
  expect(file.suggestedFilename()).toMatch(/^order-summary_\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}\.xlsx$/);
  const book = await readWorkbook(readFileSync((await file.path())!));
  expect(book.worksheets.map((w) => w.name)).toEqual(["Question", "Order summary (by event date)"]);
  // The same question; the data line says how each file's answer came (the page fetched it, the
  // server read the page's answer from its cache), and each file says when it was made.
  const own = (lines: string[][]) => lines.filter(([k]) => k !== "Data" && k !== "Exported at");
  expect(own(questionLines(book))).toEqual(own(csv.meta));
  const sheet = book.getWorksheet("Order summary (by event date)")!;
  expect(sheetAsCsvRows(sheet, csv.header.length)).toEqual([csv.header, ...csv.rows, csv.totals]);
  expect(sheet.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
  await expect(page.getByRole("button", { name: "Download Excel" })).toBeEnabled();
  await context.close();
});
