/** BIN lookup with evidence: the last 90 days per gateway beside each answer, equal to the service's own figures, one report per bulk lookup. */
import { expect, test, type Page } from "./support/test";
import { authFile } from "./support/env";
import { addDays } from "../lib/contract/dates";
import { bestLabel, type EvidenceAnswer, type EvidenceDone } from "../lib/features/bin-lookup/evidence";
import { formatValue } from "../lib/report/metrics/format";
import { expectNoSeriousA11yViolations, screenshots, serviceCall } from "./support/helpers";

test.use({ storageState: authFile("analyst") });

type Row = Record<string, string | number | null>;
interface Status {
  upstream_report_calls: number;
  jobs_running: number;
  queue_length: number;
}

// The dashboard under test reports in UTC (e2e/support/env.ts): the last 90 full days end yesterday.
const today = () => new Date().toISOString().slice(0, 10);
const last90 = () => ({ start_date: addDays(today(), -90), end_date: addDays(today(), -1) });

/** BINs with the most attempts in the window, most first, straight from the service (every page). */
async function busiestBins(): Promise<string[]> {
  const all: Row[] = [];
  for (let offset = 0; ; offset += 1000) {
    const { data } = await serviceCall("/api/data", { ...last90(), group_by: ["bin"], metrics: ["attempts"], limit: 1000, offset });
    all.push(...data);
    if (data.length < 1000) break;
  }
  return all.sort((a, b) => Number(b.attempts) - Number(a.attempts)).map((r) => String(r.bin));
}

/** The service's own figures for one BIN: the same 90 days grouped by gateway_id, filtered by the BIN. */
async function direct(bin: string): Promise<Row[]> {
  const { data } = await serviceCall("/api/data", { ...last90(), group_by: ["gateway_id"], metrics: ["attempts", "approvals", "cb_count"], filters: { bin } });
  return data;
}

async function status(page: Page): Promise<Status> {
  return (await (await page.request.get("/api/upstream/status")).json()) as Status;
}

async function lookUp(page: Page, bin: string) {
  const form = page.getByRole("form", { name: "BIN lookup" });
  await form.getByLabel("BIN", { exact: true }).fill(bin);
  await form.getByRole("radio", { name: /^Preview/ }).check();
  await form.getByRole("button", { name: "Preview route" }).click();
}

/** The dashboard's evidence answer, asked again while it is pending (as the page does). */
async function evidenceApi(page: Page, bins: string[]): Promise<EvidenceDone> {
  let answer: EvidenceAnswer | undefined;
  await expect
    .poll(
      async () => {
        const res = await page.request.post("/api/bin-lookup/evidence", { data: { bins } });
        expect([200, 202]).toContain(res.status());
        answer = (await res.json()) as EvidenceAnswer;
        return answer.state;
      },
      { timeout: 60_000, intervals: [1_000, 2_000] },
    )
    .toBe("done");
  if (answer?.state !== "done") throw new Error("the evidence never finished");
  return answer;
}

const count = (v: string | number | null | undefined) => formatValue(Number(v ?? 0), "count");

test("the evidence for a BIN equals the service's figures for the same 90 days, by gateway, on its first 6 digits", async ({ page }) => {
  const bin = (await busiestBins())[0]!;
  const asked = `${bin}12`; // 8 digits: the reports know it by its first 6
  const want = await direct(bin);
  expect(want.length).toBeGreaterThan(0);

  // The API: per gateway, the same sums; the rates their ratios; the range the same days.
  const api = await evidenceApi(page, [asked]);
  expect(api.range).toMatchObject({ ...last90(), days: 90, time_zone: "UTC" });
  const [e] = api.bins;
  expect(e).toMatchObject({ bin: asked, report_bin: bin });
  const got = Object.fromEntries(e!.gateways.map((g) => [g.id, [g.attempts, g.approvals, g.cb_count]]));
  expect(got).toEqual(Object.fromEntries(want.map((r) => [String(r.gateway_id), [r.attempts, r.approvals, r.cb_count]])));
  for (const g of e!.gateways) {
    expect(g.approval_rate).toBe(g.attempts ? g.approvals / g.attempts : null);
    expect(g.cb_rate).toBe(g.approvals ? g.cb_count / g.approvals : null);
  }

  // The page: the same figures under the answer, each rate's numerator and denominator on hover.
  await page.goto("/bin-lookup");
  await lookUp(page, asked);
  const table = page.getByRole("region", { name: `Last 90 days for BIN ${asked} by gateway (scrollable)` });
  await expect(table).toBeVisible();
  await expect(page.getByTestId("bin-evidence")).toContainText(`Reports know BINs by their first 6 digits, so these figures are for ${bin}`);
  await expect(table.locator("caption")).toContainText(`${last90().start_date} to ${last90().end_date} (UTC)`);
  await expect(table.locator("tbody tr")).toHaveCount(want.length);
  for (const r of want) {
    const row = table.locator(`tbody tr[data-gateway-id="${r.gateway_id}"]`);
    const cells = row.locator("td");
    await expect(cells.nth(0)).toHaveText(count(r.attempts));
    await expect(cells.nth(1)).toHaveAttribute("title", `${count(r.approvals)} approvals ÷ ${count(r.attempts)} attempts`);
    await expect(cells.nth(1).locator("span").first()).toHaveText(formatValue(Number(r.attempts) ? Number(r.approvals) / Number(r.attempts) : null, "percent"));
    await expect(cells.nth(2)).toHaveAttribute("title", `${count(r.cb_count)} chargebacks ÷ ${count(r.approvals)} approvals`);
    await expect(cells.nth(2).locator("span").first()).toHaveText(formatValue(Number(r.approvals) ? Number(r.cb_count) / Number(r.approvals) : null, "percent"));
  }
  const total = want.reduce((n, r) => n + Number(r.attempts), 0);
  await expect(table.locator("tfoot td").first()).toHaveText(count(total));

  // The best gateway in words (or, plainly, why there is none), as the API chose it.
  await expect(page.getByTestId("best-gateway")).toHaveText(e!.best_reason.message);
  if (e!.best !== null) await expect(table.locator(`tbody tr[data-gateway-id="${e!.best}"]`)).toContainText(bestLabel(api.min_attempts));
  else await expect(table).not.toContainText(bestLabel(api.min_attempts));
  await expectNoSeriousA11yViolations(page);
  await screenshots(page, "bin-evidence-single");
});

test("a bulk lookup of several BINs costs one upstream report for all their evidence", async ({ page }) => {
  const bins = await busiestBins();
  const bulk = [`${bins[1]!}00`, bins[2]!, bins[3]!];
  // The service's window (10 s in e2e) is shared with the dashboard's client: let the direct calls
  // above leave it, so the dashboard is never told 429 (a retried call would count twice).
  const directDone = Date.now();

  // Warm up: a single lookup learns the gateways' names (the names report), so that the bulk
  // lookup's answers need no report of their own.
  await page.goto("/bin-lookup");
  await lookUp(page, bins[0]!);
  await expect(page.getByTestId("best-gateway")).toBeVisible({ timeout: 60_000 });
  await expect.poll(async () => {
    const s = await status(page);
    return s.jobs_running + s.queue_length;
  }, { timeout: 60_000 }).toBe(0);
  await page.waitForTimeout(Math.max(0, directDone + 11_000 - Date.now()));
  const before = (await status(page)).upstream_report_calls;

  await page.getByRole("tab", { name: /Bulk/ }).click();
  const form = page.getByRole("form", { name: "Bulk BIN lookup" });
  await form.getByLabel(/BINs \(up to 100\)/).fill(bulk.join("\n"));
  await form.getByRole("button", { name: "Preview 3 BINs" }).click();
  await expect(page.getByRole("status", { name: "Bulk lookup status" })).toContainText("3 looked up; nothing advanced.", { timeout: 60_000 });
  await expect(page.getByText("from one report for all 3 BINs")).toBeVisible({ timeout: 60_000 });
  await expect.poll(async () => (await status(page)).jobs_running, { timeout: 30_000 }).toBe(0);
  expect((await status(page)).upstream_report_calls - before).toBe(1);

  // Each BIN's details open under its row, with the same figures as the service's.
  const routes = page.getByRole("region", { name: "Routes (scrollable)" });
  await routes.getByRole("button", { name: `Details of the last 90 days for BIN ${bulk[1]}` }).click();
  const table = page.getByRole("region", { name: `Last 90 days for BIN ${bulk[1]} by gateway (scrollable)` });
  await expect(table).toBeVisible();
  const want = await direct(bulk[1]!);
  await expect(table.locator("tbody tr")).toHaveCount(want.length);
  for (const r of want) await expect(table.locator(`tbody tr[data-gateway-id="${r.gateway_id}"] td`).first()).toHaveText(count(r.attempts));
  await expectNoSeriousA11yViolations(page);
  await screenshots(page, "bin-evidence-bulk");
});
