/** Which pre-aggregate a report reads (service/clickhouse/plan.ts); its answers are checked against the reference in service/reports/reports.test.ts. */
import { describe, expect, it } from "vitest";
import { planClickHouseReport } from "./plan";

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
