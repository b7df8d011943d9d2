/** Which pre-aggregate a report reads (service/clickhouse/plan.ts); its answers are checked against the reference in service/reports/reports.test.ts. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pageWindow, planClickHouseReport } from "./plan";

const at = { database: "payments_v", cluster: null, uniqueGrain: true };
const range = { start_date: "2025-06-01", end_date: "2025-06-30" };
const table = (sql: string) => /FROM payments_v\.(\w+) AS g/.exec(sql)?.[1];

describe("the pre-aggregate a report reads", () => {
  it("is the rollup unless the report groups or filters by a BIN or an affiliate", () => {
    expect(table(planClickHouseReport("orders", { ...range, group_by: ["date", "gateway_id"] }, at).sql)).toBe("order_grain_rollup");
    expect(table(planClickHouseReport("cohort", { ...range, group_by: ["date", "billing_cycle"] }, at).sql)).toBe("cohort_grain_rollup");
    expect(table(planClickHouseReport("orders", { ...range, group_by: ["card_brand"] }, at).sql)).toBe("order_grain");
    expect(table(planClickHouseReport("orders", { ...range, group_by: ["date"], filters: { affid: "a1" } }, at).sql)).toBe("order_grain");
    expect(table(planClickHouseReport("orders", range, at).sql)).toBe("order_grain");
  });

  it("reads a merged table's rows as they are only when the report groups by exactly its keys", () => {
    expect(planClickHouseReport("orders", range, at).sql).not.toContain("GROUP BY");
    expect(planClickHouseReport("orders", range, { ...at, uniqueGrain: false }).sql).toContain("GROUP BY");
    expect(planClickHouseReport("orders", { ...range, group_by: ["date"] }, at).sql).toContain("GROUP BY");
  });
});

describe("a page of records ordered by date first", () => {
  it("is asked over the dates that hold it, from the records per date, when each record is one row of a merged table", () => {
    expect(planClickHouseReport("orders", range, at).perDate?.sql).toMatch(/GROUP BY g\."date" ORDER BY g\."date"$/);
    expect(planClickHouseReport("cohort", range, at).perDate).toBeDefined();
    expect(planClickHouseReport("orders", { ...range, group_by: ["date", "campaign_id", "product_id", "gateway_id", "sales_type", "refund_type", "billing_cycle", "price_point", "alert_type"] }, at).perDate).toBeDefined();
    // Not merged, aggregated, ordered by something else first, named by a name without its key, or already narrowed.
    expect(planClickHouseReport("orders", range, { ...at, uniqueGrain: false }).perDate).toBeUndefined();
    expect(planClickHouseReport("orders", { ...range, group_by: ["date", "gateway_id"] }, at).perDate).toBeUndefined();
    expect(planClickHouseReport("orders", { ...range, group_by: ["gateway_id", "date", "campaign_id", "product_id", "sales_type", "refund_type", "billing_cycle", "price_point", "alert_type"] }, at).perDate).toBeUndefined();
    expect(planClickHouseReport("orders", range, { ...at, window: true }).perDate).toBeUndefined();
  });

  it("tests rows for a non-zero metric only when some metric is not asked for (every grain row has one)", () => {
    expect(planClickHouseReport("orders", range, at).sql).not.toContain("!= 0");
    expect(planClickHouseReport("orders", { ...range, metrics: ["revenue", "cb_count"] }, at).sql).toContain(`(g."revenue" != 0 OR g."cb_count" != 0)`);
    expect(planClickHouseReport("orders", { ...range, metrics: ["revenue"] }, at).perDate?.sql).toContain(`(g."revenue" != 0)`);
  });

  it("pageWindow: the dates holding the page, and the records of those dates before it, for any counts", () => {
    const day = (i: number) => `2025-01-${String(i + 1).padStart(2, "0")}`;
    fc.assert(
      fc.property(fc.array(fc.nat(5), { maxLength: 25 }), fc.nat(80), fc.integer({ min: 1, max: 30 }), (counts, offset, limit) => {
        // Every record as its date, in order: the page is a slice of it.
        const records = counts.flatMap((n, i) => Array.from({ length: n }, () => day(i)));
        const page = records.slice(offset, offset + limit);
        const perDate = counts.map((n, i) => ({ d: day(i), n })).filter((r) => r.n > 0);
        const window = pageWindow(perDate, offset, limit);
        if (page.length === 0) {
          expect(window).toBeNull();
          return;
        }
        const within = records.filter((d) => d >= window!.from && d <= window!.to);
        expect(within.slice(window!.skip, window!.skip + limit)).toEqual(page);
        // As narrow as it can be: the first and last dates hold records of the page.
        expect(window!.from).toBe(page[0]);
        expect(window!.to).toBe(page.at(-1));
      }),
      { numRuns: 2000 },
    );
  });
});
