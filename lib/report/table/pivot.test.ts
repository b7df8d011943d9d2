import { describe, expect, it } from "vitest";
import type { ReportRecord } from "@/lib/contract/schemas";
import { buildReportView, type ViewInput } from "@/lib/report/periods/view";
import { buildPivot, isPivotError, OTHER_KEY, pivotToCsv, type PivotModel } from "./pivot";

const RANGE = { start: "2026-10-01", end: "2026-11-15" };

function view(records: ReportRecord[], over: Partial<ViewInput> = {}) {
  return buildReportView({
    op: "orders",
    groupBy: ["date", "card_brand"],
    metrics: ["attempts", "approvals", "revenue"],
    grain: "month",
    range: RANGE,
    records,
    ...over,
  });
}

function pivot(...args: Parameters<typeof buildPivot>): PivotModel {
  const p = buildPivot(...args);
  if (isPivotError(p)) throw new Error(p.error);
  return p;
}

const rec = (date: string, card_brand: string, attempts: number, approvals: number, revenue: number): ReportRecord => ({
  date,
  card_brand,
  attempts,
  approvals,
  revenue,
});

// Daily records: October whole, November cut at the 15th (partial).
const RECORDS: ReportRecord[] = [
  rec("2026-10-01", "VISA", 10, 9, 100.1),
  rec("2026-10-02", "VISA", 10, 1, 0.2),
  rec("2026-10-01", "MASTERCARD", 100, 50, 10.05),
  rec("2026-10-03", "AMEX", 1, 1, 99.99),
  rec("2026-11-02", "VISA", 20, 10, 5.5),
  rec("2026-11-14", "MASTERCARD", 40, 10, 1.01),
  rec("2026-11-15", "MASTERCARD", 0, 0, 0),
];

const col = (p: PivotModel, label: string) => p.columns.findIndex((c) => c.label === label);
const row = (p: PivotModel, text: string) => p.rows.find((r) => r.dims[0]?.text === text)!;

describe("buildPivot", () => {
  it("puts the last dimension in columns and the others in rows, dates as their period", () => {
    const p = pivot(view(RECORDS), "revenue");
    expect(p.rowDimensions).toEqual([{ id: "date", label: "Month" }]);
    expect(p.columnDimension).toEqual({ id: "card_brand", label: "Card brand" });
    expect(p.measure).toEqual({ id: "revenue", label: "Revenue", format: "currency" });
    expect(p.rows.map((r) => r.dims[0]?.text)).toEqual(["2026-10", "2026-11 (partial)"]);
    expect(p.folded).toBe(0);
    expect(p.notes).toEqual([]);
  });

  it("marks a partial period with the days it covers", () => {
    const p = pivot(view(RECORDS), "revenue");
    expect(row(p, "2026-10").dims[0]).toEqual({ text: "2026-10" });
    expect(row(p, "2026-11 (partial)").dims[0]).toEqual({
      text: "2026-11 (partial)",
      title: "Only 2026-11-01 to 2026-11-15 of 2026-11-01 to 2026-11-30 is in the range.",
    });
  });

  it("makes each cell the sum of the records in it, in exact cents", () => {
    const p = pivot(view(RECORDS), "revenue");
    const oct = row(p, "2026-10");
    const nov = row(p, "2026-11 (partial)");
    expect(oct.cells[col(p, "VISA")]).toMatchObject({ value: 100.3, text: "$100.30", empty: false });
    expect(oct.cells[col(p, "MASTERCARD")]).toMatchObject({ value: 10.05, empty: false });
    expect(oct.cells[col(p, "AMEX")]).toMatchObject({ value: 99.99, empty: false });
    expect(nov.cells[col(p, "VISA")]).toMatchObject({ value: 5.5, empty: false });
    expect(nov.cells[col(p, "MASTERCARD")]).toMatchObject({ value: 1.01, empty: false });
  });

  it("adds row totals across columns, column totals down rows, and a grand total of every record", () => {
    const p = pivot(view(RECORDS), "revenue");
    for (const r of p.rows) {
      const cents = r.cells.reduce((s, c) => s + Math.round((c.value ?? 0) * 100), 0);
      expect(r.total.value).toBe(cents / 100);
    }
    expect(row(p, "2026-10").total.value).toBe(210.34);
    expect(row(p, "2026-11 (partial)").total.value).toBe(6.51);
    expect(p.columnTotals[col(p, "VISA")]?.value).toBe(105.8);
    expect(p.columnTotals[col(p, "MASTERCARD")]?.value).toBe(11.06);
    expect(p.columnTotals[col(p, "AMEX")]?.value).toBe(99.99);
    expect(p.grandTotal).toMatchObject({ value: 216.85, text: "$216.85", empty: false });
    const attempts = pivot(view(RECORDS), "attempts");
    expect(attempts.grandTotal.value).toBe(RECORDS.reduce((s, r) => s + Number(r.attempts), 0));
  });

  it("orders columns by total weight (a rate's denominator), ties by name", () => {
    // Revenue: VISA 105.80, AMEX 99.99, MASTERCARD 11.06.
    expect(pivot(view(RECORDS), "revenue").columns.map((c) => c.label)).toEqual(["VISA", "AMEX", "MASTERCARD"]);
    // Approval rate weighs by attempts: MASTERCARD 140, VISA 40, AMEX 1.
    expect(pivot(view(RECORDS), "approval_rate").columns.map((c) => c.label)).toEqual(["MASTERCARD", "VISA", "AMEX"]);
    const tied = [rec("2026-10-01", "VISA", 5, 1, 1), rec("2026-10-01", "AMEX", 5, 1, 1), rec("2026-10-01", "DISCOVER", 5, 1, 1)];
    expect(pivot(view(tied), "attempts").columns.map((c) => c.label)).toEqual(["AMEX", "DISCOVER", "VISA"]);
  });

  it("shows an empty cell as 0 for a sum and — for a rate, marked empty unlike a real zero", () => {
    const sum = pivot(view(RECORDS), "revenue");
    const empty = row(sum, "2026-11 (partial)").cells[col(sum, "AMEX")]!;
    expect(empty).toEqual({ value: 0, text: "$0.00", empty: true, note: "No records" });
    const rate = pivot(view(RECORDS), "approval_rate");
    expect(row(rate, "2026-11 (partial)").cells[col(rate, "AMEX")]).toMatchObject({ value: null, text: "—", empty: true });
    // A record of zeros is a real zero: not empty.
    const zero = pivot(view([rec("2026-10-01", "VISA", 0, 0, 0), rec("2026-10-01", "AMEX", 1, 1, 1)]), "revenue");
    expect(zero.rows[0]?.cells[col(zero, "VISA")]).toMatchObject({ value: 0, text: "$0.00", empty: false });
  });

  it("evaluates KPI cells and totals as ratios of sums, never averages of ratios", () => {
    const p = pivot(view(RECORDS), "approval_rate");
    const oct = row(p, "2026-10");
    const nov = row(p, "2026-11 (partial)");
    expect(oct.cells[col(p, "VISA")]?.value).toBeCloseTo(10 / 20, 12);
    expect(oct.cells[col(p, "VISA")]?.note).toBe("Approvals = 10 ÷ Attempts = 20");
    // October: (10 + 50 + 1) / (20 + 100 + 1); the average of the three ratios would be (0.5 + 0.5 + 1) / 3.
    expect(oct.total.value).toBeCloseTo(61 / 121, 12);
    expect(oct.total.value).not.toBeCloseTo((0.5 + 0.5 + 1) / 3, 3);
    // MASTERCARD down both months: (50 + 10) / (100 + 40), not the mean of 0.5 and 0.25.
    expect(p.columnTotals[col(p, "MASTERCARD")]?.value).toBeCloseTo(60 / 140, 12);
    expect(nov.total.value).toBeCloseTo(20 / 60, 12);
    expect(p.grandTotal.value).toBeCloseTo(81 / 181, 12);
    expect(p.grandTotal.text).toBe("44.75%");
  });

  it("adds amounts in cents: 1000 × $0.10 is exactly $100", () => {
    const records = Array.from({ length: 1000 }, (_, i) => rec(`2026-10-${String((i % 28) + 1).padStart(2, "0")}`, i % 2 ? "VISA" : "AMEX", 1, 1, 0.1));
    const p = pivot(view(records), "revenue");
    expect(p.grandTotal.value).toBe(100);
    expect(p.grandTotal.text).toBe("$100.00");
    expect(p.columnTotals.map((c) => c.value)).toEqual([50, 50]);
    expect(row(p, "2026-10").total.value).toBe(100);
    // The float sum drifts; the pivot does not.
    expect(records.reduce((s, r) => s + Number(r.revenue), 0)).not.toBe(100);
  });

  it("folds the smallest values beyond 24 into Other, evaluated on their summed sums", () => {
    // 30 affiliates; affiliate i has 10 (i + 1) attempts in October (and one more in November when i
    // is even), so the heaviest is A29 and the seven lightest are A00 to A06.
    const records: ReportRecord[] = [];
    for (let i = 0; i < 30; i++) {
      const affid = `A${String(i).padStart(2, "0")}`;
      records.push({ date: "2026-10-05", affid, attempts: 10 * (i + 1), approvals: 3 * i, revenue: 0.01 });
      if (i % 2 === 0) records.push({ date: "2026-11-05", affid, attempts: 1, approvals: 1, revenue: 0.01 });
    }
    const v = view(records, { groupBy: ["date", "affid"] });
    const p = pivot(v, "approval_rate");
    expect(p.columns).toHaveLength(24);
    expect(p.folded).toBe(7);
    expect(p.notes).toEqual(["7 smaller values folded into Other."]);
    const other = p.columns[23]!;
    expect(other).toMatchObject({ key: OTHER_KEY, label: "Other", isOther: true });
    expect(other.title).toContain("7 smaller values summed");
    expect(p.columns.slice(0, 23).every((c) => !c.isOther)).toBe(true);
    expect(p.columns[0]?.label).toBe("A29");
    expect(p.columns.slice(0, 23).map((c) => c.label)).not.toContain("A06");
    const foldedIds = ["A00", "A01", "A02", "A03", "A04", "A05", "A06"];
    const foldedRecs = records.filter((r) => foldedIds.includes(String(r.affid)));
    const sum = (rs: ReportRecord[], k: string) => rs.reduce((s, r) => s + Number(r[k]), 0);
    expect(p.columnTotals[23]?.value).toBeCloseTo(sum(foldedRecs, "approvals") / sum(foldedRecs, "attempts"), 12);
    const oct = foldedRecs.filter((r) => r.date === "2026-10-05");
    expect(row(p, "2026-10").cells[23]?.value).toBeCloseTo(sum(oct, "approvals") / sum(oct, "attempts"), 12);
    // Totals still cover everything, folded or not.
    expect(p.grandTotal.value).toBeCloseTo(sum(records, "approvals") / sum(records, "attempts"), 12);
    const attempts = pivot(v, "attempts");
    for (const r of attempts.rows) expect(r.total.value).toBe(r.cells.reduce((s, c) => s + (c.value ?? 0), 0));
    expect(attempts.columnTotals.reduce((s, c) => s + (c.value ?? 0), 0)).toBe(attempts.grandTotal.value);
    // A smaller limit folds more; exactly the limit folds nothing.
    expect(pivot(v, "attempts", { maxColumns: 10 }).folded).toBe(21);
    expect(pivot(v, "attempts", { maxColumns: 30 }).folded).toBe(0);
  });

  it("takes the rows as the combinations of every dimension but the last", () => {
    const records: ReportRecord[] = [
      { date: "2026-10-01", product_id: 2, card_brand: "VISA", attempts: 3, approvals: 1, revenue: 1 },
      { date: "2026-10-09", product_id: 10, card_brand: "AMEX", attempts: 4, approvals: 1, revenue: 1 },
      { date: "2026-10-20", product_id: 2, card_brand: "AMEX", attempts: 5, approvals: 1, revenue: 1 },
      { date: "2026-11-01", product_id: 2, card_brand: "VISA", attempts: 6, approvals: 1, revenue: 1 },
    ];
    const p = pivot(view(records, { groupBy: ["date", "product_id", "card_brand"] }), "attempts");
    expect(p.rowDimensions.map((d) => d.id)).toEqual(["date", "product_id"]);
    expect(p.rows.map((r) => r.dims.map((d) => d.text))).toEqual([
      ["2026-10", "2"],
      ["2026-10", "10"],
      ["2026-11 (partial)", "2"],
    ]);
    expect(p.rows[0]?.cells.map((c) => c.value)).toEqual([5, 3]); // AMEX 5 (heavier: 9), VISA 3
    expect(p.rows[0]?.total.value).toBe(8);
  });

  it("orders date columns in time, whatever their weight", () => {
    const records = [
      { card_brand: "VISA", date: "2026-10-01", attempts: 1, approvals: 1, revenue: 1 },
      { card_brand: "VISA", date: "2026-11-01", attempts: 9, approvals: 1, revenue: 1 },
    ];
    const p = pivot(view(records, { groupBy: ["card_brand", "date"] }), "attempts");
    expect(p.columns.map((c) => c.label)).toEqual(["2026-10", "2026-11 (partial)"]);
    expect(p.columns[1]?.title).toContain("Only 2026-11-01 to 2026-11-15");
  });

  it("refuses one dimension, an unknown measure, another operation's KPI and an unfetched metric", () => {
    expect(buildPivot(view(RECORDS, { groupBy: ["date"] }), "revenue")).toEqual({ error: expect.stringContaining("two grouped dimensions") });
    expect(buildPivot(view(RECORDS, { groupBy: [] }), "revenue")).toHaveProperty("error");
    expect(buildPivot(view(RECORDS), "nope")).toHaveProperty("error");
    expect(buildPivot(view(RECORDS), "net_revenue_per_customer")).toHaveProperty("error");
    expect(buildPivot(view(RECORDS), "cb_count")).toEqual({ error: expect.stringContaining("did not fetch") });
  });

  it("shows the report's own period only when there is a comparison, and says so", () => {
    const v = view(RECORDS, {
      comparison: {
        compare: { kind: "previous" },
        range: { start: "2026-08-16", end: "2026-09-30" },
        records: [rec("2026-08-20", "DISCOVER", 1000, 1000, 1000), rec("2026-09-02", "VISA", 500, 500, 500)],
      },
    });
    const p = pivot(v, "revenue");
    expect(p.comparison).toBe(true);
    expect(p.notes).toEqual(["The pivot shows the report's own period only; the comparison is shown in the rows layout."]);
    expect(p.columns.map((c) => c.label)).not.toContain("DISCOVER");
    expect(p.grandTotal.value).toBe(216.85);
  });

  it("has an empty grand total with no records", () => {
    const p = pivot(view([]), "approval_rate");
    expect(p.rows).toEqual([]);
    expect(p.columns).toEqual([]);
    expect(p.grandTotal).toMatchObject({ value: null, text: "—", empty: true });
  });
});

describe("pivotToCsv", () => {
  it("writes a header, one line per row with its Total, and a Totals line", () => {
    const csv = pivotToCsv(pivot(view(RECORDS), "revenue"));
    expect(csv.split("\r\n")).toEqual([
      "Month,VISA (USD),AMEX (USD),MASTERCARD (USD),Total (USD)",
      "2026-10,100.3,99.99,10.05,210.34",
      "2026-11 (partial),5.5,0,1.01,6.51",
      "Totals,105.8,99.99,11.06,216.85",
      "",
    ]);
  });

  it("writes rates in percent units, empty rates as nothing, and pads the Totals line under every row dimension", () => {
    const records: ReportRecord[] = [
      { date: "2026-10-01", product_id: 2, card_brand: "VISA", attempts: 3, approvals: 1, revenue: 1 },
      { date: "2026-10-09", product_id: 10, card_brand: "AMEX", attempts: 4, approvals: 1, revenue: 1 },
    ];
    const csv = pivotToCsv(pivot(view(records, { groupBy: ["date", "product_id", "card_brand"] }), "approval_rate"), {
      lines: [["Range", "2026-10-01 to 2026-11-15"]],
    });
    expect(csv.split("\r\n")).toEqual([
      "Range,2026-10-01 to 2026-11-15",
      "Pivot,Approval rate: Month > Product ID by Card brand",
      "",
      "Month,Product ID,AMEX (%),VISA (%),Total (%)",
      "2026-10,2,,33.33,33.33",
      "2026-10,10,25,,25",
      "Totals,,25,33.33,28.57",
      "",
    ]);
  });
});
