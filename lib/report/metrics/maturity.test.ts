/**
 * Maturing rates: which measures mature (read from the catalog), the window's edges, a range that
 * spans mature and maturing periods, totals, the no-verdict rule for changes, the CSV's column and
 * the event-dated KPIs beside the attempt-dated ones.
 */
import { describe, expect, it } from "vitest";
import { addDays } from "@/lib/contract/dates";
import { getMetric, type ReportRecord } from "@/lib/contract";
import { tableToCsv } from "@/lib/report/table/csv";
import { buildReportView } from "@/lib/report/periods/view";
import { evaluate, KPIS, kpisFor, measureFor } from "./kpis";
import { sumRecords } from "./sums";
import { KPI_DESCRIPTIONS } from "./kpi-descriptions";
import {
  EVENT_DATED_KPIS,
  eventDatedKpi,
  swapKpis,
  withAttemptDatedKpis,
  isMaturing,
  MATURING_COLUMN,
  measureMaturity,
  withEventDatedKpis,
} from "./maturity";
import { MATURITY_WINDOW_DAYS } from "@/lib/contract/catalog";
import { buildPivot } from "@/lib/report/table/pivot";
import { buildViewTable, comparedId, maturingColumn } from "@/lib/report/table/table";
import { changeCells } from "@/lib/report/table/change";

const TODAY = "2026-06-30";
const m = (id: string) => measureFor(id, "orders")!;

describe("which measures mature", () => {
  it("is every rate or sum whose numerator counts late events dated by the sale, with its window from the one setting", () => {
    const maturing = Object.fromEntries(kpisFor("orders").flatMap((k) => (measureMaturity(m(k.id)) ? [[k.id, measureMaturity(m(k.id))!.window]] : [])));
    expect(maturing).toEqual({
      cb_rate_count: MATURITY_WINDOW_DAYS.chargebacks,
      cb_rate_amount: MATURITY_WINDOW_DAYS.chargebacks,
      refund_rate: MATURITY_WINDOW_DAYS.refunds,
      alert_rate: MATURITY_WINDOW_DAYS.alerts,
      // Net revenue less the chargebacks and refunds of its sales: as incomplete as they are.
      net_revenue: MATURITY_WINDOW_DAYS.chargebacks,
    });
    expect(MATURITY_WINDOW_DAYS).toEqual({ chargebacks: 120, refunds: 60, alerts: 60 });
    // A sale-dated count is as incomplete as its rate; it rises as they arrive, net revenue falls.
    expect(measureMaturity(m("cb_count"))).toEqual({ window: 120, sources: ["chargebacks"], moves: "rise" });
    expect(measureMaturity(m("refund_amount"))).toEqual({ window: 60, sources: ["refunds"], moves: "rise" });
    expect(measureMaturity(m("net_revenue"))?.moves).toBe("fall");
    // Attempt facts and the event-dated measures are complete for any past day.
    for (const id of ["attempts", "revenue", "approval_rate", "cb_count_by_cb_date", "cb_rate_count_by_cb_date", "alert_rate_by_alert_date"]) expect(measureMaturity(m(id)), id).toBeNull();
  });

  it("holds in cohorts too, where the events are dated by the customer's initial date", () => {
    expect(measureMaturity(measureFor("cb_rate_count", "cohort")!)?.window).toBe(120);
  });
});

describe("the window's edges", () => {
  const cb = measureMaturity(m("cb_rate_count"));
  const refunds = measureMaturity(m("refund_rate"));
  it("a period whose last day is exactly the window old is mature; one day younger is maturing", () => {
    expect(isMaturing(cb, addDays(TODAY, -120), TODAY)).toBe(false);
    expect(isMaturing(cb, addDays(TODAY, -119), TODAY)).toBe(true);
    expect(isMaturing(refunds, addDays(TODAY, -60), TODAY)).toBe(false);
    expect(isMaturing(refunds, addDays(TODAY, -59), TODAY)).toBe(true);
    expect(isMaturing(cb, TODAY, TODAY)).toBe(true);
  });
  it("marks nothing without a today or for a measure that does not mature", () => {
    expect(isMaturing(cb, TODAY, null)).toBe(false);
    expect(isMaturing(null, TODAY, TODAY)).toBe(false);
  });
});

/** Daily records from `start` to `end`: 100 approvals, 1 chargeback, 2 received by chargeback date. */
function days(start: string, end: string): ReportRecord[] {
  const out: ReportRecord[] = [];
  for (let d = start; d <= end; d = addDays(d, 1)) out.push({ date: d, approvals: 100, revenue: 1000, cb_count: 1, cb_count_by_cb_date: 2, refund_count: 3 });
  return out;
}
const METRICS = ["approvals", "revenue", "cb_count", "cb_count_by_cb_date", "refund_count"];

describe("a table over a range spanning mature and maturing periods", () => {
  // Months Jan..Jun 2026 as of 2026-06-30: a month is mature when it ended by 2026-03-02 (120 days).
  const range = { start: "2026-01-01", end: TODAY };
  const view = buildReportView({ op: "orders", groupBy: ["date"], metrics: METRICS, grain: "month", range, records: days(range.start, range.end) });
  const table = buildViewTable({ op: "orders", groupBy: ["date"], measures: ["cb_rate_count", "refund_rate", "cb_rate_count_by_cb_date", "cb_count"] }, view, { today: TODAY });
  const col = (id: string) => table.columns.findIndex((c) => c.id === id);

  it("marks each month by its own last day, per measure's window", () => {
    const marked = (id: string) => table.rows.map((r) => r.cells[col(id)]!.text.endsWith("(maturing)"));
    // Chargebacks (120 days): January and February ended before 2026-03-02; March did not.
    expect(marked("cb_rate_count")).toEqual([false, false, true, true, true, true]);
    // Refunds (60 days, mature by 2026-05-01): January to April are mature.
    expect(marked("refund_rate")).toEqual([false, false, false, false, true, true]);
    expect(marked("cb_rate_count_by_cb_date").some(Boolean)).toBe(false);
    expect(marked("cb_count")).toEqual(marked("cb_rate_count"));
    const march = table.rows[2]!.cells[col("cb_rate_count")]!;
    expect(march.text).toBe("1.00% (maturing)");
    expect(march.maturing).toBe(true);
    expect(march.note).toMatch(/^Chargebacks on sales this recent are still arriving: they come up to 120 days after the sale, and this period ended 91 days ago/);
  });

  it("marks the totals maturing when any part is", () => {
    expect(table.totals.cells[col("cb_rate_count")]!.text).toBe("1.00% (maturing)");
    const old = buildReportView({ op: "orders", groupBy: ["date"], metrics: METRICS, grain: "month", range: { start: "2026-01-01", end: "2026-02-28" }, records: days("2026-01-01", "2026-02-28") });
    const oldTable = buildViewTable({ op: "orders", groupBy: ["date"], measures: ["cb_rate_count"] }, old, { today: TODAY });
    expect(oldTable.totals.cells[1]!.text).toBe("1.00%");
    expect(oldTable.totals.cells[1]!.maturing).toBeUndefined();
  });

  it("marks a row not grouped by date by the range's last day", () => {
    const v = buildReportView({ op: "orders", groupBy: [], metrics: METRICS, grain: "day", range, records: days(range.start, range.end) });
    expect(buildViewTable({ op: "orders", groupBy: [], measures: ["cb_rate_count"] }, v, { today: TODAY }).rows[0]!.cells[1]!.maturing).toBe(true);
  });

  it("writes a Maturing column naming the row's maturing values, and no (maturing) in the numbers", () => {
    const csv = tableToCsv(table, table.rows, { lines: [] }).split("\r\n");
    const header = csv[1]!.split(",");
    expect(header.at(-1)).toBe(MATURING_COLUMN);
    expect(csv[2]!.split(",").at(-1)).toBe(""); // January
    expect(csv[4]!).toBe("2026-03,1,3,2,31,Chargeback rate (count); Chargebacks"); // March: its values as numbers, then the mark
    expect(csv[6]!.endsWith(",Chargeback rate (count); Refund rate; Chargebacks")).toBe(true); // May
    // A table whose measures cannot mature keeps its columns exactly.
    const plain = buildViewTable({ op: "orders", groupBy: ["date"], measures: ["attempts", "revenue", "cb_count_by_cb_date"] }, view, { today: TODAY });
    expect(maturingColumn(plain)).toBeNull();
  });

  it("marks the pivot's cells by their own days and its CSV by a last column", () => {
    const byBrand = buildReportView({
      op: "orders",
      groupBy: ["date", "card_brand"],
      metrics: METRICS,
      grain: "month",
      range,
      records: days(range.start, range.end).map((r) => ({ ...r, card_brand: "visa" })),
    });
    const p = buildPivot(byBrand, "cb_rate_count", { today: TODAY });
    if ("error" in p) throw new Error(p.error);
    expect(p.rows.map((r) => r.cells[0]!.maturing === true)).toEqual([false, false, true, true, true, true]);
    expect(p.grandTotal.maturing).toBe(true);
    expect(p.canMature).toBe(true);
  });
});

describe("no verdict between periods of different maturity", () => {
  const rate = m("cb_rate_count");
  it("keeps the sign, drops better/worse and the colour, and says why", () => {
    const [cell] = changeCells(rate, 0.0056, 0.01, { now: true, before: false });
    expect(cell!.text).toBe("\u22120.44 pp (maturing)");
    expect(cell!.tone).toBeUndefined();
    expect(cell!.note).toMatch(/^No better or worse: chargebacks on the more recent sales are still arriving/);
    // Both sides still maturing (at different ages) are not equally complete either.
    expect(changeCells(rate, 0.0056, 0.01, { now: true, before: true })[0]!.tone).toBeUndefined();
    // Both mature: judged as before.
    expect(changeCells(rate, 0.0056, 0.01, { now: false, before: false })[0]!.text).toBe("\u22120.44 pp (better)");
    // A measure that does not mature is judged whatever the days.
    expect(changeCells(m("approval_rate"), 0.5, 0.4, { now: true, before: false })[0]!.text).toBe("+10.00 pp (better)");
  });

  it("in the table: the last 30 days against the 30 before carry a signed change and no verdict", () => {
    const range = { start: addDays(TODAY, -29), end: TODAY };
    const cmpRange = { start: addDays(TODAY, -59), end: addDays(TODAY, -30) };
    const now = days(range.start, range.end);
    const before = days(cmpRange.start, cmpRange.end).map((r) => ({ ...r, cb_count: 2 }));
    const view = buildReportView({ op: "orders", groupBy: [], metrics: METRICS, grain: "day", range, records: now, comparison: { compare: { kind: "previous" }, range: cmpRange, records: before } });
    const t = buildViewTable({ op: "orders", groupBy: [], measures: ["cb_rate_count", "cb_rate_count_by_cb_date"] }, view, { today: TODAY });
    const cell = (id: string) => t.totals.cells[t.columns.findIndex((c) => c.id === id)]!;
    expect(cell("cb_rate_count").text).toBe("1.00% (maturing)");
    expect(cell(comparedId("cb_rate_count", "cmp")).text).toBe("2.00% (maturing)");
    expect(cell(comparedId("cb_rate_count", "chg")).text).toBe("\u22121.00 pp (maturing)");
    expect(cell(comparedId("cb_rate_count", "chg")).tone).toBeUndefined();
    // The event-dated rate is judged: it is complete on both sides.
    expect(cell(comparedId("cb_rate_count_by_cb_date", "chg")).text).toBe("0.00 pp");
    expect(cell("cb_rate_count_by_cb_date").maturing).toBeUndefined();
  });
});

describe("the event-dated KPIs", () => {
  it("pair each maturing KPI with one over the same denominator, its events dated by their arrival", () => {
    expect(EVENT_DATED_KPIS).toEqual({
      cb_rate_count: "cb_rate_count_by_cb_date",
      cb_rate_amount: "cb_rate_amount_by_cb_date",
      refund_rate: "refund_rate_by_refund_date",
      alert_rate: "alert_rate_by_alert_date",
    });
    for (const [from, to] of Object.entries(EVENT_DATED_KPIS)) {
      const a = KPIS.find((k) => k.id === from)!;
      const b = eventDatedKpi(a)!;
      expect(b.id).toBe(to);
      expect(b.denominator).toEqual(a.denominator);
      const num = getMetric(b.numerator[0]!.measure)!;
      expect(num.dateBasis).not.toBe("attempt");
      expect(num.source).toBe(getMetric(a.numerator[0]!.measure)!.source);
      expect(b.operations).toEqual(["orders"]);
      expect(KPI_DESCRIPTIONS[b.id as keyof typeof KPI_DESCRIPTIONS]).toMatch(/complete for any past period/);
    }
  });

  it("is the events received ÷ the period's sales", () => {
    const records = days("2026-01-01", "2026-01-31");
    const rate = m("cb_rate_count_by_cb_date");
    expect(evaluate(rate, sumRecords(records, ["cb_count_by_cb_date", "approvals"])).value).toBe((31 * 2) / (31 * 100));
  });

  it("swaps a report's maturing KPIs for their event-dated twins, keeping the rest and the order", () => {
    expect(withEventDatedKpis(["approval_rate", "cb_rate_count", "refund_rate"])).toEqual(["approval_rate", "cb_rate_count_by_cb_date", "refund_rate_by_refund_date"]);
    expect(withEventDatedKpis(["cb_rate_count", "cb_rate_count_by_cb_date"])).toEqual(["cb_rate_count_by_cb_date"]);
  });

  it("moves the sort, chart and pivot with the swap, and swaps back", () => {
    const s = { kpis: ["cb_rate_count", "approval_rate"], sort: { key: "cb_rate_count~chg", dir: "desc" as const }, pivotMeasure: null, chartMeasure: "cb_rate_count", chartMeasure2: "approval_rate" };
    const swapped = swapKpis(s, withEventDatedKpis);
    expect(swapped).toEqual({ kpis: ["cb_rate_count_by_cb_date", "approval_rate"], sort: { key: "cb_rate_count_by_cb_date~chg", dir: "desc" }, pivotMeasure: null, chartMeasure: "cb_rate_count_by_cb_date", chartMeasure2: "approval_rate" });
    expect(swapKpis(swapped, withAttemptDatedKpis)).toEqual(s);
  });
});
