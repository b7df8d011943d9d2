/** Which pre-aggregate a DuckDB report reads (answers are checked against the reference in reports.test.ts on every engine). */
import { describe, expect, it } from "vitest";
import { planReport } from "./compiler";

const range = { start_date: "2025-06-01", end_date: "2025-06-30" };
const table = (sql: string) => /FROM (\w+) g WHERE/.exec(sql)?.[1];

describe("the pre-aggregate a DuckDB report reads", () => {
  it("is the rollup unless the report groups or filters by a BIN or an affiliate, or a name read through one", () => {
    expect(table(planReport("orders", { ...range, group_by: ["date", "gateway_id"] }).sql)).toBe("order_grain_rollup");
    expect(table(planReport("orders", { ...range, group_by: ["gateway_alias"], filters: { sales_type: "Rebills" } }).sql)).toBe("order_grain_rollup");
    expect(table(planReport("cohort", { ...range, group_by: ["date", "billing_cycle"] }).sql)).toBe("cohort_grain_rollup");
    expect(table(planReport("orders", { ...range, group_by: ["card_brand"] }).sql)).toBe("order_grain");
    expect(table(planReport("orders", { ...range, group_by: ["date"], filters: { sub_affid: null } }).sql)).toBe("order_grain");
    expect(table(planReport("orders", range).sql)).toBe("order_grain");
  });

  it("reads the rollup's rows as they are when grouped by exactly its keys", () => {
    const keys = ["date", "campaign_id", "product_id", "gateway_id", "sales_type", "refund_type", "billing_cycle", "price_point", "alert_type"] as const;
    const plan = planReport("orders", { ...range, group_by: [...keys] });
    expect(table(plan.sql)).toBe("order_grain_rollup");
    // Its rows are the records: no aggregate, and the page is sought by date.
    const [agg, rest] = plan.sql.split(", days AS");
    expect(agg).toContain("NOT MATERIALIZED");
    expect(agg).not.toContain("GROUP BY");
    expect(rest).toBeDefined();
  });
});
