/**
 * Waiting explained everywhere: a screen that waits for the reporting quota says where it stands in
 * the queue and when it should start, in Explore's words ("Position 3 in the queue; estimated start
 * about 8 s"). The quota is spent first, as e2e/status.spec.ts does (the e2e dashboard allows 5 calls
 * per 10 s), so the screen's own reports must wait.
 */
import { expect, test, type Page, type Route } from "./support/test";
import { addDays } from "../lib/contract/dates";
import { authFile, e2eEnv } from "./support/env";
import { screenshots, serviceCall } from "./support/helpers";

test.use({ storageState: authFile("analyst") });

/** Explore's words for a queued call: its place and its estimated start. */
const QUEUE_WORDS = /(Next in line|Position \d+ in the queue); estimated start (about \d+ (s|min)|any moment now)/;

const status = async (page: Page) => (await (await page.request.get("/api/upstream/status")).json()) as { calls_in_window: number; limit_per_window: number };

/**
 * Waits until no call is left in the dashboard's window, then spends all of it on distinct one-day
 * reports no other spec asks for. They are sent together, so the window fills at once rather than
 * over several seconds of a busy machine; one the page's own report pushed into the queue answers
 * 202 and counts when the gateway dispatches it, which the last check waits for.
 */
async function spendWindow(page: Page, daysBack: number) {
  await expect.poll(async () => (await status(page)).calls_in_window, { timeout: 30_000, intervals: [500] }).toBe(0);
  const { endDate } = e2eEnv();
  const { limit_per_window: limit } = await status(page);
  const answers = await Promise.all(
    Array.from({ length: limit }, (_, i) => {
      const day = addDays(endDate, -(daysBack + i));
      return page.request.post("/api/reports/order-summary?wait=10000", {
        data: { start_date: day, end_date: day, group_by: ["card_brand", "gateway_id"], metrics: ["approvals"] },
      });
    }),
  );
  // 202: the page's own reports took part of the window first, and this one waits too: spent all the same.
  for (const res of answers) expect([200, 202]).toContain(res.status());
  await expect.poll(async () => (await status(page)).calls_in_window, { timeout: 30_000, intervals: [250] }).toBe(limit);
}

/** Seconds in a wait's words ("about 8 s", "about 2 min", "any moment now"), from when the page last heard. */
const seconds = (m: RegExpExecArray) => (m[2] ? Number(m[2]) * (m[3] === "min" ? 60 : 1) : 0);
const WAIT = "(about (\\d+) (s|min)|any moment now)";

/** A single report's queued line: its place and its estimated start; null when it says neither. */
function placeIn(text: string): Reading | null {
  const m = new RegExp(`(?:Next in line|Position (\\d+) in the queue); estimated start ${WAIT}`).exec(text);
  if (!m) return null;
  return { position: m[1] ? Number(m[1]) : 1, seconds: m[3] ? Number(m[3]) * (m[4] === "min" ? 60 : 1) : 0 };
}

/** The drill-down's line: how many of its reports are in, and when all of them should be under way. */
function drillIn(text: string): Reading | null {
  const ready = /(\d+) of \d+ reports ready/.exec(text);
  const all = new RegExp(`all of them should be under way ${WAIT}`).exec(text);
  return ready && all ? { ready: Number(ready[1]), seconds: seconds(all) } : null;
}

interface Reading {
  /** Its place in the queue (1 = next in line). */
  position?: number;
  /** Reports in so far. */
  ready?: number;
  seconds: number;
}

/** Queues `n` more one-day reports no other spec asks for behind the spent window, without waiting for them. */
async function queueMore(page: Page, fromDaysBack: number, n: number) {
  const { endDate } = e2eEnv();
  for (let i = 0; i < n; i++) {
    const day = addDays(endDate, -(fromDaysBack + i));
    const res = await page.request.post("/api/reports/order-summary?wait=0", { data: { start_date: day, end_date: day, group_by: ["card_brand", "gateway_id"], metrics: ["approvals"] } });
    expect(res.status()).toBe(202);
  }
}

/**
 * Reads a waiting line at every look until `done`, and holds what it said to a wait that keeps
 * moving: its place in the queue never rises, the reports in never fall, and its estimate counts
 * down (the last one told is sooner than the first). Order and counts only: how long any of it
 * takes is not asserted. Each look reads what the page shows at that moment (allInnerTexts does not
 * wait): a line that went away between a count and innerText left innerText waiting for it, past
 * the poll's end, after the answer had arrived.
 */
async function watchQueue(what: string, read: (text: string) => Reading | null, line: () => Promise<string | null>, done: () => Promise<boolean>) {
  const told: Reading[] = [];
  await expect
    .poll(
      async () => {
        const text = await line();
        const r = text === null ? null : read(text);
        if (r && JSON.stringify(r) !== JSON.stringify(told.at(-1))) told.push(r);
        return done();
      },
      { timeout: 120_000, intervals: [250] },
    )
    .toBe(true);
  const words = told.map((t) => JSON.stringify(t)).join(", ");
  expect(told.length, `${what}: it said where it stood more than once (${words})`).toBeGreaterThan(1);
  const rose = (k: "position" | "ready", up: boolean) =>
    told.filter((t, i) => i > 0 && t[k] !== undefined && told[i - 1]![k] !== undefined && (up ? t[k]! < told[i - 1]![k]! : t[k]! > told[i - 1]![k]!));
  expect(rose("position", false), `${what}: places as told, in order: ${words}`).toEqual([]);
  expect(rose("ready", true), `${what}: reports in as told, in order: ${words}`).toEqual([]);
  expect(told.at(-1)!.seconds, `${what}: estimates as told, in order: ${words}`).toBeLessThan(told[0]!.seconds);
}

test("the Monitor's drill-down says where its reports wait in the queue and when they should start", async ({ page }) => {
  await page.goto("/monitor");
  const mids = page.getByRole("button", { name: /\(#\d+\)$/ });
  await expect(mids.first()).toBeVisible({ timeout: 90_000 });
  await spendWindow(page, 30);
  // Two windows' worth more in line, so the drill-down waits long enough to be seen moving.
  await queueMore(page, 100, 10);
  // A MID no other spec opens: the last one shown.
  await mids.last().click();
  const line = page.getByRole("status", { name: "Drill-down status" });
  await expect(line).toContainText("Queued.");
  await expect(line).toContainText(QUEUE_WORDS);
  await expect(line).toContainText(/\d of \d reports ready; all of them should be under way/);
  await screenshots(page, "drill-down-queued");
  // The wait ends by itself, moving all the way: the drill-down's tables arrive.
  const tables = page.getByRole("region", { name: /^Chargebacks by BIN/ });
  await watchQueue(
    "the drill-down",
    drillIn,
    async () => (await line.allInnerTexts())[0] ?? null,
    async () => (await tables.count()) > 0 && (await line.count()) === 0,
  );
  await expect(tables).toBeVisible();
});

test("Explore's request for which compared days hold data says where it waits, keeps moving, and ends in the coverage it brings", async ({ page }) => {
  // 20 days by BIN against the 20 before them, half of which lie before the data (150 days) begins,
  // under a filter no other spec asks of these days, so all three requests are fetched. (The day store
  // answers a filtered question from any finer one it keeps: e2e/read-at-a-glance.spec.ts compares
  // with these days by card brand, so a card-brand filter here would be answered without a wait.)
  const { endDate } = e2eEnv();
  const first = addDays(endDate, -149);
  const url = `/explore?op=orders&range=${addDays(first, 10)}..${addDays(first, 29)}&by=bin&cmp=prev&m=revenue,attempts&f.card_type=CREDIT`;
  await page.goto("/explore");
  await spendWindow(page, 70);
  await queueMore(page, 80, 10);
  await page.goto(url);
  const coverage = page.getByRole("status", { name: "Report status" }).filter({ hasText: "Compared days with data:" });
  await expect(coverage).toContainText(QUEUE_WORDS, { timeout: 30_000 });
  await screenshots(page, "explore-coverage-queued");
  await watchQueue(
    "the coverage request",
    placeIn,
    async () => (await coverage.allInnerTexts())[0] ?? null,
    async () => (await coverage.count()) === 0 && (await page.getByText("data on 10 of 20 days").count()) > 0,
  );
  // The answer: the comparison marked with the days it covers, and no verdict on it.
  await expect(page.getByText("data on 10 of 20 days").first()).toBeVisible();
});

test("a BIN's last 90 days say where their report waits in the queue and when it should start", async ({ page }) => {
  // The least busy BIN that has attempts: one no other spec looks up.
  const { data } = await serviceCall("/api/data", { start_date: addDays(e2eEnv().endDate, -89), end_date: e2eEnv().endDate, group_by: ["bin"], metrics: ["attempts"], limit: 1000 });
  const bin = String(data.filter((r) => Number(r.attempts) > 0).sort((a, b) => Number(a.attempts) - Number(b.attempts))[0]!.bin);
  await page.goto("/bin-lookup");
  await spendWindow(page, 40);
  // The lookup itself takes a few seconds (it names the gateways), more on a busy machine: two
  // windows' worth more, left waiting in the queue, keep the evidence's report behind them until the
  // page has shown it.
  const { endDate } = e2eEnv();
  for (let i = 0; i < 10; i++) {
    const day = addDays(endDate, -(50 + i));
    const res = await page.request.post("/api/reports/order-summary?wait=0", { data: { start_date: day, end_date: day, group_by: ["card_brand", "gateway_id"], metrics: ["approvals"] } });
    expect(res.status()).toBe(202);
  }
  const form = page.getByRole("form", { name: "BIN lookup" });
  await form.getByLabel("BIN", { exact: true }).fill(`${bin}34`);
  await form.getByRole("radio", { name: /^Preview/ }).check();
  await form.getByRole("button", { name: "Preview route" }).click();
  const line = page.getByRole("status", { name: "Last 90 days status" });
  await expect(line).toContainText("Queued.");
  await expect(line).toContainText(QUEUE_WORDS);
  await screenshots(page, "bin-evidence-queued");
  // The wait ends by itself: the line gives way to the figures.
  await expect(line).toHaveCount(0, { timeout: 60_000 });
  await expect(page.getByTestId("bin-evidence")).toContainText(`these figures are for ${bin}`);
});

test("a shared dashboard on a phone, switched through its presets, reaches each answer without a reload, its count of calls to go never rising", async ({ page, browser }) => {
  // Tiles no other spec asks for (by card type and by bank), so every preset's answers are fetched.
  const tiles = ["kpi.1|op=orders&range=last30&by=date&m=refund_amount|Refund amount", "table.2|op=orders&range=last30&by=card_type,bank&m=revenue,refund_amount&sort=-revenue|By card type and bank"];
  const params = `range=last30&${tiles.map((t) => `t=${encodeURIComponent(t)}`).join("&")}`;
  const saved = await page.request.post("/api/saved-reports", { data: { name: `Waiting on a phone ${Date.now()}`, page: "dashboard", params } });
  expect(saved.status()).toBe(201);
  const { report } = (await saved.json()) as { report: { id: string } };
  const chips = [
    { id: "lastmonth", label: "Last month" },
    { id: "lastquarter", label: "Last quarter" },
    { id: "last7", label: "Last 7 days" },
    // The preset people waited longest on: late in the year, more calls than one window of the quota.
    { id: "ytd", label: "Year to date" },
  ];
  const link = await page.request.post(`/api/saved-reports/${report.id}/links`, { data: { mode: "live", allowed_presets: chips.map((p) => p.id) } });
  expect(link.status()).toBe(201);
  const { url } = (await link.json()) as { url: string };

  const visitor = await browser.newContext({ storageState: { cookies: [], origins: [] }, viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const v = await visitor.newPage();
  let loads = 0;
  v.on("load", () => loads++);
  // The quota spent, so the first preset's queries must wait in the queue.
  await spendWindow(page, 60);
  await v.goto(url);
  // As shared first, then each preset in turn.
  const presets = [{ id: "shared", label: "As shared" }, ...chips];
  for (const [i, preset] of presets.entries()) {
    if (i > 0) {
      // Switched by its chip, as a visitor does: a navigation to the preset, never a reload.
      await v.getByRole("navigation", { name: "Date range" }).getByRole("link", { name: preset.label }).click();
      await expect(v.getByRole("navigation", { name: "Date range" }).getByRole("link", { name: preset.label })).toHaveAttribute("aria-current", "page");
      await v.waitForLoadState("load");
    }
    const loadsBefore = loads;
    const told: number[] = [];
    // Each look at the page: the count of calls it says are still to go, while it says one.
    await expect
      .poll(
        async () => {
          const togo = (await v.getByTestId("calls-to-go").allInnerTexts())[0];
          if (togo !== undefined) {
            const n = Number(togo.replace(/,/g, ""));
            if (Number.isFinite(n) && n > 0) told.push(n);
          }
          const statuses = await v.locator("article[data-status]").evaluateAll((as) => as.map((a) => a.getAttribute("data-status")));
          const waiting = await v.getByTestId("pending-refresh").count();
          return statuses.length === 2 && statuses.every((s) => s === "done") && waiting === 0;
        },
        { timeout: 180_000, intervals: [250] },
      )
      .toBe(true);
    // Nobody reloaded: the page asked the server again by itself (a refresh is not a page load).
    expect(loads, `${preset.id}: page loads while waiting`).toBe(loadsBefore);
    expect(told.filter((n, k) => k > 0 && n > told[k - 1]!), `${preset.id}: calls to go as told, in order: ${told.join(", ")}`).toEqual([]);
    if (i === 0) expect(told.length, "the first preset waited behind the spent window").toBeGreaterThan(0);
    await expect(v.getByRole("status").filter({ hasText: "stopped checking" })).toHaveCount(0);
  }
  await screenshots(v, "share-dashboard-phone-presets");
  await visitor.close();
});

test("a signed-in dashboard waiting behind the quota looks again by itself until every tile is in, each tile's place in line never rising", async ({ page }) => {
  // Tiles no other spec asks for (chargebacks by their own date on debit cards; refunds by their own
  // date by sales type and card type), so their queries are fetched, not answered from kept days.
  const tiles = [
    "kpi.1|op=orders&range=last30&by=date&m=cb_count_by_cb_date&f.card_type=DEBIT|Debit chargebacks",
    "table.2|op=orders&range=last30&by=sales_type,card_type&m=refund_count_by_refund_date&sort=-refund_count_by_refund_date|Refunds by sales type and card type",
  ];
  const params = `range=last30&${tiles.map((t) => `t=${encodeURIComponent(t)}`).join("&")}`;
  const saved = await page.request.post("/api/saved-reports", { data: { name: `Waiting signed in ${Date.now()}`, page: "dashboard", params } });
  expect(saved.status(), await saved.text()).toBe(201);
  const { report } = (await saved.json()) as { report: { id: string } };
  await spendWindow(page, 130);
  // Two windows' worth more in line, so the tiles wait long enough to be seen moving.
  await queueMore(page, 140, 10);
  await page.goto(`/dashboards/${report.id}`);
  let loads = 0;
  page.on("load", () => loads++);
  // Each look at the page: every waiting tile's place in line, by tile.
  const told = new Map<string, number[]>();
  await expect
    .poll(
      async () => {
        const waiting = await page.locator("article[data-status=pending]").evaluateAll((as) => as.map((a) => [a.getAttribute("data-tile") ?? "", a.textContent ?? ""] as const));
        for (const [tile, text] of waiting) {
          const m = /Waiting for query \d+: (?:Next in line|Position (\d+) in the queue)/.exec(text);
          if (!m) continue;
          const place = m[1] ? Number(m[1]) : 1;
          const places = told.get(tile) ?? [];
          if (places.at(-1) !== place) places.push(place);
          told.set(tile, places);
        }
        const statuses = await page.locator("article[data-status]").evaluateAll((as) => as.map((a) => a.getAttribute("data-status")));
        return statuses.length === 2 && statuses.every((s) => s === "done");
      },
      { timeout: 180_000, intervals: [250] },
    )
    .toBe(true);
  const words = [...told].map(([tile, places]) => `tile ${tile}: ${places.join(", ")}`).join("; ");
  // Nobody reloaded: the page asked the server again by itself.
  expect(loads, "page loads while waiting").toBe(0);
  expect([...told.values()].some((places) => places.length > 1), `it said where a tile stood more than once (${words})`).toBe(true);
  for (const [tile, places] of told) expect(places.filter((p, k) => k > 0 && p > places[k - 1]!), `tile ${tile}'s places as told, in order: ${words}`).toEqual([]);
});

test("a shared page whose looks get no answer says it stopped checking, and Check again brings the answer", async ({ page, browser }) => {
  const tile = "table.2|op=orders&range=last30&by=card_type,gateway_alias&m=refund_amount&sort=-refund_amount|Refunds by card type and gateway";
  const saved = await page.request.post("/api/saved-reports", { data: { name: `Stalled looks ${Date.now()}`, page: "dashboard", params: `range=last30&t=${encodeURIComponent(tile)}` } });
  expect(saved.status()).toBe(201);
  const { report } = (await saved.json()) as { report: { id: string } };
  const link = await page.request.post(`/api/saved-reports/${report.id}/links`, { data: { mode: "live" } });
  expect(link.status()).toBe(201);
  const { url } = (await link.json()) as { url: string };

  const visitor = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const v = await visitor.newPage();
  // The page's clock runs as usual, and is moved on past the waits below instead of waiting them.
  await v.clock.install();
  // The server's answers to the page's looks (not the page itself) never come back, as when the
  // browser gives up on them.
  const held: Route[] = [];
  const sharePage = (u: URL) => u.pathname === new URL(url, e2eEnv().dashboardUrl).pathname;
  await v.route(sharePage, async (r) => (r.request().headers()["rsc"] ? void held.push(r) : r.continue()));
  await spendWindow(page, 120);
  await v.goto(url);
  const banner = v.getByTestId("pending-refresh");
  await expect(banner).toContainText(/checking again in \d+ s/);

  // The first look when the page's count ends, then each look that does not land asked again after
  // 20 s; once the fourth has had its 20 s too, the page says it stopped, and asks no fifth.
  const first = Number(/checking again in (\d+) s/.exec(await banner.innerText())![1]);
  for (const [i, wait] of [first + 1, 21, 21, 21].entries()) {
    await expect(banner.getByRole("button", { name: "Check again" }), `stopped after ${i} looks`).toHaveCount(0);
    await v.clock.runFor(wait * 1_000);
    await expect.poll(() => held.length, { message: `look ${i + 1} went out` }).toBe(i + 1);
  }
  // The fourth look gets its 20 s too before the page gives up.
  await expect(banner.getByRole("button", { name: "Check again" }), "stopped as the fourth look went out").toHaveCount(0);
  await v.clock.runFor(21_000);
  await expect(banner).toContainText("This page stopped checking: the dashboard did not answer its last 4 looks.");
  expect(held).toHaveLength(4);

  // The server answers again (the looks it lost stay lost): one press looks, and the page keeps
  // looking until the answer is drawn.
  await v.unroute(sharePage);
  await banner.getByRole("button", { name: "Check again" }).click();
  await expect(v.locator("article[data-status]")).toHaveAttribute("data-status", "done", { timeout: 120_000 });
  await expect(banner).toHaveCount(0);
  await visitor.close();
});
