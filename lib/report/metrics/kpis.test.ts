import { describe, expect, it } from "vitest";
import { DIMENSIONS, METRICS, getMetric, metricsFor, OPERATIONS, type ReportRecord } from "@/lib/contract";
import { metricOf, KPIS, evaluate, evaluateRecord, kpisFor, measureFor, requiredMetrics } from "./kpis";
import { sumRecords, sumValue } from "./sums";
import { buildTable, cellTip, TOTALS_LABEL, ALL_ROWS_TEXT } from "@/lib/report/table/table";
import { sortRows } from "@/lib/report/table/sort";
import { exportValue, formatValue, formatInstant, formatDimensionValue } from "./format";

describe("the KPI registry", () => {
  it("maps every base measure to a metric the operation offers", () => {
    for (const op of OPERATIONS) {
      const names = new Set(metricsFor(op).map((m) => m.name));
      // Each KPI in the operations it is offered in (the event-dated rates are order-summary only).
      for (const base of new Set(kpisFor(op).flatMap((k) => [...k.numerator, ...(k.denominator ?? [])].map((t) => t.measure)))) {
        // initial_approved and cpa exist for both operations; the rest have a cohort twin in the catalog
        const m = metricOf(base, op);
        expect(names.has(m), `${base} → ${m} for ${op}`).toBe(true);
        if (op === "cohort" && m !== base) expect(getMetric(m)?.twin).toBe(base);
      }
    }
  });

  it("has unique ids that never collide with a metric or dimension name", () => {
    const ids = KPIS.map((k) => k.id);
    expect(new Set(ids).size).toBe(ids.length);
    const taken = new Set<string>([...METRICS.map((m) => m.name), ...DIMENSIONS.map((d) => d.name)]);
    for (const id of ids) expect(taken.has(id)).toBe(false);
  });

  it("offers a finance team's KPIs on the order summary", () => {
    expect(kpisFor("orders").map((k) => k.id)).toEqual([
      "approval_rate",
      "cb_rate_count",
      "cb_rate_amount",
      "refund_rate",
      "alert_rate",
      "cb_rate_count_by_cb_date",
      "cb_rate_amount_by_cb_date",
      "refund_rate_by_refund_date",
      "alert_rate_by_alert_date",
      "net_revenue",
      "aov",
    ]);
  });

  it("lists the metrics each KPI needs, per operation", () => {
    const net = KPIS.find((k) => k.id === "net_revenue")!;
    expect(requiredMetrics(net, "orders")).toEqual(["revenue", "refund_amount", "cb_amount"]);
    expect(requiredMetrics(net, "cohort")).toEqual(["revenue_by_initial_date", "refund_amount_by_initial_date", "cb_amount_by_initial_date"]);
  });
});

const rows: ReportRecord[] = [
  { product_id: 1, attempts: 10, approvals: 5, revenue: 100.1, refund_amount: 0.1, cb_amount: 0.2, cb_count: 1, refund_count: 0 },
  { product_id: 2, attempts: 90, approvals: 45, revenue: 0.2, refund_amount: 0, cb_amount: 0, cb_count: 0, refund_count: 3 },
];

describe("evaluation", () => {
  it("computes a rate on one row", () => {
    const e = evaluateRecord(measureFor("approval_rate", "orders")!, rows[0]!);
    expect(e).toEqual({ value: 0.5, numerator: 5, denominator: 10 });
  });

  it("computes totals as a ratio of sums, not an average of ratios", () => {
    const m = measureFor("cb_rate_count", "orders")!;
    const sums = sumRecords(rows, ["cb_count", "approvals"]);
    // ratios 1/5 = 20% and 0/45 = 0%: their mean is 10%, the ratio of sums is 1/50 = 2%
    expect(evaluate(m, sums).value).toBeCloseTo(0.02, 10);
  });

  it("adds amounts exactly (in cents)", () => {
    const sums = sumRecords([{ revenue: 0.1 }, { revenue: 0.2 }], ["revenue"]);
    expect(sumValue(sums, "revenue")).toBe(0.3);
    const net = measureFor("net_revenue", "orders")!;
    expect(evaluate(net, sumRecords(rows, ["revenue", "refund_amount", "cb_amount"])).value).toBe(100);
  });

  it("gives no value when the denominator is zero", () => {
    expect(evaluateRecord(measureFor("aov", "orders")!, { revenue: 0, approvals: 0 }).value).toBeNull();
  });

  it("treats a plain metric as a measure", () => {
    const m = measureFor("revenue", "orders")!;
    expect(m.kind).toBe("metric");
    expect(m.format).toBe("currency");
    expect(measureFor("revenue", "cohort")).toBeUndefined();
    expect(measureFor("net_revenue_per_customer", "orders")).toBeUndefined();
  });
});

describe("the table model", () => {
  const spec = { op: "orders" as const, groupBy: ["product_id"], measures: ["approvals", "revenue", "approval_rate", "net_revenue"] };

  it("has dimension, metric and KPI columns labelled from the catalog and the registry", () => {
    const t = buildTable(spec, rows);
    expect(t.columns.map((c) => c.label)).toEqual(["Product ID", "Approvals", "Revenue", "Approval rate", "Net revenue"]);
  });

  it("formats cells and totals; KPI totals are ratios of sums", () => {
    const t = buildTable(spec, rows);
    expect(t.rows[0]!.cells.map((c) => c.text)).toEqual(["1", "5", "$100.10", "50.00%", "$99.80"]);
    expect(t.totals.cells.map((c) => c.text)).toEqual([TOTALS_LABEL, "50", "$100.30", "50.00%", "$100.00"]);
    expect(t.totals.cells[3]).toMatchObject({ numerator: 50, denominator: 100 });
  });

  it("explains a KPI cell with its numerator and denominator", () => {
    const t = buildTable(spec, rows);
    expect(cellTip(t.columns[3]!, t.totals.cells[3]!)).toBe("Approvals = 50 ÷ Attempts = 100");
    expect(cellTip(t.columns[4]!, t.rows[0]!.cells[4]!)).toBe("Revenue − Refund amount − Chargeback amount = $99.80");
    expect(cellTip(t.columns[1]!, t.rows[0]!.cells[1]!)).toBeNull();
  });

  it("names the single row when nothing is grouped", () => {
    const t = buildTable({ ...spec, groupBy: [] }, [rows[0]!]);
    expect(t.rows[0]!.cells[0]!.text).toBe(ALL_ROWS_TEXT);
    expect(t.totals.cells[0]!.text).toBe(TOTALS_LABEL);
  });

  it("sorts by any column with empty values last in both directions", () => {
    const t = buildTable(spec, [...rows, { product_id: null, attempts: 0, approvals: 0, revenue: 0 }]);
    const byRate = (dir: "asc" | "desc") => sortRows(t, { key: "approval_rate", dir }).map((r) => r.cells[0]!.text);
    expect(byRate("asc")).toEqual(["1", "2", "(none)"]);
    expect(byRate("desc")).toEqual(["1", "2", "(none)"]); // equal rates keep the API's order
    expect(sortRows(t, { key: "revenue", dir: "desc" }).map((r) => r.cells[0]!.text)).toEqual(["1", "2", "(none)"]);
    expect(sortRows(t, { key: "product_id", dir: "desc" }).map((r) => r.cells[0]!.text)).toEqual(["2", "1", "(none)"]);
    expect(sortRows(t, null)).toBe(t.rows);
  });
});

describe("formats", () => {
  it("formats counts, currency and percents", () => {
    expect(formatValue(1234567, "count")).toBe("1,234,567");
    expect(formatValue(-1234.5, "currency")).toBe("-$1,234.50");
    expect(formatValue(0.12345, "percent")).toBe("12.35%");
    expect(formatValue(null, "percent")).toBe("—");
  });
  it("exports numbers as shown, without symbols", () => {
    expect(exportValue(0.12345, "percent")).toBe(12.35);
    expect(exportValue(10.005, "currency")).toBe(10.01);
    expect(exportValue(null, "count")).toBeNull();
  });
  it("writes dimension values plainly", () => {
    expect(formatDimensionValue("product_id", 1234)).toBe("1234");
    expect(formatDimensionValue("price_point", 19.9)).toBe("19.90");
    expect(formatDimensionValue("refund_type", null)).toBe("(none)");
  });
  it("shows instants in the report time zone", () => {
    expect(formatInstant("2025-07-31T22:30:00.000Z", "Europe/Berlin")).toBe("2025-08-01 00:30:00 Europe/Berlin");
    expect(formatInstant("2025-07-31T22:30:00.000Z", "UTC")).toBe("2025-07-31 22:30:00 UTC");
  });
});
