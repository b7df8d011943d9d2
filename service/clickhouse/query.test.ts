/** Which pre-aggregate a report reads (service/clickhouse/query.ts); its answers are checked against the reference in service/reports/reports.test.ts. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LIMITS, dimensionsFor, metricsFor, OPERATION_SCHEMAS, type ReportRequest } from "@/lib/contract";
import { planReport } from "../reports/compiler";
import { bindLiterals } from "./literals";
import { pageWindow, planClickHouseReport } from "./query";

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

describe("the ClickHouse dialect of the report compiler", () => {
  const duckTable = (sql: string) => /FROM (\w+) g WHERE/.exec(sql)?.[1];
  const order = (sql: string) => /ORDER BY ((?:"\w+" ASC NULLS LAST(?:, )?)+)/.exec(sql)?.[1] ?? "";
  const request = fc
    .record({
      op: fc.constantFrom("orders" as const, "cohort" as const),
      dims: fc.nat(),
      metrics: fc.nat(),
      filters: fc.nat(),
      limit: fc.integer({ min: 1, max: 1000 }),
      offset: fc.nat(10_000),
    })
    .map(({ op, dims, metrics, filters, limit, offset }) => {
      // Bits of each number pick which dimensions are grouped, which metrics asked, which filtered.
      const pickBits = <T,>(xs: readonly T[], bits: number) => xs.filter((_, i) => (bits >> i) % 2 === 1);
      const all = dimensionsFor(op);
      const filterOn = Object.fromEntries(
        pickBits(all, filters).map((d, i) => {
          const value = d.type === "date" ? "2025-06-03" : d.type === "integer" ? 2 : d.type === "decimal" ? 39.95 : (d.values?.[0] ?? "x'1");
          return [d.name, i % 3 === 0 ? null : i % 3 === 1 ? value : [value, null]];
        }),
      );
      const asked = pickBits(metricsFor(op), metrics).map((m) => m.name);
      const req = OPERATION_SCHEMAS[op].request.parse({
        ...range,
        group_by: pickBits(all, dims)
          .map((d) => d.name)
          .slice(0, LIMITS.maxGroupBy),
        ...(asked.length > 0 ? { metrics: asked } : {}),
        filters: filterOn,
        limit,
        offset,
      }) as ReportRequest;
      return { op, req };
    });

  it("overrides only the SQL: the same table, values, order and page as DuckDB's, every value bound as its placeholder's type", () => {
    fc.assert(
      fc.property(request, fc.boolean(), ({ op, req }, merged) => {
        const duck = planReport(op, req);
        const ch = planClickHouseReport(op, req, { ...at, uniqueGrain: merged });
        expect(table(ch.sql)).toBe(duckTable(duck.sql));
        expect([ch.dimensions, ch.metrics, ch.limit, ch.offset]).toEqual([duck.dimensions, duck.metrics, duck.limit, duck.offset]);
        expect(ch.countParams).toEqual(duck.countParams);
        expect(ch.params).toEqual([...duck.countParams, { int: duck.offset }, { int: duck.limit }]);
        expect(order(ch.sql)).toBe(order(duck.sql));
        // bindLiterals throws for a value whose kind is not its placeholder's cast.
        expect(() => bindLiterals(ch.sql, ch.params)).not.toThrow();
        expect(() => bindLiterals(ch.countSql, ch.countParams)).not.toThrow();
        if (ch.perDate) expect(() => bindLiterals(ch.perDate!.sql, ch.perDate!.params)).not.toThrow();
      }),
      { numRuns: 200 },
    );
  });
});
