import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALERT_TYPES, CARD_BRANDS, CARD_TYPES, REFUND_TYPES, SALES_TYPES } from "../../lib/contract/catalog";
import { addDays, toEpochDay } from "../../lib/contract/dates";
import { Database, type Row } from "../db";
import { generate, type GenerateOptions, type GenerateSummary } from "./generator";
import { MAX_BUFFERS_IN_FLIGHT, simulateInWorker } from "./generator/simulation-worker";
import { createService } from "../app";
import { loadServiceConfig } from "../config";
import { jsonLogger } from "../http/log";
import { TEST_TOKEN_SECRET } from "../testing/harness";
import { GRAINS, ROLLUPS } from "../reports/grain";
import { dataVersion, EVENT_FACT_TABLES, hasDerived } from "./derived";
import { CAMPAIGN_TYPES } from "./reference-data";
import { migrate } from "./schema";

// Small enough to run in seconds, big enough for the statistical checks (about 9k customers and
// 20k attempts over 150 days, so subscribers reach cycle 4 and chargebacks their full lag).
const OPTS: GenerateOptions = { days: 150, ordersPerDay: 60, seed: 42, endDate: "2025-06-30" };
const START = addDays(OPTS.endDate, -(OPTS.days - 1));
// For the tests that compare a second way of generating (on a worker, stopped part way and rebuilt
// by the service) with the first, row for row: what they check does not depend on the data's size,
// and 40 days (about 5 k attempts, every derived table with rows) make each comparison read and
// compare a quarter of the rows OPTS would.
const SMALL_OPTS: GenerateOptions = { ...OPTS, days: 40 };

/** Each table with the key that orders it. */
const TABLES = {
  gateways: "gateway_id",
  campaigns: "campaign_id",
  products: "product_id",
  bins: "bin",
  customers: "customer_id",
  attempts: "attempt_id",
  refunds: "refund_id",
  chargebacks: "chargeback_id",
  alerts: "alert_id",
  dataset_info: "key",
} as const;
type Table = keyof typeof TABLES;
const REFERENCE_TABLES: readonly Table[] = ["gateways", "campaigns", "products", "bins"];
const FACT_TABLES: readonly Table[] = ["customers", "attempts", "refunds", "chargebacks", "alerts"];

let dir: string;
let a: Database;
let b: Database;
let c: Database;
let summary: GenerateSummary;
/** SMALL_OPTS generated on this thread, in one go. */
let small: Database;
let smallSummary: GenerateSummary;

async function fresh(name: string): Promise<Database> {
  const db = await Database.open(join(dir, name));
  await migrate(db);
  return db;
}

/** Row count and an MD5 over every row, in key order. */
async function fingerprint(db: Database, table: Table): Promise<{ n: number; h: string }> {
  const rows = await db.all<{ n: number; h: string }>(
    // The data version is a fresh stamp of each load (checked below), not content.
    `SELECT count(*)::INTEGER AS n, md5(coalesce(string_agg(t::VARCHAR, '\n' ORDER BY ${TABLES[table]}), '')) AS h FROM ${table} t` +
      (table === "dataset_info" ? " WHERE key <> 'data_version'" : ""),
  );
  const row = rows[0];
  if (!row) throw new Error("no fingerprint row");
  return row;
}

async function one<T extends Row>(db: Database, sql: string): Promise<T> {
  const row = (await db.all<T>(sql))[0];
  if (!row) throw new Error(`no row from: ${sql}`);
  return row;
}

async function count(db: Database, sql: string): Promise<number> {
  return Number((await one<{ n: number | string }>(db, `SELECT count(*) AS n FROM (${sql})`)).n);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "generator-test-"));
  // `a` is generated twice, with an API client in place, to check that generation replaces data
  // (and leaves clients alone) rather than adding to it.
  a = await fresh("a.duckdb");
  await a.run("INSERT INTO api_clients (client_id, name, secret_salt, secret_hash) VALUES ('keep-me', 'Keep', 's', 'h')");
  await generate(a, { ...OPTS, seed: 7, days: 40 });
  summary = await generate(a, OPTS);
  b = await fresh("b.duckdb");
  await generate(b, OPTS);
  c = await fresh("c.duckdb");
  await generate(c, { ...OPTS, seed: 43 });
  small = await fresh("small.duckdb");
  smallSummary = await generate(small, SMALL_OPTS);
});

afterAll(() => {
  for (const db of [a, b, c, small]) db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("determinism", () => {
  it("gives identical tables for the same options, even over an earlier data set", async () => {
    for (const table of Object.keys(TABLES) as Table[]) {
      expect(await fingerprint(a, table), table).toEqual(await fingerprint(b, table));
    }
  });

  it("makes the same rows with the simulation on a worker thread as on the calling one", async () => {
    // `small` ran the simulation on this thread (small data sets do); this one runs it on a worker.
    const d = await fresh("worker.duckdb");
    try {
      const progress: string[] = [];
      const s = await generate(d, { ...SMALL_OPTS, simulateInWorker: true, onProgress: (m) => progress.push(m) });
      expect({ ...s, seconds: 0 }).toEqual({ ...smallSummary, seconds: 0 });
      for (const table of Object.keys(TABLES) as Table[]) {
        expect(await fingerprint(d, table), table).toEqual(await fingerprint(small, table));
      }
      for (const g of [GRAINS.orders, GRAINS.cohort, ROLLUPS.orders, ROLLUPS.cohort]) {
        const keyed = (db: Database) => db.all(`SELECT md5(string_agg(t::VARCHAR, '\n' ORDER BY t::VARCHAR)) AS h FROM ${g.table} t`);
        expect(await keyed(d), g.table).toEqual(await keyed(small));
      }
      // The worker's progress reaches the caller, day by day, in order.
      const days = progress.filter((m) => m.startsWith("generated ")).map((m) => m.slice(10, 20));
      expect(days.length).toBeGreaterThanOrEqual(15);
      expect(days.at(-1)).toBe(SMALL_OPTS.endDate);
      expect([...days].sort()).toEqual(days);
    } finally {
      d.close();
    }
  });

  it("never lets the worker run more than its bound of buffers ahead of a slow appender", async () => {
    const inFlight = new SharedArrayBuffer(4);
    const waiting = new Int32Array(inFlight);
    let most = 0;
    let appended = 0;
    await simulateInWorker(
      { seed: 42, endDay: toEpochDay(OPTS.endDate), startDay: toEpochDay(START), volumes: new Int32Array(OPTS.days).fill(2000), totalCustomers: OPTS.days * 2000 },
      () => {
        // The first append stalls, as a slow disk would: the worker draws on until its bound, then waits.
        // The stall lasts until the worker has reached its bound, however long a busy machine takes
        // (a minute at most), then half a second more, in which a worker that ignored it would run past.
        if (appended++ === 0) {
          const giveUp = Date.now() + 60_000;
          while (Atomics.load(waiting, 0) < MAX_BUFFERS_IN_FLIGHT && Date.now() < giveUp);
          const until = Date.now() + 500;
          while (Date.now() < until) most = Math.max(most, Atomics.load(waiting, 0));
        }
        most = Math.max(most, Atomics.load(waiting, 0));
      },
      () => undefined,
      inFlight,
    );
    expect(appended).toBeGreaterThan(2 * MAX_BUFFERS_IN_FLIGHT);
    expect(most).toBe(MAX_BUFFERS_IN_FLIGHT);
  });

  it("stops the worker and keeps the data when appending its rows fails", async () => {
    const appended: number[] = [];
    const run = simulateInWorker(
      { seed: 42, endDay: toEpochDay(OPTS.endDate), startDay: toEpochDay(START), volumes: new Int32Array(OPTS.days).fill(400), totalCustomers: OPTS.days * 400 },
      (stage, _columns, rows) => {
        appended.push(rows);
        if (appended.length === 3) throw new Error("disk full");
      },
      () => undefined,
    );
    await expect(run).rejects.toThrow("disk full");
    const seen = appended.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Nothing more is appended after the failure: the worker is stopped.
    expect(appended.length).toBe(seen);
    expect(seen).toBe(3);
  });

  it("gives different facts for a different seed, over the same reference world", async () => {
    for (const table of FACT_TABLES) {
      expect((await fingerprint(a, table)).h, table).not.toEqual((await fingerprint(c, table)).h);
    }
    for (const table of REFERENCE_TABLES) {
      expect(await fingerprint(a, table), table).toEqual(await fingerprint(c, table));
    }
  });

  it("leaves API clients alone and records the options", async () => {
    expect(await count(a, "SELECT * FROM api_clients WHERE client_id = 'keep-me'")).toBe(1);
    const info = Object.fromEntries((await a.all<{ key: string; value: string }>("SELECT key, value FROM dataset_info")).map((r) => [r.key, r.value]));
    const { data_version, ...options } = info;
    expect(options).toEqual({ seed: "42", days: "150", orders_per_day: "60", start_date: START, end_date: OPTS.endDate });
    // Each load stamps a new version, so a copy of the data elsewhere knows it is out of date.
    expect(data_version).toMatch(/^[0-9a-f-]{36}$/);
    expect(await dataVersion(b)).not.toBe(data_version);
  });

  it("reports what it wrote", async () => {
    expect(summary.startDate).toBe(START);
    expect(summary.endDate).toBe(OPTS.endDate);
    for (const [key, table] of [["customers", "customers"], ["attempts", "attempts"], ["refunds", "refunds"], ["chargebacks", "chargebacks"], ["alerts", "alerts"]] as const) {
      expect(summary[key], key).toBe(await count(a, `SELECT * FROM ${table}`));
    }
    expect(summary.attempts).toBeGreaterThan(15_000);
  });

  it("handles an empty data set", async () => {
    const empty = await fresh("empty.duckdb");
    try {
      const s = await generate(empty, { ...OPTS, days: 3, ordersPerDay: 0 });
      expect(s).toMatchObject({ customers: 0, attempts: 0, refunds: 0, chargebacks: 0, alerts: 0, startDate: addDays(OPTS.endDate, -2) });
      expect(await count(empty, "SELECT * FROM attempts")).toBe(0);
      expect(await count(empty, "SELECT * FROM bins")).toBe(2000);
    } finally {
      empty.close();
    }
  });

  it("rejects bad options without touching the data", async () => {
    const before = await fingerprint(a, "attempts");
    await expect(generate(a, { ...OPTS, days: 0 })).rejects.toThrow(/days/);
    await expect(generate(a, { ...OPTS, endDate: "2025-02-30" })).rejects.toThrow(/endDate/);
    await expect(generate(a, { ...OPTS, ordersPerDay: -1 })).rejects.toThrow(/ordersPerDay/);
    await expect(generate(a, { ...OPTS, seed: 1.5 })).rejects.toThrow(/seed/);
    expect(await fingerprint(a, "attempts")).toEqual(before);
  });
});

describe("a generation stopped between its transactions", () => {
  // Before the rebuild's first step, and after each step but the last has committed.
  it.each(["event facts", "grains", "rollups"])("before '%s' leaves derived tables missing, which the service builds when it opens the file", async (step) => {
    const d = await fresh(`stopped-${step.replace(" ", "-")}.duckdb`);
    try {
      await generate(d, { ...OPTS, seed: 7, days: 40 }); // an earlier data set, derived tables and all
      const stop = (msg: string) => {
        if (msg === `rebuilding derived tables: ${step}`) throw new Error("stopped");
      };
      await expect(generate(d, { ...SMALL_OPTS, onProgress: stop })).rejects.toThrow("stopped");
      // The facts are the new data set's; no derived table of the earlier one is left to answer for them.
      for (const t of FACT_TABLES) expect(await fingerprint(d, t)).toEqual(await fingerprint(small, t));
      expect(await d.transaction((tx) => hasDerived(tx))).toBe(false);

      const service = await createService(d, loadServiceConfig({ SERVICE_DB: d.path, SERVICE_TOKEN_SECRET: TEST_TOKEN_SECRET }), jsonLogger(() => undefined));
      await service.close();
      const derived = [...Object.values(EVENT_FACT_TABLES).map((e) => e.facts), ...Object.values(GRAINS).map((g) => g.table), ...Object.values(ROLLUPS).map((g) => g.table)];
      const rows = (db: Database, table: string) => db.all(`SELECT * FROM ${table} ORDER BY ALL`);
      for (const table of derived) {
        const expected = await rows(small, table);
        expect(expected.length, table).toBeGreaterThan(0);
        expect(await rows(d, table), table).toEqual(expected);
      }
    } finally {
      d.close();
    }
  });
});

describe("date range", () => {
  it("starts on startDate and ends on endDate, with data every day", async () => {
    const r = await one<{ lo: string; hi: string; days: number }>(a, "SELECT min(attempt_date) lo, max(attempt_date) hi, count(DISTINCT attempt_date)::INTEGER AS days FROM attempts");
    expect(r).toEqual({ lo: START, hi: OPTS.endDate, days: OPTS.days });
    const cust = await one<{ lo: string; hi: string }>(a, "SELECT min(initial_date) lo, max(initial_date) hi FROM customers");
    expect(cust).toEqual({ lo: START, hi: OPTS.endDate });
    // The last week has new orders and rebills.
    expect(await count(a, `SELECT * FROM attempts WHERE attempt_date > DATE '${OPTS.endDate}' - 7 AND billing_cycle > 0`)).toBeGreaterThan(0);
    for (const [table, col] of [["refunds", "refund_date"], ["chargebacks", "cb_date"], ["alerts", "alert_date"]] as const) {
      const max = await one<{ hi: string }>(a, `SELECT max(${col}) hi FROM ${table}`);
      expect(max.hi <= OPTS.endDate, table).toBe(true);
    }
  });

  it("hands out ids from 1 in generation order, which is date order", async () => {
    const dates = { customers: "initial_date", attempts: "attempt_date", refunds: "refund_date", chargebacks: "cb_date", alerts: "alert_date" } as const;
    for (const [table, date] of Object.entries(dates)) {
      const id = TABLES[table as Table];
      const r = await one<{ n: number; lo: number; hi: number }>(a, `SELECT count(*)::INTEGER n, min(${id})::INTEGER lo, max(${id})::INTEGER hi FROM ${table}`);
      expect(r.lo, table).toBe(1);
      expect(r.hi, table).toBe(r.n);
      const unordered = await count(a, `SELECT * FROM (SELECT ${date} AS d, lag(${date}) OVER (ORDER BY ${id}) AS prev FROM ${table}) WHERE d < prev`);
      expect(unordered, table).toBe(0);
    }
  });
});

describe("reference tables", () => {
  it("has 20 gateways with aliases, acquirers and MCCs", async () => {
    const rows = await a.all<{ gateway_id: number; gateway_alias: string; acquirer: string; mcc: string }>("SELECT * FROM gateways ORDER BY gateway_id");
    expect(rows.map((r) => r.gateway_id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    for (const r of rows) {
      expect(r.gateway_alias).toMatch(/^[A-Za-z ]+ \d{2}$/);
      expect(r.mcc).toMatch(/^\d{4}$/);
    }
    expect(new Set(rows.map((r) => r.gateway_alias)).size).toBe(20);
    const acquirers = new Set(rows.map((r) => r.acquirer)).size;
    expect(acquirers).toBeGreaterThanOrEqual(6);
    expect(acquirers).toBeLessThanOrEqual(10);
  });

  it("has 40 campaigns of the three types with CPA in range, and 25 products in 5 groups", async () => {
    const campaigns = await a.all<{ campaign_id: number; campaign_name: string; campaign_type: string; cpa_cents: string }>("SELECT * FROM campaigns");
    expect(campaigns).toHaveLength(40);
    expect(new Set(campaigns.map((r) => r.campaign_name)).size).toBe(40);
    const ranges: Record<string, [number, number]> = { Trial: [3000, 6000], Continuity: [4000, 8000], "Straight Sale": [1000, 2500] };
    for (const r of campaigns) {
      expect(CAMPAIGN_TYPES).toContain(r.campaign_type);
      const [lo, hi] = ranges[r.campaign_type] ?? [0, 0];
      expect(Number(r.cpa_cents)).toBeGreaterThanOrEqual(lo);
      expect(Number(r.cpa_cents)).toBeLessThanOrEqual(hi);
    }
    for (const type of CAMPAIGN_TYPES) expect(campaigns.some((r) => r.campaign_type === type)).toBe(true);
    const products = await one<{ n: number; n_groups: number }>(a, "SELECT count(*)::INTEGER n, count(DISTINCT product_group)::INTEGER AS n_groups FROM products");
    expect(products).toEqual({ n: 25, n_groups: 5 });
  });

  it("has 2000 BINs over 60 banks, brands matching the leading digits", async () => {
    const r = await one<{ n: number; banks: number }>(a, "SELECT count(*)::INTEGER n, count(DISTINCT bank)::INTEGER banks FROM bins");
    expect(r).toEqual({ n: 2000, banks: 60 });
    const bins = await a.all<{ bin: string; card_brand: string; card_type: string }>("SELECT bin, card_brand, card_type FROM bins");
    const prefixes: Record<string, RegExp> = { VISA: /^4/, MASTERCARD: /^5[1-5]/, AMEX: /^3[47]/, DISCOVER: /^(6011|65)/ };
    for (const bin of bins) {
      expect(bin.bin).toMatch(/^\d{6}$/);
      expect(CARD_BRANDS).toContain(bin.card_brand);
      expect(CARD_TYPES).toContain(bin.card_type);
      expect(bin.bin, bin.card_brand).toMatch(prefixes[bin.card_brand] ?? /^$/);
    }
    for (const type of CARD_TYPES) expect(bins.some((x) => x.card_type === type)).toBe(true);
    expect(await one(a, "SELECT bank, card_brand, card_type FROM bins WHERE bin = '414720'")).toEqual({ bank: "JPMORGAN CHASE BANK N.A.", card_brand: "VISA", card_type: "DEBIT" });
  });

  it("uses only known references in the facts", async () => {
    expect(await count(a, "SELECT * FROM attempts WHERE gateway_id NOT IN (SELECT gateway_id FROM gateways) OR campaign_id NOT IN (SELECT campaign_id FROM campaigns) OR product_id NOT IN (SELECT product_id FROM products) OR bin NOT IN (SELECT bin FROM bins)")).toBe(0);
    expect(await count(a, "SELECT * FROM attempts WHERE affid IS NULL OR sub_affid IS NULL OR NOT regexp_full_match(affid, 'AFF[0-9]{4}')")).toBe(0);
    const affs = await one<{ n: number }>(a, "SELECT count(DISTINCT affid)::INTEGER n FROM customers");
    expect(affs.n).toBeGreaterThanOrEqual(25);
    expect(affs.n).toBeLessThanOrEqual(30);
  });
});

describe("business invariants", () => {
  it("approves an order at most once, on its last attempt, with contiguous attempt numbers", async () => {
    expect(await count(a, "SELECT order_id FROM attempts GROUP BY 1 HAVING count(*) FILTER (WHERE approved) > 1")).toBe(0);
    expect(await count(a, "SELECT * FROM attempts x JOIN attempts y ON x.order_id = y.order_id AND y.attempt_no > x.attempt_no WHERE x.approved")).toBe(0);
    expect(await count(a, "SELECT order_id FROM attempts GROUP BY 1 HAVING min(attempt_no) <> 1 OR max(attempt_no) <> count(*) OR max(attempt_no) > 3")).toBe(0);
    // Everything but the gateway and the time is the order's, not the attempt's.
    expect(
      await count(a, `SELECT order_id FROM attempts GROUP BY 1 HAVING count(DISTINCT (customer_id, billing_cycle, sales_type, campaign_id, product_id,
        amount_cents, price_point_cents, bin, affid, sub_affid, initial_date)) > 1`),
    ).toBe(0);
  });

  it("retries on the same gateway and cascades to a different one", async () => {
    const rows = await a.all<{ is_cascade: boolean; same: number; n: number }>(`
      SELECT y.is_cascade, count(*) FILTER (WHERE x.gateway_id = y.gateway_id)::INTEGER same, count(*)::INTEGER n
      FROM attempts x JOIN attempts y ON x.order_id = y.order_id AND y.attempt_no = x.attempt_no + 1 GROUP BY 1`);
    const cascades = rows.find((r) => r.is_cascade);
    const retries = rows.find((r) => !r.is_cascade);
    expect(cascades?.n).toBeGreaterThan(100);
    expect(cascades?.same).toBe(0);
    expect(retries?.n).toBeGreaterThan(100);
    expect(retries?.same).toBe(retries?.n);
    expect(await count(a, "SELECT * FROM attempts WHERE is_cascade AND attempt_no < 2")).toBe(0);
    // Initial cascades follow within seconds on the same day; rebill retries come days later.
    expect(await count(a, "SELECT * FROM attempts x JOIN attempts y ON x.order_id = y.order_id AND y.attempt_no = x.attempt_no + 1 WHERE y.attempted_at <= x.attempted_at")).toBe(0);
    expect(await count(a, "SELECT * FROM attempts x JOIN attempts y ON x.order_id = y.order_id AND y.attempt_no = x.attempt_no + 1 WHERE x.billing_cycle > 0 AND y.attempt_date - x.attempt_date NOT IN (3, 4)")).toBe(0);
  });

  it("ties sales type to billing cycle and campaign type", async () => {
    const [initials, rebills, straight] = [SALES_TYPES[0], SALES_TYPES[1], SALES_TYPES[2]];
    expect([initials, rebills, straight]).toEqual(["Initials", "Rebills", "Straight Sales"]);
    expect(await count(a, "SELECT * FROM attempts WHERE (billing_cycle = 0) <> (sales_type IN ('Initials', 'Straight Sales'))")).toBe(0);
    expect(await count(a, `SELECT * FROM attempts WHERE sales_type NOT IN (${SALES_TYPES.map((s) => `'${s}'`).join(", ")})`)).toBe(0);
    expect(await count(a, "SELECT * FROM attempts JOIN campaigns USING (campaign_id) WHERE (campaign_type = 'Straight Sale') <> (sales_type = 'Straight Sales')")).toBe(0);
    // Straight-sale customers never rebill.
    expect(await count(a, "SELECT * FROM attempts JOIN customers cu USING (customer_id) JOIN campaigns ca ON ca.campaign_id = cu.campaign_id WHERE ca.campaign_type = 'Straight Sale' AND billing_cycle > 0")).toBe(0);
    for (const s of SALES_TYPES) expect(await count(a, `SELECT * FROM attempts WHERE sales_type = '${s}'`), s).toBeGreaterThan(0);
  });

  it("keeps attempts consistent with their customer and their own date", async () => {
    expect(await count(a, "SELECT customer_id FROM attempts WHERE billing_cycle = 0 GROUP BY 1 HAVING count(DISTINCT order_id) <> 1")).toBe(0);
    expect(await count(a, "SELECT customer_id FROM customers WHERE customer_id NOT IN (SELECT customer_id FROM attempts WHERE billing_cycle = 0)")).toBe(0);
    expect(
      await count(a, `SELECT * FROM attempts t JOIN customers cu USING (customer_id) WHERE t.initial_date <> cu.initial_date
        OR t.campaign_id <> cu.campaign_id OR t.affid <> cu.affid OR t.sub_affid <> cu.sub_affid
        OR (t.billing_cycle = 0 AND (t.attempt_date <> cu.initial_date OR t.product_id <> cu.product_id OR t.price_point_cents <> cu.price_point_cents))`),
    ).toBe(0);
    expect(await count(a, "SELECT * FROM attempts WHERE attempted_at::DATE <> attempt_date OR amount_cents <> price_point_cents OR amount_cents <= 0")).toBe(0);
    // Trials rebill at a higher price than the trial.
    const prices = await one<{ trial: number; rebill: number }>(a, `SELECT max(price_point_cents) FILTER (WHERE billing_cycle = 0)::INTEGER trial,
      min(price_point_cents) FILTER (WHERE billing_cycle > 0)::INTEGER rebill FROM attempts JOIN campaigns USING (campaign_id) WHERE campaign_type = 'Trial'`);
    expect(prices.rebill).toBeGreaterThan(prices.trial);
  });

  it("bills a cycle only after the previous one was approved, on schedule", async () => {
    // First attempt of cycle k >= 1 against the approved attempt of cycle k - 1.
    const rows = await a.all<{ campaign_type: string; gap_lo: number; gap_hi: number; missing: number }>(`
      WITH firsts AS (SELECT customer_id, billing_cycle, attempt_date FROM attempts WHERE attempt_no = 1 AND billing_cycle > 0),
           approved AS (SELECT customer_id, billing_cycle, attempt_date FROM attempts WHERE approved)
      SELECT ca.campaign_type, min(f.attempt_date - p.attempt_date)::INTEGER gap_lo, max(f.attempt_date - p.attempt_date)::INTEGER gap_hi,
             count(*) FILTER (WHERE p.customer_id IS NULL)::INTEGER missing
      FROM firsts f JOIN customers cu USING (customer_id) JOIN campaigns ca ON ca.campaign_id = cu.campaign_id
      LEFT JOIN approved p ON p.customer_id = f.customer_id AND p.billing_cycle = f.billing_cycle - 1
      WHERE f.billing_cycle = 1 GROUP BY 1 ORDER BY 1`);
    expect(rows).toEqual([
      { campaign_type: "Continuity", gap_lo: 30, gap_hi: 30, missing: 0 },
      { campaign_type: "Trial", gap_lo: 14, gap_hi: 14, missing: 0 },
    ]);
    expect(
      await count(a, `SELECT * FROM attempts f WHERE attempt_no = 1 AND billing_cycle > 1 AND NOT EXISTS (
        SELECT 1 FROM attempts p WHERE p.customer_id = f.customer_id AND p.billing_cycle = f.billing_cycle - 1 AND p.approved AND f.attempt_date - p.attempt_date = 30)`),
    ).toBe(0);
  });

  it("dates refunds, chargebacks and alerts on or after an approved attempt, within their lags", async () => {
    for (const [table, date, maxLag] of [["refunds", "refund_date", 61], ["chargebacks", "cb_date", 120], ["alerts", "alert_date", 60]] as const) {
      expect(
        await count(a, `SELECT * FROM ${table} e LEFT JOIN attempts t USING (attempt_id)
          WHERE t.attempt_id IS NULL OR NOT t.approved OR e.${date} < t.attempt_date OR e.${date} - t.attempt_date > ${maxLag}
             OR e.${date} > DATE '${OPTS.endDate}' OR e.amount_cents <= 0 OR e.amount_cents > t.amount_cents`),
        table,
      ).toBe(0);
    }
    expect(await count(a, "SELECT * FROM chargebacks e JOIN attempts t USING (attempt_id) WHERE e.amount_cents <> t.amount_cents")).toBe(0);
    expect(await count(a, "SELECT * FROM alerts e JOIN attempts t USING (attempt_id) WHERE e.amount_cents <> t.amount_cents OR alert_date = attempt_date")).toBe(0);
    expect(await count(a, "SELECT * FROM refunds e JOIN attempts t USING (attempt_id) WHERE refund_type = 'Refund CS' AND refund_date - attempt_date > 30")).toBe(0);
    expect(await count(a, `SELECT * FROM refunds WHERE refund_type NOT IN (${REFUND_TYPES.map((s) => `'${s}'`).join(", ")})`)).toBe(0);
    expect(await count(a, `SELECT * FROM alerts WHERE alert_type NOT IN (${ALERT_TYPES.map((s) => `'${s}'`).join(", ")})`)).toBe(0);
    // An attempt is charged back at most once, alerted at most once, refunded at most once per type.
    expect(await count(a, "SELECT attempt_id FROM chargebacks GROUP BY 1 HAVING count(*) > 1")).toBe(0);
    expect(await count(a, "SELECT attempt_id FROM alerts GROUP BY 1 HAVING count(*) > 1")).toBe(0);
    expect(await count(a, "SELECT attempt_id, refund_type FROM refunds GROUP BY ALL HAVING count(*) > 1")).toBe(0);
  });

  it("follows alerts with Refund Alert refunds on the alert date or the next day", async () => {
    expect(
      await count(a, `SELECT * FROM refunds r WHERE refund_type = 'Refund Alert' AND NOT EXISTS (
        SELECT 1 FROM alerts l WHERE l.attempt_id = r.attempt_id AND r.refund_date - l.alert_date IN (0, 1))`),
    ).toBe(0);
    const r = await one<{ alerts: number; refunded: number; cb_after_alert: number; cbs: number }>(a, `SELECT
      (SELECT count(*) FROM alerts WHERE alert_date < DATE '${OPTS.endDate}')::INTEGER alerts,
      (SELECT count(*) FROM alerts l WHERE alert_date < DATE '${OPTS.endDate}' AND EXISTS (SELECT 1 FROM refunds r WHERE r.attempt_id = l.attempt_id AND refund_type = 'Refund Alert'))::INTEGER refunded,
      (SELECT count(*) FROM chargebacks c WHERE EXISTS (SELECT 1 FROM alerts l WHERE l.attempt_id = c.attempt_id AND l.alert_date <= c.cb_date))::INTEGER cb_after_alert,
      (SELECT count(*) FROM chargebacks)::INTEGER cbs`);
    expect(r.refunded / r.alerts).toBeGreaterThan(0.7);
    expect(r.cb_after_alert).toBeGreaterThan(0);
    expect(r.cb_after_alert).toBeLessThan(r.cbs);
  });
});

describe("business shape", () => {
  it("approves initials more often than rebills, and retries less often than first tries", async () => {
    const r = await one<{ initial: number; rebill: number; retry: number }>(a, `SELECT
      avg(approved::INTEGER) FILTER (WHERE billing_cycle = 0 AND NOT is_cascade) initial,
      avg(approved::INTEGER) FILTER (WHERE billing_cycle > 0 AND NOT is_cascade) rebill,
      avg(approved::INTEGER) FILTER (WHERE attempt_no > 1) retry FROM attempts`);
    expect(r.initial).toBeGreaterThan(0.62);
    expect(r.initial).toBeLessThan(0.78);
    expect(r.rebill).toBeGreaterThan(0.42);
    expect(r.rebill).toBeLessThan(0.62);
    expect(r.retry).toBeLessThan(r.rebill);
  });

  it("approves differently by bank, gateway and card type", async () => {
    const spread = async (sql: string) => one<{ n_groups: number; lo: number; hi: number }>(a, `SELECT count(*)::INTEGER AS n_groups, min(rate) lo, max(rate) hi FROM (${sql})`);
    const banks = await spread("SELECT bank, avg(approved::INTEGER) rate FROM attempts JOIN bins USING (bin) WHERE attempt_no = 1 AND billing_cycle = 0 GROUP BY 1 HAVING count(*) >= 150");
    expect(banks.n_groups).toBeGreaterThanOrEqual(10);
    expect(banks.hi - banks.lo).toBeGreaterThan(0.15);
    const gateways = await spread("SELECT gateway_id, avg(approved::INTEGER) rate FROM attempts WHERE attempt_no = 1 AND billing_cycle = 0 GROUP BY 1 HAVING count(*) >= 150");
    expect(gateways.n_groups).toBeGreaterThanOrEqual(10);
    expect(gateways.hi - gateways.lo).toBeGreaterThan(0.08);
    const types = Object.fromEntries(
      (await a.all<{ card_type: string; rate: number }>("SELECT card_type, avg(approved::INTEGER) rate FROM attempts JOIN bins USING (bin) WHERE attempt_no = 1 GROUP BY 1")).map((x) => [x.card_type, x.rate]),
    );
    expect(types.PREPAID).toBeLessThan((types.CREDIT ?? 0) - 0.05);
  });

  it("loses subscribers cycle after cycle", async () => {
    const rows = await a.all<{ billing_cycle: number; orders: number }>(
      "SELECT billing_cycle, count(DISTINCT order_id)::INTEGER orders FROM attempts JOIN campaigns USING (campaign_id) WHERE campaign_type <> 'Straight Sale' GROUP BY 1 ORDER BY 1",
    );
    expect(rows.length).toBeGreaterThanOrEqual(5);
    const orders = rows.slice(0, 5).map((r) => r.orders);
    for (let k = 1; k < orders.length; k++) expect(orders[k], `cycle ${k}`).toBeLessThan(orders[k - 1] ?? 0);
    // About 30% cancel before the first rebill, on top of declines and refunds.
    const cycle1 = (orders[1] ?? 0) / (orders[0] ?? 1);
    expect(cycle1).toBeGreaterThan(0.35);
    expect(cycle1).toBeLessThan(0.75);
  });

  it("refunds, alerts and charges back at realistic rates", async () => {
    const r = await one<{ approved: number; cs: number; alerts: number; cbs: number }>(a, `SELECT
      (SELECT count(*) FROM attempts WHERE approved)::INTEGER approved,
      (SELECT count(*) FROM refunds WHERE refund_type = 'Refund CS')::INTEGER cs,
      (SELECT count(*) FROM alerts)::INTEGER alerts,
      (SELECT count(*) FROM chargebacks)::INTEGER cbs`);
    // Recent approvals have not had time for all their events, hence the wide lower bounds.
    expect(r.cs / r.approved).toBeGreaterThan(0.025);
    expect(r.cs / r.approved).toBeLessThan(0.06);
    expect(r.alerts / r.approved).toBeGreaterThan(0.006);
    expect(r.alerts / r.approved).toBeLessThan(0.02);
    expect(r.cbs / r.approved).toBeGreaterThan(0.002);
    expect(r.cbs / r.approved).toBeLessThan(0.012);
    const lag = await one<{ median: number }>(a, "SELECT median(cb_date - attempt_date) median FROM chargebacks JOIN attempts USING (attempt_id)");
    expect(lag.median).toBeGreaterThanOrEqual(20);
    expect(lag.median).toBeLessThanOrEqual(60);
  });
});
