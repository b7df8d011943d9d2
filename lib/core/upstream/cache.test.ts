/**
 * The answer cache on its own: expired answers stop answering lookups but stay, for `latest`, until
 * the bounds push them out (least recently used first).
 */
import { describe, expect, it } from "vitest";
import type { ReportRecord } from "@/lib/contract";
import { answerBody, ReportCache } from "./cache";
import { canonicalQuery, queryKey, type ReportQuery } from "./records";

const TTL_PAST = 100; // seconds; every range here ended before today
const config = { ttlPastSeconds: TTL_PAST, ttlTodaySeconds: 10, timeZone: "UTC" };

const byDate: ReportQuery = { start_date: "2025-07-01", end_date: "2025-07-03", group_by: ["date"], metrics: ["attempts"] };
const records: ReportRecord[] = [
  { date: "2025-07-01", attempts: 3 },
  { date: "2025-07-02", attempts: 5 },
  { date: "2025-07-03", attempts: 7 },
];

describe("the answer cache", () => {
  it("keeps an expired answer: lookup misses it, latest returns it as not fresh, with its age", () => {
    const cache = new ReportCache(config);
    const storedAt = Date.now();
    cache.store("orders", byDate, records, 1);
    const later = storedAt + (TTL_PAST + 5) * 1000;
    expect(cache.lookup("orders", byDate, later)).toBeNull();
    expect(cache.size).toBe(1); // not evicted by the lookup
    const stale = cache.latest("orders", byDate, later);
    expect(stale).not.toBeNull();
    expect(stale!.fresh).toBe(false);
    expect(stale!.result).toMatchObject({ source: "cache", upstream_calls: 0, data: records });
    expect(stale!.ageSeconds).toBeGreaterThanOrEqual(TTL_PAST + 4);
    expect(stale!.ageSeconds).toBeLessThanOrEqual(TTL_PAST + 5);
    expect(Date.parse(stale!.expiresAt)).toBeGreaterThanOrEqual(storedAt + TTL_PAST * 1000);
    expect(Date.parse(stale!.expiresAt)).toBeLessThan(later);
    // While fresh, latest says so and agrees with lookup.
    const fresh = cache.latest("orders", byDate);
    expect(fresh).toMatchObject({ fresh: true, ageSeconds: 0 });
    expect(fresh!.result.data).toEqual(cache.lookup("orders", byDate)!.data);
  });

  it("tells an answer put together from days kept earlier as of its oldest day, fresh for its own lifetime", () => {
    const cache = new ReportCache(config);
    const now = Date.now();
    const oldestDay = now - 3 * 86_400_000;
    cache.store("orders", byDate, records, 0, now, oldestDay);
    const exact = cache.lookup("orders", byDate, now + (TTL_PAST - 1) * 1000);
    expect(exact?.fetched_at).toBe(new Date(oldestDay).toISOString());
    const totals: ReportQuery = { ...byDate, group_by: [] };
    expect(cache.lookup("orders", totals)?.fetched_at).toBe(new Date(oldestDay).toISOString());
    expect(cache.latest("orders", byDate, now)?.ageSeconds).toBe(3 * 86_400);
  });

  it("derives from an expired answer as lookup derives from a fresh one", () => {
    const cache = new ReportCache(config);
    cache.store("orders", byDate, records, 1);
    const sub = { ...byDate, start_date: "2025-07-02" };
    const later = Date.now() + (TTL_PAST + 1) * 1000;
    expect(cache.lookup("orders", sub, later)).toBeNull();
    const stale = cache.latest("orders", sub, later)!;
    expect(stale.fresh).toBe(false);
    expect(stale.result.source).toBe("derived");
    expect(stale.result.data).toEqual(cache.lookup("orders", sub)!.data);
    expect(stale.result.data).toEqual(records.slice(1));
    // Nothing that fits: null.
    expect(cache.latest("orders", { ...byDate, metrics: ["revenue"] }, later)).toBeNull();
    expect(cache.latest("cohort", byDate, later)).toBeNull();
  });

  it("prefers the most recently fetched answer, exact or derived", async () => {
    const cache = new ReportCache(config);
    const sub = { ...byDate, start_date: "2025-07-02" };
    cache.store("orders", sub, records.slice(1), 1);
    await new Promise((r) => setTimeout(r, 5));
    cache.store("orders", byDate, records, 1); // fetched later, and covers `sub`
    expect(cache.latest("orders", sub)!.result.source).toBe("derived");
    expect(cache.lookup("orders", sub)!.source).toBe("cache"); // lookup still takes the exact one
  });

  it("still evicts by its bounds, expired answers included, least recently used first", () => {
    const one = JSON.stringify(records).length;
    const cache = new ReportCache({ ...config, cacheMaxBytes: Math.floor(one * 2.5) });
    // Three answers none of which can be derived from another (each has a metric the others lack).
    const q = (metric: string): ReportQuery => ({ ...byDate, metrics: [metric] });
    cache.store("orders", q("attempts"), records, 1);
    cache.store("orders", q("approvals"), records, 1);
    const later = Date.now() + (TTL_PAST + 1) * 1000;
    // Both expired; reading the first with latest makes it the more recently used.
    expect(cache.latest("orders", q("attempts"), later)?.fresh).toBe(false);
    cache.store("orders", q("revenue"), records, 1);
    expect(cache.size).toBe(2);
    expect(cache.bytes).toBeLessThanOrEqual(Math.floor(one * 2.5));
    expect(cache.latest("orders", q("approvals"), later)).toBeNull(); // pushed out
    expect(cache.latest("orders", q("attempts"), later)).not.toBeNull();
  });

  it("keeps an exact hit's body as bytes: the same JSON the routes made, serialized once", () => {
    const cache = new ReportCache(config);
    const many: ReportRecord[] = Array.from({ length: 200 }, (_, i) => ({ date: `2025-07-${String((i % 3) + 1).padStart(2, "0")}`, attempts: i }));
    // Spelled differently from its canonical form: the body carries the canonical one.
    const query: ReportQuery = { ...byDate, metrics: ["attempts"], filters: { gateway_id: [7, 3] } };
    cache.store("orders", query, many, 1);
    const before = cache.bytes;
    const first = cache.serialized("orders", query)!;
    const expected = JSON.stringify(answerBody(cache.lookup("orders", query)!, canonicalQuery("orders", query)));
    expect(first.json.toString()).toBe(expected);
    expect(cache.bytes).toBe(before + first.json.length);
    expect(cache.serialized("orders", query)).toBe(first); // not serialized again
    // Storing the answer again replaces its bytes too.
    cache.store("orders", query, records, 1);
    expect(cache.bytes).toBe(JSON.stringify(records).length);
    expect(cache.serialized("orders", query)!.json.toString()).toContain('"total":3');
  });

  it("keeps bytes only for a fresh exact answer", () => {
    const cache = new ReportCache(config);
    cache.store("orders", byDate, records, 1);
    expect(cache.serialized("orders", { ...byDate, start_date: "2025-07-02" })).toBeNull(); // derived: lookup's job
    expect(cache.serialized("orders", byDate, Date.now() + (TTL_PAST + 1) * 1000)).toBeNull(); // expired
    expect(cache.serialized("orders", byDate)).not.toBeNull();
    // By key (the routes' kept keys), the same bytes under the same conditions.
    const key = queryKey("orders", byDate);
    expect(cache.serializedByKey(key)).toBe(cache.serialized("orders", byDate));
    expect(cache.serializedByKey(key, Date.now() + (TTL_PAST + 1) * 1000)).toBeNull();
    expect(cache.serializedByKey(queryKey("orders", { ...byDate, start_date: "2025-07-02" }))).toBeNull();
  });

  it("counts kept bytes toward its size bound, pushing out the least recently used", () => {
    const one = JSON.stringify(records).length;
    const q = (metric: string): ReportQuery => ({ ...byDate, metrics: [metric] });
    const scratch = new ReportCache(config);
    scratch.store("orders", q("attempts"), records, 1);
    const body = scratch.serialized("orders", q("attempts"))!.json.length;
    const max = one * 2 + body + 10; // room for two answers and one body
    const cache = new ReportCache({ ...config, cacheMaxBytes: max });
    cache.store("orders", q("attempts"), records, 1);
    cache.store("orders", q("approvals"), records, 1);
    expect(cache.serialized("orders", q("approvals"))).not.toBeNull();
    expect(cache.size).toBe(2);
    cache.serialized("orders", q("attempts")); // a second body does not fit beside both answers
    expect(cache.bytes).toBeLessThanOrEqual(max);
    expect(cache.size).toBe(1);
    expect(cache.lookup("orders", q("approvals"))).toBeNull(); // the least recently used went
    // A body that could never fit beside its own answer is served, not kept.
    const tiny = new ReportCache({ ...config, cacheMaxBytes: one + 5 });
    tiny.store("orders", byDate, records, 1);
    const served = tiny.serialized("orders", byDate)!;
    expect(JSON.parse(served.json.toString()).status.result.data).toEqual(records);
    expect(tiny.bytes).toBe(one);
    expect(tiny.size).toBe(1);
  });
});
