/**
 * A dashboard's pivot tile downloads as an Excel workbook holding exactly its CSV: the question sheet
 * the CSV's lines, the table sheet its header, rows and totals cell by cell (amounts as numbers, the
 * header frozen); and the whole dashboard downloads as one workbook with a sheet named by the tile.
 */
import { readFileSync } from "node:fs";
import { expect, test, type Locator, type Page } from "./support/test";
import { authFile } from "./support/env";
import { parseCsv } from "./support/helpers";
import { questionLines, readWorkbook, sheetAsCsvRows } from "../lib/report/table/testing/xlsx";

const TILES_TIMEOUT = 90_000;
const TITLE = "Revenue by month and brand";
const PIVOT = `pivot.4.rg|op=orders&range=last90&by=date,card_brand&grain=month&m=revenue&table=pivot|${TITLE}`;
const KPI = "kpi.2|op=orders&range=last90&m=revenue|Revenue";
const PARAMS = `range=last90&t=${encodeURIComponent(PIVOT)}&t=${encodeURIComponent(KPI)}`;

async function download(page: Page, button: Locator): Promise<{ name: string; bytes: Buffer }> {
  const [file] = await Promise.all([page.waitForEvent("download"), button.click()]);
  return { name: file.suggestedFilename(), bytes: readFileSync((await file.path())!) };
}

test("a pivot tile and the whole dashboard download as workbooks holding the tile's CSV", async ({ browser }) => {
  const context = await browser.newContext({ storageState: authFile("analyst") });
  const page = await context.newPage();
  await page.goto(`/dashboards/new?${PARAMS}`);
  const tile = page.locator("article[data-kind=pivot]");
  await expect(tile).toHaveAttribute("data-status", "done", { timeout: TILES_TIMEOUT });
  await expect(page.locator("article[data-kind=kpi]")).toHaveAttribute("data-status", "done", { timeout: TILES_TIMEOUT });

  const csv = parseCsv((await download(page, tile.getByRole("button", { name: `Download CSV of ${TITLE}` }))).bytes.toString("utf8"));
  const blank = csv.findIndex((r) => r.length === 1 && r[0] === "");
  const table = csv.slice(blank + 1).filter((r) => r.length > 1);
  expect(table.length).toBeGreaterThan(2);

  const xlsx = await download(page, tile.getByRole("button", { name: `Download Excel of ${TITLE}` }));
  expect(xlsx.name).toMatch(/^Dashboard_Revenue-by-month-and-brand_\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}\.xlsx$/);
  const book = await readWorkbook(xlsx.bytes);
  expect(book.worksheets.map((w) => w.name)).toEqual(["Question", TITLE]);
  // "Exported at"-free lines: the tile's CSV says when its data is as of, the same in both files.
  expect(questionLines(book)).toEqual(csv.slice(0, blank));
  const sheet = book.getWorksheet(TITLE)!;
  expect(sheetAsCsvRows(sheet, table[0]!.length)).toEqual(table);
  expect(sheet.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
  expect(typeof sheet.getRow(2).getCell(2).value).toBe("number");

  // The whole dashboard: the question, then a sheet for the pivot (the KPI tile has none).
  const whole = await download(page, page.getByRole("button", { name: "Download dashboard as Excel" }));
  const dashboard = await readWorkbook(whole.bytes);
  expect(dashboard.worksheets.map((w) => w.name)).toEqual(["Question", TITLE]);
  const question = new Map(questionLines(dashboard).map(([k, v]) => [k, v]));
  expect(question.get("Dashboard")).toBe("Dashboard");
  expect(question.get("Grain")).toBe("Day");
  expect(question.get("Generated at")).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} /);
  expect(sheetAsCsvRows(dashboard.getWorksheet(TITLE)!, table[0]!.length)).toEqual(table);
  await context.close();
});
