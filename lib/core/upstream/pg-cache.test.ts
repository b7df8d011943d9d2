// The shared answer cache (./pg-cache.ts) over a real PostgreSQL server: a throwaway cluster this
// file starts (lib/core/store/testing/postgres.ts), or the scratch database TEST_DATABASE_URL names. It is
// skipped only on a machine without PostgreSQL, which .ci/run installs.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { addDays, type Operation, type ReportRecord } from "@/lib/contract";
import { openStore } from "@/lib/core/store/open";
import type { Store } from "@/lib/core/store/sql";
import { postgresBinDir, startTestPostgres, type TestPostgres } from "@/lib/core/store/testing/postgres";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { ReportGateway, type GatewayConfig, type JobResult } from "./gateway";
import { PgCache } from "./pg-cache";
import { queryKey, type ReportQuery } from "./records";

const external = process.env.TEST_DATABASE_URL;
const available = external !== undefined || postgresBinDir() !== null;
if (!available) console.warn("lib/core/upstream/pg-cache.test.ts: no PostgreSQL server installed (apt-get install postgresql); skipped");

const END = "2025-07-31";

let server: TestPostgres | null = null;
/** Two connections (pools), as two dashboard instances would have. */
let stores: Store[] = [];

beforeAll(async () => {
  if (!available) return;
  let url: string;
  if (external) url = external;
  else {
    server = await startTestPostgres();
    url = server.url;
  }
  stores = await Promise.all(["a", "b"].map((owner) => openStore({ kind: "postgres", url }, { owner })));
});

afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await server?.stop();
});

async function cachedKeys(): Promise<string[]> {
  return (await stores[0]!.query<{ key: string }>("SELECT key FROM report_cache")).map((r) => r.key).sort();
}

async function run(g: ReportGateway, op: Operation, body: unknown): Promise<JobResult> {
  const out = g.submit(op, g.parse(op, body));
  return "cached" in out ? out.cached : g.wait(out.job.id);
}

describe.runIf(available)("two gateways sharing a PgCache in front of the real service", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ data: { days: 120, ordersPerDay: 15, seed: 5, endDate: END }, env: { REPORT_RATE_LIMIT: "1000" } });
  });
  afterAll(async () => svc?.stop());
  beforeEach(async () => {
    await stores[0]!.exec("DELETE FROM report_cache");
  });

  /** Two instances: gateways of their own (memory caches, clients) on separate connections. */
  const pair = (overrides: Partial<GatewayConfig> = {}) => {
    const config = gatewayFor(svc, overrides).config;
    return stores.map((db) => new ReportGateway(config, { cache: new PgCache({ db, maxBytes: config.cacheMaxBytes ?? 64 * 1024 * 1024 }) })) as [ReportGateway, ReportGateway];
  };

  it("answers a report one instance fetched from the other with no service call", async () => {
    const [a, b] = pair();
    const q = { start_date: addDays(END, -20), end_date: END, group_by: ["date", "gateway_id"], metrics: ["attempts", "revenue"] };
    const fetched = await run(a, "orders", q);
    expect(fetched.source).toBe("upstream");
    expect(await cachedKeys()).toEqual([queryKey("orders", a.parse("orders", q))]);
    svc.logLines.length = 0;
    const answered = await run(b, "orders", q);
    expect(svc.logLines).toEqual([]); // not even a token
    expect(b.client.reportCalls).toBe(0);
    expect(answered).toMatchObject({ source: "cache", upstream_calls: 0, fetched_at: fetched.fetched_at });
    expect(answered.data).toEqual(fetched.data);
    // Fields in the order the service sent them (a json column, not jsonb, which reorders keys).
    expect(Object.keys(answered.data[0]!)).toEqual(Object.keys(fetched.data[0]!));
    // Now in b's memory too: asked again, it does not even look at the database.
    expect("cached" in b.submit("orders", b.parse("orders", q))).toBe(true);
  });

  it("derives a coarser grouping and a narrower range of a date-grouped answer, equal to the service's own", async () => {
    const [a, b] = pair();
    const base = { start_date: addDays(END, -60), end_date: END, group_by: ["date", "gateway_id", "sales_type"], metrics: ["attempts", "approvals", "revenue", "refund_amount"] };
    await run(a, "orders", base);
    const variants: ReportQuery[] = [
      { ...base, group_by: ["gateway_id"], metrics: ["revenue", "refund_amount"] },
      { ...base, start_date: addDays(END, -10), end_date: addDays(END, -3), group_by: ["date"], metrics: ["revenue"] },
      { ...base, group_by: ["sales_type", "date"], start_date: addDays(END, -30), filters: { gateway_id: 2 } },
    ];
    for (const v of variants) {
      svc.logLines.length = 0;
      const r = await run(b, "orders", v);
      expect(svc.logLines).toEqual([]);
      expect(r.source).toBe("derived");
      expect(r.upstream_calls).toBe(0);
      expect(r.derived_from?.query.group_by).toEqual(base.group_by);
      expect(r.data).toEqual(await svc.allRecords("/api/data", v as unknown as Record<string, unknown>));
    }
    expect(b.client.reportCalls).toBe(0);
    // Not derivable (a filter on a dimension the cached answer did not keep): fetched.
    const other = await run(b, "orders", { ...base, filters: { card_brand: "VISA" } });
    expect(other.source).toBe("upstream");
  });

  it("does not serve expired answers", async () => {
    const [a, b] = pair({ ttlPastSeconds: 1 });
    const q = { start_date: addDays(END, -5), end_date: END, group_by: ["date"], metrics: ["revenue"] };
    await run(a, "orders", q);
    await new Promise((r) => setTimeout(r, 1100));
    // Not derived from: a narrower range of the expired answer is fetched.
    const narrower = await run(pair()[1], "orders", { ...q, start_date: addDays(END, -4), end_date: addDays(END, -1) });
    expect(narrower.source).toBe("upstream");
    // Nor served exactly.
    const late = await run(b, "orders", q);
    expect(late.source).toBe("upstream");
    expect(b.client.reportCalls).toBe(1);
  });
});

describe.runIf(available)("PgCache", () => {
  beforeEach(async () => {
    await stores[0]!.exec("DELETE FROM report_cache");
  });

  const day = (i: number) => addDays(END, -i);
  /** Date-grouped records of `n` days, each record the same JSON size. */
  const records = (n: number, revenue = 1.25): ReportRecord[] => Array.from({ length: n }, (_, i) => ({ date: day(n - 1 - i), revenue }));
  const q = (days: number, group_by = ["date"]): ReportQuery => ({ start_date: day(days - 1), end_date: END, group_by, metrics: ["revenue"] });

  it("serves exact and derived answers only while fresh, by the caller's clock", async () => {
    const [a, b] = stores.map((db) => new PgCache({ db, maxBytes: 1_000_000 })) as [PgCache, PgCache];
    const now = Date.now();
    await a.put("orders", q(10), records(10), now, now + 1000);
    expect(await b.find("orders", q(10), now + 999)).toEqual({ query: q(10), records: records(10), fetchedAt: now, asOf: now, derived: false });
    const narrower: ReportQuery = { ...q(10), start_date: day(3) };
    expect(await b.find("orders", narrower, now + 999)).toEqual({ query: q(10), records: records(10), fetchedAt: now, asOf: now, derived: true });
    expect(await b.find("orders", q(10), now + 1000)).toBeNull();
    expect(await b.find("orders", narrower, now + 1000)).toBeNull();
    expect(await b.find("orders", { ...q(10), start_date: day(12) }, now)).toBeNull(); // wider than any held
    expect(await b.find("cohort", q(10), now)).toBeNull(); // another operation
  });

  it("keeps an answer put together from kept days from now, and tells when its oldest day was fetched", async () => {
    const [a, b] = stores.map((db) => new PgCache({ db, maxBytes: 1_000_000 })) as [PgCache, PgCache];
    const now = Date.now();
    const oldestDay = now - 3 * 86_400_000;
    await a.put("orders", q(10), records(10), now, now + 1000, oldestDay);
    expect(await b.find("orders", q(10), now + 999)).toMatchObject({ fetchedAt: now, asOf: oldestDay, derived: false });
    expect(await b.find("orders", { ...q(10), group_by: [] }, now + 999)).toMatchObject({ fetchedAt: now, asOf: oldestDay, derived: true });
    // Its lifetime still counts from when it was kept.
    expect(await b.find("orders", q(10), now + 1000)).toBeNull();
  });

  it("derives from the smallest answer that can, and replaces an answer only with a newer one", async () => {
    const c = new PgCache({ db: stores[0]!, maxBytes: 1_000_000 });
    const now = Date.now();
    await c.put("orders", q(30), records(30), now, now + 60_000);
    await c.put("orders", q(20), records(20), now, now + 60_000);
    await c.put("orders", q(5), records(5), now, now + 60_000); // too short to answer
    const found = await c.find("orders", { ...q(10), group_by: [] });
    expect(found).toMatchObject({ query: q(20), derived: true });
    await c.put("orders", q(20), records(20, 9), now - 1, now + 60_000); // older: ignored
    expect((await c.find("orders", q(20)))?.records).toEqual(records(20));
    await c.put("orders", q(20), records(20, 7), now + 1, now + 60_000);
    expect((await c.find("orders", q(20)))?.records).toEqual(records(20, 7));
  });

  it("keeps within the byte and entry bounds, least recently used out first, and skips an answer larger than the bound", async () => {
    const one = JSON.stringify(records(10)).length;
    const [a, b] = stores.map((db) => new PgCache({ db, maxBytes: Math.floor(3.5 * one) })) as [PgCache, PgCache];
    const now = Date.now();
    const put = (cache: PgCache, days: number, metric: string) =>
      cache.put("orders", { ...q(days), metrics: [metric] }, records(10), now, now + 60_000);
    const key = (days: number, metric: string) => queryKey("orders", { ...q(days), metrics: [metric] });
    await put(a, 10, "revenue");
    await put(b, 10, "attempts");
    await put(a, 10, "approvals");
    expect(await b.find("orders", { ...q(10), metrics: ["revenue"] })).not.toBeNull(); // touched: now the most recent
    await put(b, 10, "refund_amount"); // 4 × one > 3.5 × one: the least recently used (attempts) goes
    expect(await cachedKeys()).toEqual([key(10, "approvals"), key(10, "refund_amount"), key(10, "revenue")].sort());
    const [bytes] = await stores[0]!.query<{ total: number }>("SELECT sum(bytes)::int AS total FROM report_cache");
    expect(bytes!.total).toBe(3 * one);

    await a.put("orders", q(40), records(40), now, now + 60_000); // larger than the whole bound
    expect(await cachedKeys()).toHaveLength(3);

    const few = new PgCache({ db: stores[1]!, maxBytes: 1_000_000, maxEntries: 2 });
    await few.put("orders", q(3), records(3), now, now + 60_000);
    expect(await cachedKeys()).toEqual([key(10, "refund_amount"), queryKey("orders", q(3))].sort());
  });
});
