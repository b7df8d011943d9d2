/**
 * The day store (./day-store.ts) under the gateway, against the real service and a real PGlite
 * store (and PostgreSQL, two instances, where it is installed): a settled day is fetched once,
 * across restarts; a longer range costs only its new days; a coarser question is derived from kept
 * days; recent days are asked again on their schedule and a day the totals check finds moved is
 * fetched again; the store keeps within its bound. Time is the store's injected clock.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays, type Operation, type ReportRecord } from "@/lib/contract";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { fromJson, type Store } from "@/lib/core/store/sql";
import { openTestPostgresStores, postgresBinDir } from "@/lib/core/store/testing/postgres";
import { reportCalls, startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { shapeKey } from "./day-shape";
import { DayStore, type DayStoreConfig } from "./day-store";
import { checkKeptDaysWhenIdle } from "./kept-days-check";
import { rebuildDerived } from "@/service/data/derived";
import { BACKGROUND_OWNER, type JobResult, type ReportGateway } from "./gateway";
import { PgCache } from "./pg-cache";
import { aggregate } from "./records";
import { pgSharedState } from "./pg-shared";

const END = "2025-07-31";
const NOON = Date.parse(`${END}T12:00:00Z`);
const HOUR = 3_600_000;
const CONFIG: DayStoreConfig = { timeZone: "UTC", ttlTodaySeconds: 300, ttlPastSeconds: 86_400, maxBytes: 64 * 1024 * 1024 };

async function ask(g: ReportGateway, op: Operation, body: unknown): Promise<JobResult> {
  const out = g.submit(op, g.parse(op, body), "analyst");
  return "cached" in out ? out.cached : g.wait(out.job.id);
}

function suite(name: string, open: () => Promise<{ stores: [Store, Store]; close(): Promise<void> }>, shared: "pglite" | "postgres") {
  describe(name, () => {
    let svc: TestService;
    let stores: [Store, Store];
    let close: () => Promise<void>;
    let now = NOON;
    const clock = () => now;
    /** A dashboard process: a gateway of its own (empty memory cache, its own token) on one of the two connections. */
    const instance = (i: 0 | 1, config: Partial<DayStoreConfig> = {}) => {
      const days = new DayStore(stores[i], { ...CONFIG, ...config }, clock);
      const base = { reportRateLimit: 1000, rateWindowSeconds: 60 };
      // As lib/core/upstream/index.ts wires a process: whole answers kept in the store beside the days.
      return gatewayFor(svc, base, { ...(shared === "postgres" ? pgSharedState(stores[i], base, `instance-${i}`) : { cache: new PgCache({ db: stores[i], maxBytes: 64 * 1024 * 1024 }) }), days });
    };
    /** The service's own answer, through a gateway that keeps nothing. */
    const truth = (op: Operation, body: unknown) => ask(gatewayFor(svc), op, body).then((r) => r.data);

    beforeAll(async () => {
      svc = await startTestService({ data: { days: 150, ordersPerDay: 12, seed: 21, endDate: END }, env: { REPORT_RATE_LIMIT: "100000", TOKEN_RATE_LIMIT: "100000", TOKEN_ADDRESS_RATE_LIMIT: "100000" } });
      ({ stores, close } = await open());
    });
    afterAll(async () => {
      await close?.();
      await svc?.stop();
    });

    const last30 = { start_date: addDays(END, -29), end_date: END, group_by: ["date"], metrics: ["attempts", "revenue"] };

    it("fetches a range once: a restarted instance, and the other instance, answer it with no call, to the cent", async () => {
      now = NOON;
      const expected = await truth("orders", last30);
      svc.logLines.length = 0;
      const first = await ask(instance(0), "orders", last30);
      expect(reportCalls(svc), "the first look fetches the range in one call").toBe(1);
      expect(first.data).toEqual(expected);
      expect(first.days).toEqual({ kept: 0, fetched: 30 });

      svc.logLines.length = 0;
      for (const i of [0, 1] as const) {
        const again = await ask(instance(i), "orders", last30);
        expect(again.data, `instance ${i} after a restart`).toEqual(expected);
        expect(again.upstream_calls).toBe(0);
        expect(again.source).toBe("cache");
        expect(again.days).toEqual({ kept: 30, fetched: 0 });
      }
      expect(reportCalls(svc), "a second look at kept days costs no call").toBe(0);
      // Asked again of the same process, from its memory: as old as its oldest day, as it first said.
      const g = instance(0);
      const kept = await ask(g, "orders", last30);
      const repeat = await ask(g, "orders", last30);
      expect(kept.fetched_at).toBe(first.fetched_at);
      expect(repeat.fetched_at).toBe(kept.fetched_at);
    });

    it("keeps a question it cannot keep by day whole, so a restarted instance answers it with no call too", async () => {
      now = NOON;
      const byBin = { start_date: addDays(END, -29), end_date: addDays(END, -1), group_by: ["bin"], metrics: ["revenue"] };
      svc.logLines.length = 0;
      const first = await ask(instance(0), "orders", byBin);
      expect(first.days).toBeUndefined();
      const again = await ask(instance(1), "orders", byBin);
      expect(reportCalls(svc)).toBe(1);
      expect(again.data).toEqual(first.data);
    });

    it("answers a coarser question from kept days, and a longer range with a call for its new days only", async () => {
      now = NOON;
      const totals = { start_date: addDays(END, -20), end_date: END, group_by: [], metrics: ["revenue"] };
      svc.logLines.length = 0;
      const derived = await ask(instance(1), "orders", totals);
      expect(reportCalls(svc)).toBe(0);
      const longer = { ...last30, start_date: addDays(END, -59) };
      const wider = await ask(instance(1), "orders", longer);
      expect(reportCalls(svc), "only the 30 days not kept are asked").toBe(1);
      expect(wider.days).toEqual({ kept: 30, fetched: 30 });
      expect(derived.data).toEqual(await truth("orders", totals));
      expect(wider.data).toEqual(await truth("orders", longer));
    });

    it("asks today again after minutes and a recent day the next day, never a settled one", async () => {
      now = NOON + 10 * 60_000; // today's day, fetched at noon, is no longer current
      svc.logLines.length = 0;
      const later = await ask(instance(0), "orders", last30);
      expect(reportCalls(svc)).toBe(1);
      expect(later.days).toEqual({ kept: 29, fetched: 1 });

      // The next day: its new day, the day before (fetched before it ended) and the one before that
      // (fetched while recent, a day ago) are asked, in one call; the settled days are not.
      now = NOON + 24 * HOUR;
      const next = { ...last30, start_date: addDays(END, -28), end_date: addDays(END, 1) };
      svc.logLines.length = 0;
      const tomorrow = await ask(instance(1), "orders", next);
      expect(reportCalls(svc)).toBe(1);
      expect(tomorrow.days).toEqual({ kept: 27, fetched: 3 });
      expect(tomorrow.data).toEqual(await truth("orders", next));
    });

    it("shows a recent day changed upstream once it is asked again, and a settled one after the totals check finds it", async () => {
      now = NOON + 24 * HOUR;
      const g = instance(0);
      await ask(g, "orders", last30); // every day of the range kept
      // Changes at the upstream, in the service's own data: a settled and a recent day's first
      // approved attempt is a dollar more (a late correction, a re-sent settlement).
      const settled = addDays(END, -10);
      const recent = END;
      await svc.db.transaction(async (tx) => {
        for (const day of [settled, recent]) {
          await tx.run(
            `UPDATE attempts SET amount_cents = amount_cents + 100
              WHERE attempt_id = (SELECT min(attempt_id) FROM attempts WHERE attempt_date = $1::DATE AND approved)`,
            [day],
          );
        }
        await rebuildDerived(tx);
      });
      const expected = await truth("orders", last30);
      const before = await ask(g, "orders", last30);
      expect(before.data).not.toEqual(expected); // kept days are what is shown until they are found to differ

      now += 25 * HOUR; // the recent day is asked again; the settled one is still kept
      svc.logLines.length = 0;
      const afterRecent = await ask(instance(0), "orders", last30);
      expect(afterRecent.data.find((r) => r.date === recent)).toEqual(expected.find((r) => r.date === recent));
      expect(afterRecent.data.find((r) => r.date === settled)).not.toEqual(expected.find((r) => r.date === settled));

      svc.logLines.length = 0;
      // The hourly look: nothing while another check is under way, nor while a person's call waits
      // for the quota (a gateway whose window one running call fills, a second queued behind it)…
      expect(await checkKeptDaysWhenIdle(g, 24 * HOUR, { checking: true }, now)).toBeNull();
      const full = gatewayFor(svc, { reportRateLimit: 1, rateWindowSeconds: 60 }, { days: new DayStore(stores[0], CONFIG, clock) });
      const waiting = ["bin", "card_type"].map((d) => full.submit("orders", full.parse("orders", { start_date: addDays(END, -3), end_date: END, group_by: [d], metrics: ["attempts"] }), "analyst"));
      expect(full.queue.status().queueLength, "a person's call waits").toBeGreaterThan(0);
      expect(await checkKeptDaysWhenIdle(full, 24 * HOUR, { checking: false }, now)).toBeNull();
      // The queued call is let go; the running one is let finish, so its call lands before the count.
      const [running, queued] = waiting.map((w) => ("job" in w ? w.job.id : null));
      if (queued) full.cancel(queued);
      if (running) await full.wait(running);
      expect(reportCalls(svc), "only the person's running call reached the service").toBe(1);
      svc.logLines.length = 0;
      // …then the check.
      const check = (await checkKeptDaysWhenIdle(g, 24 * HOUR, { checking: false }, now))!;
      expect(check.moved, "the check finds the one settled day that moved").toBe(1);
      expect(reportCalls(svc)).toBe(check.calls);
      const healed = await ask(instance(1), "orders", last30);
      expect(healed.data).toEqual(expected);
      expect(healed.days?.fetched).toBe(1);
      // A second check soon after looks at nothing (each shape is checked once per interval).
      expect((await g.days!.checkKeptDays({ usedSince: 0, everyMs: 24 * HOUR })).shapes).toBe(0);
    });

    it("finds a settled day's records moved between a breakdown's rows, its totals unchanged, and fetches the checked days again", async () => {
      now = NOON + 3 * 24 * HOUR; // after every shape earlier tests kept, so the check looks at this one alone
      const bySalesType = { start_date: addDays(END, -20), end_date: addDays(END, -5), group_by: ["date", "sales_type"], metrics: ["revenue", "attempts"] };
      const g = instance(0);
      await ask(g, "orders", bySalesType);
      // At the upstream, a settled day's first approved attempt is put under another sales type: the
      // day's totals stay what they were, two of its rows change.
      const day = addDays(END, -12);
      await svc.db.transaction(async (tx) => {
        await tx.run(
          `UPDATE attempts SET sales_type = CASE WHEN sales_type = 'Initials' THEN 'Rebills' ELSE 'Initials' END
            WHERE attempt_id = (SELECT min(attempt_id) FROM attempts WHERE attempt_date = $1::DATE AND approved)`,
          [day],
        );
        await rebuildDerived(tx);
      });
      const expected = await truth("orders", bySalesType);
      const before = await ask(instance(1), "orders", bySalesType);
      expect(before.data, "kept days are shown until they are found to differ").not.toEqual(expected);
      expect(aggregate(before.data, ["date"], ["revenue", "attempts"]), "the days' totals did not move").toEqual(aggregate(expected, ["date"], ["revenue", "attempts"]));

      svc.logLines.length = 0;
      const check = await g.days!.checkKeptDays({ usedSince: now, everyMs: 24 * HOUR });
      expect(check.shapes).toBe(1);
      expect(check.calls, "the daily totals, then the rows' totals").toBe(2);
      expect(reportCalls(svc)).toBe(2);
      expect(check.moved, "every checked day: the rows' totals cannot say which day moved").toBe(16);
      const healed = await ask(instance(1), "orders", bySalesType);
      expect(healed.data).toEqual(expected);
      expect(healed.days).toEqual({ kept: 0, fetched: 16 });

      // Checked again with nothing moved: both comparisons agree, nothing is forgotten.
      now += 25 * HOUR;
      const again = await g.days!.checkKeptDays({ usedSince: now - 26 * HOUR, everyMs: 24 * HOUR });
      expect(again).toMatchObject({ moved: 0 });
    });

    it("keeps a year to date: a restarted or other instance asks it with no call, and the next day with one call a question, to the cent", async () => {
      // A year-to-date dashboard's two questions (its KPIs and trend, its sales types by month), 242
      // days each: three pieces of at most 100 days.
      now = NOON + 30 * 24 * HOUR;
      const ytd = (today: string) => [
        { start_date: "2025-01-01", end_date: today, group_by: ["date"], metrics: ["revenue", "attempts"] },
        { start_date: "2025-01-01", end_date: today, group_by: ["date", "sales_type"], metrics: ["revenue"] },
      ];
      const open = async (i: 0 | 1, today: string) => {
        svc.logLines.length = 0;
        const g = instance(i);
        const answers = [];
        for (const q of ytd(today)) answers.push(await ask(g, "orders", q));
        return { calls: reportCalls(svc), data: answers.map((a) => a.data) };
      };
      const today = addDays(END, 30);
      const cold = await open(0, today);
      expect(cold.calls, "cold: three pieces a question").toBe(6);
      for (const i of [1, 0] as const) {
        const again = await open(i, today);
        expect(again.calls, `instance ${i}, a new process the same day`).toBe(0);
        expect(again.data).toEqual(cold.data);
      }
      now += 24 * HOUR;
      const tomorrow = addDays(today, 1);
      const next = await open(1, tomorrow);
      expect(next.calls, "the next day: the new day and the unsettled ones, one call a question").toBe(2);
      const truths = [];
      for (const q of ytd(tomorrow)) truths.push(await truth("orders", q));
      expect(next.data).toEqual(truths);
    });

    it("at the contract's 5 calls a minute: a year to date asked again after a restart and on the other instance costs no call, the next day one, each as planned", async () => {
      // A service of its own on the same data, allowing each client the contract's 5 report calls a
      // minute, and gateways that hold to the same. Totals by date of the year to date (212 days, three
      // pieces), a question no other test here keeps: 3 + 0 + 0 + 1 calls, inside one window.
      const contract = await startTestService({
        data: { days: 150, ordersPerDay: 12, seed: 21, endDate: END },
        env: { REPORT_RATE_LIMIT: "5", RATE_LIMIT_WINDOW_SECONDS: "60", TOKEN_RATE_LIMIT: "100000", TOKEN_ADDRESS_RATE_LIMIT: "100000" },
      });
      try {
        const quota = { reportRateLimit: 5, rateWindowSeconds: 60 };
        // The shared window counts every instance's calls on this database, the earlier tests' too.
        if (shared === "postgres") await stores[0].exec("DELETE FROM upstream_calls");
        const at = (i: 0 | 1) =>
          gatewayFor(contract, quota, {
            ...(shared === "postgres" ? pgSharedState(stores[i], quota, `contract-${i}`) : { cache: new PgCache({ db: stores[i], maxBytes: 64 * 1024 * 1024 }) }),
            days: new DayStore(stores[i], CONFIG, clock),
          });
        const ytd = (today: string) => ({ start_date: "2025-01-01", end_date: today, group_by: ["date"], metrics: ["initial_approved", "rebills_approved"] });
        const open = async (i: 0 | 1, today: string) => {
          const g = at(i);
          const q = g.parse("orders", ytd(today));
          const planned = (await g.piecesToFetch("orders", q))!.reduce((n, p) => n + (p.calls ?? 1), 0);
          contract.logLines.length = 0;
          const answer = await ask(g, "orders", q);
          return { planned, calls: reportCalls(contract), data: answer.data };
        };
        now = NOON;
        const cold = await open(0, END);
        expect(cold, "cold: three pieces, as planned").toMatchObject({ planned: 3, calls: 3 });
        for (const i of [0, 1] as const) {
          const again = await open(i, END);
          expect(again, `instance ${i}, a new process the same day`).toMatchObject({ planned: 0, calls: 0 });
          expect(again.data).toEqual(cold.data);
        }
        now += 24 * HOUR;
        const tomorrow = addDays(END, 1);
        const next = await open(1, tomorrow);
        expect(next, "the next day: the new day and the unsettled ones, in one call, as planned").toMatchObject({ planned: 1, calls: 1 });
        // The service's own answer, through a client of its own (its window is its own).
        const other = await contract.newClient("truth");
        const truth = gatewayFor(contract, { ...quota, clientId: other.client_id, clientSecret: other.client_secret });
        expect(next.data).toEqual((await ask(truth, "orders", ytd(tomorrow))).data);
      } finally {
        await contract.stop();
      }
    });

    it("names what was used recently for the background to keep current: the next morning's look costs no call", async () => {
      now = NOON + 100 * 24 * HOUR;
      const today = addDays(END, 100);
      const look = (day: string) => ({ start_date: addDays(day, -9), end_date: day, group_by: ["date"], metrics: ["initial_attempt"] });
      svc.logLines.length = 0;
      await ask(instance(0), "orders", look(today));
      now += 24 * HOUR;
      const tomorrow = addDays(today, 1);
      const g = instance(1);
      const warm = await g.days!.recentShapeQueries(0);
      // Only the shape looked at lately, over the days fetched before they settled and the new one.
      expect(warm.map((w) => [w.query.start_date, w.query.end_date, w.query.metrics])).toEqual([[addDays(today, -1), tomorrow, ["initial_attempt"]]]);
      const out = g.submit(warm[0]!.op, warm[0]!.query, BACKGROUND_OWNER);
      if ("job" in out) await g.wait(out.job.id);
      expect(reportCalls(svc)).toBe(2);
      const morning = await ask(instance(0), "orders", look(tomorrow));
      expect(morning.upstream_calls).toBe(0);
      expect(reportCalls(svc)).toBe(2);
    });

    it("keeps cohorts per initial day until they are a year old, asked again daily", async () => {
      now = NOON;
      const q = { start_date: addDays(END, -40), end_date: addDays(END, -10), group_by: ["date", "billing_cycle"], metrics: ["revenue_by_initial_date", "approvals_by_initial_date"] };
      svc.logLines.length = 0;
      const first = await ask(instance(0), "cohort", q);
      const again = await ask(instance(1), "cohort", q);
      expect(reportCalls(svc)).toBe(1);
      expect(again.data).toEqual(first.data);
      now = NOON + 25 * HOUR;
      await ask(instance(0), "cohort", q);
      expect(reportCalls(svc), "a maturing cohort day is asked again the next day").toBe(2);
    });

    it("keeps within its bound, least recently used days out first", async () => {
      now = NOON + 300 * 24 * HOUR;
      const a = { start_date: "2025-04-01", end_date: "2025-04-30", group_by: ["date", "card_type"], metrics: ["attempts"] };
      const b = { ...a, group_by: ["date", "card_brand"] };
      const c = { start_date: "2025-04-01", end_date: "2025-04-01", group_by: ["date"], metrics: ["approvals"] };
      const bytesOf = async (dim: string) =>
        Number(
          (
            await stores[0].query<{ b: string | number }>(
              "SELECT coalesce(sum(d.bytes), 0) AS b FROM report_shapes s JOIN report_days d ON d.shape_key = s.key WHERE s.shape::text LIKE $1",
              [`%${dim}%`],
            )
          )[0]!.b,
        );
      const daysOf = async (dim: string) =>
        Number((await stores[0].query<{ n: string | number }>("SELECT count(*) AS n FROM report_shapes s JOIN report_days d ON d.shape_key = s.key WHERE s.shape::text LIKE $1", [`%${dim}%`]))[0]!.n);
      await ask(instance(0), "orders", a);
      now += 1000;
      await ask(instance(0), "orders", b);
      now += 1000;
      // Room for b's days, half of a's and a little for c's one day: everything older goes, then half of a.
      const bound = (await bytesOf("card_brand")) + Math.floor((await bytesOf("card_type")) / 2) + 200;
      await ask(instance(0, { maxBytes: bound }), "orders", c);
      const stats = await new DayStore(stores[0], CONFIG, clock).stats();
      expect(stats.bytes).toBeLessThanOrEqual(bound);
      expect(await daysOf("card_brand"), "the more recently used shape is kept whole").toBe(30);
      const aDays = await daysOf("card_type");
      expect(aDays, "the older shape loses days, not all of them").toBeGreaterThan(0);
      expect(aDays).toBeLessThan(30);
      expect(stats.shapes, "every earlier shape went first").toBe(3);
    });
  });
}

suite(
  "the day store on PGlite (one process, restarted)",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "day-store-"));
    const store = await openTestPglite(dir, "day store test");
    return {
      stores: [store, store],
      close: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  "pglite",
);

const pgAvailable = process.env.TEST_DATABASE_URL !== undefined || postgresBinDir() !== null;
if (!pgAvailable) console.warn("lib/core/upstream/day-store.test.ts: no PostgreSQL server installed (apt-get install postgresql); its PostgreSQL suite skipped");
if (pgAvailable) {
  suite(
    "the day store on PostgreSQL (two instances)",
    async () => {
      const { stores, close } = await openTestPostgresStores(["a", "b"]);
      await stores[0]!.exec("DELETE FROM report_shapes");
      return { stores: [stores[0]!, stores[1]!], close };
    },
    "postgres",
  );
}

describe.skipIf(!pgAvailable)("kept days written at once by two instances on PostgreSQL, while a third evicts", () => {
  let stores: Store[] = [];
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ stores, close } = await openTestPostgresStores(["a", "b", "evictor"]));
    await stores[0]!.exec("DELETE FROM report_shapes");
  });
  afterAll(async () => {
    await close?.();
  });

  it("loses no day and keeps none twice: each day once, as the newest write of it has it", async () => {
    const SHAPES = 24;
    const later = NOON + 86_400_000;
    // The writers' days are the most recently used, so the evictor's bound takes only its own.
    const writer = (i: number) => new DayStore(stores[i]!, { ...CONFIG, maxBytes: 1024 * 1024 * 1024 }, () => later);
    const [a, b] = [writer(0), writer(1)];
    // A day counts its records as JSON and 64 bytes for its row, as the store counts it.
    // Its bound is a little over the writers' days: past them, its own go, and their shapes with them.
    const writersBytes = SHAPES * 40 * (JSON.stringify([{ date: "2025-05-01", attempts: 1 }]).length + 64);
    const evictor = new DayStore(stores[2]!, { ...CONFIG, maxBytes: writersBytes + 4_000 }, () => NOON);
    const shape = (i: number) => ({ group_by: ["date"], metrics: ["attempts"], filters: { gateway_id: [i + 1] } });
    const records = (start: string, end: string, tag: number) => {
      const out: ReportRecord[] = [];
      for (let d = start; d <= end; d = addDays(d, 1)) out.push({ date: d, attempts: tag });
      return out;
    };
    // Each shape: instance a writes days 1–30 (fetched at t), b days 11–40 (fetched at t + 1), at once.
    const writes = Array.from({ length: SHAPES }, (_, i) => [
      { store: a, start: "2025-05-01", end: "2025-05-30", fetchedAt: NOON + i * 10, tag: 1 },
      { store: b, start: "2025-05-11", end: "2025-06-09", fetchedAt: NOON + i * 10 + 1, tag: 2 },
    ]).flatMap((pair, i) => pair.map((w) => ({ ...w, i })));
    let churning = true;
    const churn = (async () => {
      // Shapes of its own, each soon evicted whole (and the shape with it), while the others write.
      let n = 0;
      for (; churning || n < 10; n++) {
        // Bulky days (50 records each), so that a few of its writes pass the bound.
        const bulky = records("2025-01-01", "2025-01-10", 9).flatMap((r) => Array.from({ length: 50 }, (_, k) => ({ ...r, card_brand: `brand-${k}` })));
        await evictor.write("orders", { group_by: ["date", "card_brand"], metrics: ["revenue"], filters: { gateway_id: [1000 + n] } }, "2025-01-01", "2025-01-10", bulky, NOON);
      }
      return n;
    })();
    // Four rounds, each newer than the last, every write of a round at once.
    const ROUNDS = 4;
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(writes.map((w) => w.store.write("orders", shape(w.i), w.start, w.end, records(w.start, w.end, w.tag), w.fetchedAt + round * 1000)));
    }
    churning = false;
    const churnWrites = await churn;

    for (let i = 0; i < SHAPES; i++) {
      const rows = await stores[0]!.query<{ day: string; n: number; records: unknown; fetched_at: Date }>(
        `SELECT day, count(*) OVER (PARTITION BY day)::int AS n, records, fetched_at FROM report_days WHERE shape_key = $1 ORDER BY day`,
        [shapeKey("orders", shape(i))],
      );
      expect(rows.map((r) => r.day), `shape ${i}: every day once`).toEqual(Array.from({ length: 40 }, (_, k) => addDays("2025-05-01", k)));
      expect(rows.every((r) => r.n === 1)).toBe(true);
      for (const r of rows) {
        const newest = r.day >= "2025-05-11" ? 2 : 1;
        expect(fromJson<ReportRecord[]>(r.records), `shape ${i}, ${r.day}`).toEqual([{ date: r.day, attempts: newest }]);
        expect(new Date(r.fetched_at).getTime()).toBe(NOON + (ROUNDS - 1) * 1000 + i * 10 + (newest === 2 ? 1 : 0));
      }
    }
    // The evictor did evict (and drop shapes) meanwhile: the race was run, not avoided.
    const kept = await stores[0]!.query<{ n: number }>("SELECT count(*)::int AS n FROM report_shapes WHERE (shape->'filters'->'gateway_id'->>0)::int >= 1000");
    expect(kept[0]!.n).toBeLessThan(churnWrites);
  });
});
