/**
 * A dashboard's pivot tile downloads its table as CSV exactly as the tile shows it, on the dashboard
 * and on its shared page: the same header, the same rows in the same order, every amount the same to
 * the cent, the same totals; above it, lines naming the dashboard and the tile.
 */
import { readFileSync } from "node:fs";
import { expect, test, type Locator, type Page } from "./support/test";
import { authFile } from "./support/env";
import { parseCsv } from "./support/helpers";

const TILES_TIMEOUT = 90_000;
const TITLE = "Revenue by month and brand";
const PIVOT = `pivot.4.rg|op=orders&range=last90&by=date,card_brand&grain=month&m=revenue&table=pivot|${TITLE}`;
const PARAMS = `range=last90&t=${encodeURIComponent(PIVOT)}`;

/** The pivot as on screen: header cells, then each body row and the totals row, cell by cell ("—" where a cell shows it). */
async function pivotOnScreen(tile: Locator) {
  const cells = (sel: string) =>
    tile.locator(sel).evaluateAll((rows) =>
      rows.map((tr) => Array.from(tr.children, (c) => ((c.querySelector("[aria-hidden=true]") ?? c).textContent ?? "").trim())),
    );
  return { header: (await cells("thead tr"))[0]!, rows: await cells("tbody tr"), totals: (await cells("tfoot tr"))[0]! };
}

/** An amount as cents, from the screen ("$1,234.56", "−$5.25") or the file ("1234.56"); null for an empty cell. */
const cents = (text: string) => (text === "" || text === "—" ? null : Math.round(Number(text.replace(/[$,]/g, "").replace("\u2212", "-")) * 100));

async function downloadTile(page: Page, tile: Locator) {
  const [download] = await Promise.all([page.waitForEvent("download"), tile.getByRole("button", { name: `Download CSV of ${TITLE}` }).click()]);
  const all = parseCsv(readFileSync((await download.path())!, "utf8"));
  const blank = all.findIndex((r) => r.length === 1 && r[0] === "");
  const meta = new Map(all.slice(0, blank).map((r) => [r[0]!, r[1]!]));
  const [header, ...lines] = all.slice(blank + 1).filter((r) => r.length > 1);
  return { name: download.suggestedFilename(), meta, header: header!, rows: lines.slice(0, -1), totals: lines.at(-1)! };
}

async function expectCsvAsShown(page: Page, tile: Locator) {
  await expect(tile).toHaveAttribute("data-status", "done", { timeout: TILES_TIMEOUT });
  const shown = await pivotOnScreen(tile);
  expect(shown.rows.length).toBeGreaterThan(1);
  expect(shown.header.length).toBeGreaterThan(3);
  const csv = await downloadTile(page, tile);
  expect(csv.meta.get("Tile")).toBe(TITLE);
  // The row dimension as shown; each brand and the Total with the currency the numbers are in.
  expect(csv.header).toEqual([shown.header[0], ...shown.header.slice(1).map((h) => `${h} (USD)`)]);
  expect(csv.rows.map((r) => r[0])).toEqual(shown.rows.map((r) => r[0]));
  expect(csv.rows.map((r) => r.slice(1).map(cents))).toEqual(shown.rows.map((r) => r.slice(1).map(cents)));
  expect(csv.totals[0]).toBe("Totals");
  expect(csv.totals.slice(1).map(cents)).toEqual(shown.totals.slice(1).map(cents));
  // Amounts to the cent, as the file's numbers: never more than 2 decimals.
  for (const r of [...csv.rows, csv.totals]) for (const c of r.slice(1)) expect(c).toMatch(/^(-?\d+(\.\d{1,2})?)?$/);
  return csv;
}

test("a pivot tile downloads its table as CSV, as shown, on the dashboard and on its shared page", async ({ browser }) => {
  const context = await browser.newContext({ storageState: authFile("analyst") });
  const page = await context.newPage();
  await page.goto(`/dashboards/new?${PARAMS}`);
  const tile = page.locator("article[data-kind=pivot]");
  const mine = await expectCsvAsShown(page, tile);
  expect(mine.meta.get("Dashboard")).toBe("Dashboard");
  expect(mine.name).toMatch(/^Dashboard_Revenue-by-month-and-brand_\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}\.csv$/);

  // Saved and shared: the reader without an account downloads the same table.
  const name = `Pivot CSV ${Date.now()}`;
  const saved = await page.request.post("/api/saved-reports", { data: { name, page: "dashboard", params: PARAMS } });
  expect(saved.status()).toBe(201);
  const id = ((await saved.json()) as { report: { id: string } }).report.id;
  const link = await page.request.post(`/api/saved-reports/${id}/links`, { data: { mode: "live", label: "Pivot CSV" } });
  expect(link.status()).toBe(201);
  const { url } = (await link.json()) as { url: string };
  const visitor = await browser.newContext();
  const v = await visitor.newPage();
  await v.goto(url);
  await expect(v.getByRole("heading", { level: 1, name })).toBeVisible();
  const shared = await expectCsvAsShown(v, v.locator("article[data-kind=pivot]"));
  expect(shared.meta.get("Dashboard")).toBe(name);
  expect(shared.meta.get("Shared by")).toBeTruthy();
  // The same days, the same rows and numbers as on the dashboard.
  expect(shared.rows).toEqual(mine.rows);
  expect(shared.totals).toEqual(mine.totals);
  await visitor.close();
  await context.close();
});
