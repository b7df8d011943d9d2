import { describe, expect, it } from "vitest";
import { addDays } from "@/lib/contract/dates";
import { exactCents, toCents } from "@/lib/contract/money";
import type { ReportRecord } from "@/lib/contract/schemas";
import { evaluateRecord, measureFor } from "@/lib/report/metrics/kpis";
import { sumRecords } from "@/lib/report/metrics/sums";
import { comparisonRange, type CompareSelection } from "./compare";
import { TIME_GRAINS, type DayRange, type TimeGrain } from "./grain";
import { compareRows, rollUp, type ComparedRow, type CompareSpec, type RollUpSpec } from "./rollup";
import { buildReportView } from "./view";

const METRICS = ["attempts", "approvals", "revenue", "refund_amount"] as const;

function daysOf(range: DayRange): string[] {
  const out: string[] = [];
  for (let d = range.start; d <= range.end; d = addDays(d, 1)) out.push(d);
  return out;
}

/** A day's record with amounts that are not exact in binary floating point. */
function day(date: string, attempts: number, approvals: number, revenue: number, extra: ReportRecord = {}): ReportRecord {
  return { date, attempts, approvals, revenue, refund_amount: 0, ...extra };
}

/** One record a day, with varied but reproducible metrics (amounts with cents). */
function dailyRecords(range: DayRange, dims: ReportRecord = {}, seed = 1): ReportRecord[] {
  return daysOf(range).map((date, i) => {
    const n = (i * 7919 + seed * 104729) % 1000;
    return { date, ...dims, attempts: 10 + (n % 17), approvals: 3 + (n % 7), revenue: (n * 37 + 99) / 100, refund_amount: (n % 13) / 10 };
  });
}

function spec(range: DayRange, grain: TimeGrain, groupBy: readonly string[] = ["date"]): RollUpSpec {
  return { groupBy, metrics: METRICS, grain, range };
}

function compareSpec(range: DayRange, grain: TimeGrain, compare: CompareSelection, groupBy: readonly string[] = ["date"]): CompareSpec {
  return { ...spec(range, grain, groupBy), compare, comparisonRange: comparisonRange(range, compare)! };
}

/** Cents (or counts) of a metric over records: the exact total. */
function unitsOf(records: readonly (ReportRecord | undefined)[], metric: string): number {
  let total = 0;
  for (const r of records) {
    const v = r?.[metric];
    if (typeof v === "number") total += metric === "revenue" || metric === "refund_amount" ? toCents(v) : v;
  }
  return total;
}

const byLabel = (rows: readonly { period: { label: string } | null }[]) => rows.map((r) => r.period?.label ?? null);

describe("rollUp", () => {
  it("rolls a leap February up by month: 28 and 29 February together, 1 March apart", () => {
    const range = { start: "2024-02-28", end: "2024-03-01" };
    const rows = rollUp([day("2024-02-28", 10, 4, 19.99), day("2024-02-29", 20, 5, 0.1), day("2024-03-01", 30, 6, 0.2)], spec(range, "month"));
    expect(rows).toEqual([
      {
        record: { date: "2024-02-01", attempts: 30, approvals: 9, revenue: 20.09, refund_amount: 0 },
        period: { start: "2024-02-01", end: "2024-02-29", label: "2024-02", from: "2024-02-28", to: "2024-02-29", partial: true },
      },
      {
        record: { date: "2024-03-01", attempts: 30, approvals: 6, revenue: 0.2, refund_amount: 0 },
        period: { start: "2024-03-01", end: "2024-03-31", label: "2024-03", from: "2024-03-01", to: "2024-03-01", partial: true },
      },
    ]);
  });

  it("keeps every day its own row at day grain", () => {
    const range = { start: "2024-02-28", end: "2024-03-01" };
    const records = [day("2024-02-28", 10, 4, 19.99), day("2024-02-29", 20, 5, 0.1), day("2024-03-01", 30, 6, 0.2)];
    const rows = rollUp(records, spec(range, "day"));
    expect(rows.map((r) => r.record)).toEqual(records);
    expect(rows.every((r) => r.period && !r.period.partial)).toBe(true);
  });

  it("rolls up ISO week 53 across the new year into one row dated on its Monday", () => {
    const range = { start: "2020-12-28", end: "2021-01-04" };
    const rows = rollUp(dailyRecords(range), spec(range, "week"));
    expect(byLabel(rows)).toEqual(["2020-W53", "2021-W01"]);
    expect(rows[0]!.record.date).toBe("2020-12-28");
    expect(rows[0]!.period).toMatchObject({ from: "2020-12-28", to: "2021-01-03", partial: false });
    expect(rows[1]!.record.date).toBe("2021-01-04");
    expect(rows[1]!.period).toMatchObject({ from: "2021-01-04", to: "2021-01-04", partial: true });
    expect(rows[0]!.record.attempts).toBe(unitsOf(dailyRecords(range).slice(0, 7), "attempts"));
  });

  it("marks the first week of a mid-week range partial and sums only its days in the range", () => {
    // Wednesday 18 November to Sunday 29 November 2026.
    const range = { start: "2026-11-18", end: "2026-11-29" };
    const records = daysOf(range).map((d) => day(d, 1, 1, 1));
    const rows = rollUp(records, spec(range, "week"));
    expect(rows.map((r) => [r.period?.label, r.record.date, r.record.attempts, r.period?.partial])).toEqual([
      ["2026-W47", "2026-11-16", 5, true],
      ["2026-W48", "2026-11-23", 7, false],
    ]);
  });

  it("keeps the other grouped dimensions in the key", () => {
    const range = { start: "2026-03-30", end: "2026-04-02" };
    const records = [
      day("2026-03-30", 1, 1, 1.01, { card_brand: "visa" }),
      day("2026-03-31", 2, 1, 2.02, { card_brand: "mastercard" }),
      day("2026-03-31", 4, 2, 4.04, { card_brand: "visa" }),
      day("2026-04-01", 8, 3, 8.08, { card_brand: "visa" }),
      day("2026-04-02", 16, 4, 16.16, { card_brand: null }),
    ];
    const rows = rollUp(records, spec(range, "quarter", ["date", "card_brand"]));
    expect(rows.map((r) => [r.period?.label, r.record.card_brand, r.record.attempts, r.record.revenue])).toEqual([
      ["2026-Q1", "visa", 5, 5.05],
      ["2026-Q1", "mastercard", 2, 2.02],
      ["2026-Q2", "visa", 8, 8.08],
      ["2026-Q2", null, 16, 16.16],
    ]);
    // Only grouped dimensions and the requested metrics survive.
    expect(Object.keys(rows[0]!.record).sort()).toEqual(["approvals", "attempts", "card_brand", "date", "refund_amount", "revenue"]);
  });

  it("adds everything into one row per key when not grouped by date, with no period", () => {
    const range = { start: "2026-01-01", end: "2026-01-31" };
    const records = [...dailyRecords(range, { card_brand: "visa" }, 1), ...dailyRecords(range, { card_brand: "amex" }, 2)];
    const rows = rollUp(records, spec(range, "month", ["card_brand"]));
    expect(rows.map((r) => r.record.card_brand)).toEqual(["visa", "amex"]);
    expect(rows.every((r) => r.period === null && !("date" in r.record))).toBe(true);
    expect(toCents(rows[0]!.record.revenue as number)).toBe(unitsOf(records.slice(0, 31), "revenue"));
  });

  it("counts a missing metric as zero and reads amounts that travel as strings", () => {
    const range = { start: "2026-05-01", end: "2026-05-02" };
    const rows = rollUp([{ date: "2026-05-01", attempts: 3, revenue: "19.99" }, { date: "2026-05-02", approvals: 2, revenue: 0.01 }], spec(range, "month"));
    expect(rows[0]!.record).toEqual({ date: "2026-05-01", attempts: 3, approvals: 2, revenue: 20, refund_amount: 0 });
  });
});

describe("exact money in roll-ups", () => {
  it("sums 19.99 a day over a 31-day month to exactly 619.69", () => {
    const range = { start: "2026-01-01", end: "2026-01-31" };
    const records = daysOf(range).map((d) => day(d, 1, 1, 19.99));
    // Plain floating point addition drifts…
    expect(records.reduce((s, r) => s + (r.revenue as number), 0)).not.toBe(619.69);
    // …the roll-up does not.
    for (const grain of ["month", "quarter", "year"] as const) {
      const rows = rollUp(records, spec(range, grain));
      expect(rows).toHaveLength(1);
      expect(rows[0]!.record.revenue).toBe(619.69);
    }
  });

  it("sums 0.1 and 0.2 to exactly 0.3", () => {
    const range = { start: "2026-02-01", end: "2026-02-02" };
    const rows = rollUp([day("2026-02-01", 1, 1, 0.1, { refund_amount: 0.7 }), day("2026-02-02", 1, 1, 0.2, { refund_amount: 0.1 })], spec(range, "week"));
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(rows.map((r) => r.record.revenue)).toEqual([0.1, 0.2]); // two ISO weeks: Sunday 1 and Monday 2 February
    const month = rollUp([day("2026-02-01", 1, 1, 0.1, { refund_amount: 0.7 }), day("2026-02-02", 1, 1, 0.2, { refund_amount: 0.1 })], spec(range, "month"));
    expect(month[0]!.record.revenue).toBe(0.3);
    expect(month[0]!.record.refund_amount).toBe(0.8);
  });

  it("keeps the total of every grain equal to the cents total of the days (a leap year and more)", () => {
    const range = { start: "2023-12-15", end: "2025-01-20" };
    const records = [...dailyRecords(range, { card_brand: "visa" }, 3), ...dailyRecords(range, { card_brand: "mastercard" }, 5)];
    for (const grain of TIME_GRAINS) {
      const rows = rollUp(records, spec(range, grain, ["date", "card_brand"]));
      for (const m of METRICS) {
        expect(unitsOf(rows.map((r) => r.record), m), `${m} by ${grain}`).toBe(unitsOf(records, m));
        // Each row's amount is a whole number of cents.
        if (m === "revenue" || m === "refund_amount") for (const r of rows) expect(exactCents(r.record[m] as number), `${m} by ${grain}`).not.toBeNull();
      }
    }
  });

  it("leaves KPIs to be evaluated on the sums: a month's approval rate is the ratio of sums, not a mean of daily rates", () => {
    const range = { start: "2026-04-01", end: "2026-04-30" };
    // A quiet day with a perfect rate and a busy day with a poor one.
    const records = [day("2026-04-01", 1, 1, 10), day("2026-04-02", 99, 9, 90)];
    const [row] = rollUp(records, spec(range, "month"));
    expect(row!.record).toMatchObject({ attempts: 100, approvals: 10 });
    const rate = measureFor("approval_rate", "orders")!;
    const monthRate = evaluateRecord(rate, row!.record).value;
    expect(monthRate).toBe(10 / 100);
    const meanOfDaily = (1 / 1 + 9 / 99) / 2;
    expect(monthRate).not.toBeCloseTo(meanOfDaily, 3);
    // Average order value likewise: revenue ÷ approvals of the sums.
    expect(evaluateRecord(measureFor("aov", "orders")!, row!.record).value).toBe(100 / 10);
    // The same as evaluating on the raw days' sums.
    const sums = sumRecords(records, ["attempts", "approvals"]);
    expect(monthRate).toBe(sums.get("approvals")! / sums.get("attempts")!);
  });
});

describe("compareRows", () => {
  it("puts all of a 30-day range's previous period beside November at month grain", () => {
    const range = { start: "2026-11-01", end: "2026-11-30" };
    const s = compareSpec(range, "month", { kind: "previous" });
    expect(s.comparisonRange).toEqual({ start: "2026-10-02", end: "2026-10-31" });
    const current = dailyRecords(range, {}, 1);
    const comparison = dailyRecords(s.comparisonRange, {}, 2);
    const rows = compareRows(current, comparison, s);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row!.period).toMatchObject({ label: "2026-11", partial: false });
    expect(row!.presence).toBe("both");
    expect(row!.compared).toEqual({ start: "2026-10-02", end: "2026-10-31" });
    expect(row!.comparison.date).toBe("2026-11-01");
    for (const m of METRICS) {
      expect(unitsOf([row!.record], m)).toBe(unitsOf(current, m));
      expect(unitsOf([row!.comparison], m)).toBe(unitsOf(comparison, m));
    }
  });

  it("places previous-period days by position at week grain, the compared span following", () => {
    // Wednesday 18 to Sunday 29 November; the previous 12 days are 6–17 November.
    const range = { start: "2026-11-18", end: "2026-11-29" };
    const s = compareSpec(range, "week", { kind: "previous" });
    expect(s.comparisonRange).toEqual({ start: "2026-11-06", end: "2026-11-17" });
    const rows = compareRows(
      daysOf(range).map((d) => day(d, 1, 1, 1)),
      daysOf(s.comparisonRange).map((d) => day(d, 10, 1, 1)),
      s,
    );
    expect(rows.map((r) => [r.period?.label, r.record.attempts, r.comparison.attempts, r.compared])).toEqual([
      ["2026-W47", 5, 50, { start: "2026-11-06", end: "2026-11-10" }],
      ["2026-W48", 7, 70, { start: "2026-11-11", end: "2026-11-17" }],
    ]);
  });

  it("keeps rows found on one side only, with zeros on the other and presence saying which", () => {
    const range = { start: "2026-11-01", end: "2026-11-03" };
    const s = compareSpec(range, "day", { kind: "previous" }, ["date", "card_brand"]);
    expect(s.comparisonRange).toEqual({ start: "2026-10-29", end: "2026-10-31" });
    const current = [
      day("2026-11-01", 10, 5, 19.99, { card_brand: "visa" }),
      day("2026-11-01", 4, 2, 5.5, { card_brand: "amex" }), // amex had nothing on 29 October
      day("2026-11-02", 6, 3, 0.1, { card_brand: "visa" }),
    ];
    const comparison = [
      day("2026-10-29", 8, 4, 0.2, { card_brand: "visa" }),
      day("2026-10-30", 7, 1, 3.3, { card_brand: "mastercard" }), // mastercard has nothing in November
      day("2026-10-31", 2, 2, 1.01, { card_brand: "visa" }), // visa has nothing on 3 November
    ];
    const rows = compareRows(current, comparison, s);
    const summary = rows.map((r) => [r.record.date, r.record.card_brand, r.presence, r.record.attempts, r.comparison.attempts, r.record.revenue, r.comparison.revenue, r.compared]);
    expect(summary).toEqual([
      ["2026-11-01", "visa", "both", 10, 8, 19.99, 0.2, { start: "2026-10-29", end: "2026-10-29" }],
      ["2026-11-01", "amex", "current", 4, 0, 5.5, 0, { start: "2026-10-29", end: "2026-10-29" }],
      ["2026-11-02", "visa", "current", 6, 0, 0.1, 0, { start: "2026-10-30", end: "2026-10-30" }],
      ["2026-11-02", "mastercard", "comparison", 0, 7, 0, 3.3, { start: "2026-10-30", end: "2026-10-30" }],
      ["2026-11-03", "visa", "comparison", 0, 2, 0, 1.01, { start: "2026-10-31", end: "2026-10-31" }],
    ]);
    // Zeros cover every metric on the missing side, and both sides carry the row's dimensions.
    for (const r of rows) {
      const missing = r.presence === "current" ? r.comparison : r.presence === "comparison" ? r.record : null;
      if (missing) for (const m of METRICS) expect(missing[m]).toBe(0);
      expect(r.comparison.card_brand).toBe(r.record.card_brand);
      expect(r.comparison.date).toBe(r.record.date);
      expect(r.period?.from).toBe(r.record.date);
      expect(r.unaligned).toBeUndefined();
    }
    // Comparison-only rows still get the report's period.
    expect(rows.find((r) => r.record.card_brand === "mastercard")!.period).toMatchObject({ label: "2026-11-02", partial: false });
  });

  it("keeps one-sided rows by card brand at month grain too", () => {
    const range = { start: "2026-11-01", end: "2026-11-30" };
    const s = compareSpec(range, "month", { kind: "previous" }, ["date", "card_brand"]);
    const rows = compareRows(
      [...dailyRecords(range, { card_brand: "visa" }, 1), ...dailyRecords(range, { card_brand: "amex" }, 2)],
      [...dailyRecords(s.comparisonRange, { card_brand: "visa" }, 3), ...dailyRecords(s.comparisonRange, { card_brand: "discover" }, 4)],
      s,
    );
    expect(rows.map((r) => [r.record.card_brand, r.presence, r.period?.label, r.compared])).toEqual([
      ["visa", "both", "2026-11", { start: "2026-10-02", end: "2026-10-31" }],
      ["amex", "current", "2026-11", { start: "2026-10-02", end: "2026-10-31" }],
      ["discover", "comparison", "2026-11", { start: "2026-10-02", end: "2026-10-31" }],
    ]);
    expect(rows[1]!.comparison).toMatchObject({ attempts: 0, approvals: 0, revenue: 0, refund_amount: 0 });
    expect(rows[2]!.record).toMatchObject({ attempts: 0, approvals: 0, revenue: 0, refund_amount: 0 });
  });

  it("places a 2024 comparison by calendar at day grain: 29 February 2024 stands beside nothing", () => {
    const range = { start: "2025-02-27", end: "2025-03-02" };
    const s = compareSpec(range, "day", { kind: "year" }, ["date", "card_brand"]);
    expect(s.comparisonRange).toEqual({ start: "2024-02-27", end: "2024-03-02" });
    const current = daysOf(range).map((d) => day(d, 1, 1, 1, { card_brand: "visa" }));
    const comparison = daysOf(s.comparisonRange).map((d, i) => day(d, 10 + i, 1, 1.5, { card_brand: "visa" }));
    const rows = compareRows(current, comparison, s);
    expect(rows.map((r) => [r.record.date, r.presence, r.comparison.attempts, r.compared, r.unaligned ?? null])).toEqual([
      ["2025-02-27", "both", 10, { start: "2024-02-27", end: "2024-02-27" }, null],
      ["2025-02-28", "both", 11, { start: "2024-02-28", end: "2024-02-28" }, null],
      ["2025-03-01", "both", 13, { start: "2024-03-01", end: "2024-03-01" }, null],
      ["2025-03-02", "both", 14, { start: "2024-03-02", end: "2024-03-02" }, null],
      ["2024-02-29", "comparison", 12, { start: "2024-02-29", end: "2024-02-29" }, "2024-02-29"],
    ]);
    const leap = rows.at(-1)!;
    expect(leap.period).toBeNull();
    expect(leap.record).toEqual({ date: "2024-02-29", card_brand: "visa", attempts: 0, approvals: 0, revenue: 0, refund_amount: 0 });
    expect(leap.comparison).toEqual({ date: "2024-02-29", card_brand: "visa", attempts: 12, approvals: 1, revenue: 1.5, refund_amount: 0 });
  });

  it("compares February 2025 with the whole of February 2024, the 29th included, at month grain", () => {
    const range = { start: "2025-01-01", end: "2025-03-31" };
    const s = compareSpec(range, "month", { kind: "year" });
    expect(s.comparisonRange).toEqual({ start: "2024-01-01", end: "2024-03-31" });
    const current = daysOf(range).map((d) => day(d, 1, 1, 19.99));
    const comparison = daysOf(s.comparisonRange).map((d) => day(d, 1, 1, 19.99));
    const rows = compareRows(current, comparison, s);
    expect(rows.map((r) => [r.period?.label, r.presence, r.record.attempts, r.comparison.attempts, r.record.revenue, r.comparison.revenue, r.compared])).toEqual([
      ["2025-01", "both", 31, 31, 619.69, 619.69, { start: "2024-01-01", end: "2024-01-31" }],
      ["2025-02", "both", 28, 29, 559.72, 579.71, { start: "2024-02-01", end: "2024-02-29" }],
      ["2025-03", "both", 31, 31, 619.69, 619.69, { start: "2024-03-01", end: "2024-03-31" }],
    ]);
    expect(rows.some((r) => r.unaligned)).toBe(false);
  });

  it("compares a range containing 29 February 2024 with 2023: one day fewer, the 29th current-only by day", () => {
    const range = { start: "2024-02-27", end: "2024-03-01" };
    const s = compareSpec(range, "day", { kind: "year" });
    expect(s.comparisonRange).toEqual({ start: "2023-02-27", end: "2023-03-01" });
    const rows = compareRows(
      daysOf(range).map((d) => day(d, 1, 1, 1)),
      daysOf(s.comparisonRange).map((d) => day(d, 5, 1, 1)),
      s,
    );
    expect(rows.map((r) => [r.record.date, r.presence, r.comparison.attempts])).toEqual([
      ["2024-02-27", "both", 5],
      ["2024-02-28", "both", 5],
      ["2024-02-29", "current", 0],
      ["2024-03-01", "both", 5],
    ]);
    // By month, February 2024's three days stand beside 2023's two.
    const byMonth = compareRows(
      daysOf(range).map((d) => day(d, 1, 1, 1)),
      daysOf(s.comparisonRange).map((d) => day(d, 5, 1, 1)),
      { ...s, grain: "month" },
    );
    expect(byMonth.map((r) => [r.period?.label, r.record.attempts, r.comparison.attempts, r.compared])).toEqual([
      ["2024-02", 3, 10, { start: "2023-02-27", end: "2023-02-28" }],
      ["2024-03", 1, 5, { start: "2023-03-01", end: "2023-03-01" }],
    ]);
  });

  it("places 28 February 2023 beside a report's first day, 29 February 2024, never outside the report", () => {
    const range = { start: "2024-02-29", end: "2024-03-02" };
    const s = compareSpec(range, "day", { kind: "year" });
    expect(s.comparisonRange).toEqual({ start: "2023-02-28", end: "2023-03-02" });
    const rows = compareRows(
      daysOf(range).map((d) => day(d, 1, 1, 1)),
      daysOf(s.comparisonRange).map((d, i) => day(d, 10 + i, 1, 1)),
      s,
    );
    expect(rows.map((r) => [r.record.date, r.presence, r.comparison.attempts, r.compared])).toEqual([
      ["2024-02-29", "both", 10, { start: "2023-02-28", end: "2023-02-28" }],
      ["2024-03-01", "both", 11, { start: "2023-03-01", end: "2023-03-01" }],
      ["2024-03-02", "both", 12, { start: "2023-03-02", end: "2023-03-02" }],
    ]);
  });

  it("places a custom range by position", () => {
    const range = { start: "2026-11-01", end: "2026-11-03" };
    const s = compareSpec(range, "day", { kind: "custom", start: "2024-02-28", end: "2024-03-01" });
    const rows = compareRows(
      daysOf(range).map((d) => day(d, 1, 1, 1)),
      daysOf(s.comparisonRange).map((d, i) => day(d, 10 + i, 1, 1)),
      s,
    );
    expect(rows.map((r) => [r.record.date, r.comparison.attempts, r.compared])).toEqual([
      ["2026-11-01", 10, { start: "2024-02-28", end: "2024-02-28" }],
      ["2026-11-02", 11, { start: "2024-02-29", end: "2024-02-29" }],
      ["2026-11-03", 12, { start: "2024-03-01", end: "2024-03-01" }],
    ]);
  });

  it("compares whole totals when not grouped by date", () => {
    const range = { start: "2026-11-01", end: "2026-11-30" };
    const s = compareSpec(range, "month", { kind: "previous" }, ["card_brand"]);
    const current = dailyRecords(range, { card_brand: "visa" }, 1);
    const comparison = dailyRecords(s.comparisonRange, { card_brand: "visa" }, 2);
    const rows = compareRows(current, comparison, s);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ period: null, compared: null, presence: "both" });
    expect(toCents(rows[0]!.comparison.revenue as number)).toBe(unitsOf(comparison, "revenue"));
  });

  it("loses no compared cent at any grain, for every kind of comparison (across a leap year)", () => {
    const ranges: DayRange[] = [
      { start: "2025-01-01", end: "2025-12-31" },
      { start: "2024-02-29", end: "2024-04-15" },
      { start: "2024-02-10", end: "2024-02-29" },
    ];
    const selections: CompareSelection[] = [{ kind: "previous" }, { kind: "year" }, { kind: "custom", start: "2020-01-01", end: "2020-01-20" }];
    for (const range of ranges) {
      for (const compare of selections) {
        if (compare.kind === "custom" && range.end !== "2024-02-29") continue; // custom needs the same length (20 days)
        for (const grain of TIME_GRAINS) {
          const s = compareSpec(range, grain, compare, ["date", "card_brand"]);
          const current = [...dailyRecords(range, { card_brand: "visa" }, 1), ...dailyRecords(range, { card_brand: "amex" }, 2)];
          const comparison = [...dailyRecords(s.comparisonRange, { card_brand: "visa" }, 3), ...dailyRecords(s.comparisonRange, { card_brand: "jcb" }, 4)];
          const rows: ComparedRow[] = compareRows(current, comparison, s);
          const what = `${range.start}..${range.end} ${compare.kind} by ${grain}`;
          for (const m of METRICS) {
            expect(unitsOf(rows.map((r) => r.record), m), what).toBe(unitsOf(current, m));
            expect(unitsOf(rows.map((r) => r.comparison), m), what).toBe(unitsOf(comparison, m));
          }
          // Every row with a period lies inside the report; only last year's 29 February lacks one.
          for (const r of rows) {
            if (r.period) {
              expect(r.period.from <= r.period.to, what).toBe(true);
              expect(r.period.from >= range.start && r.period.to <= range.end, what).toBe(true);
              expect(r.compared!.start >= s.comparisonRange.start && r.compared!.end <= s.comparisonRange.end, what).toBe(true);
            } else {
              expect(r.unaligned, what).toMatch(/-02-29$/);
              expect(grain, what).toBe("day");
            }
          }
          // One row per (period, card brand).
          const keys = rows.map((r) => JSON.stringify([r.record.date, r.record.card_brand]));
          expect(new Set(keys).size, what).toBe(keys.length);
        }
      }
    }
  });
});

describe("buildReportView", () => {
  it("rolls up without a comparison and sets rows beside their comparison with one", () => {
    const range = { start: "2026-11-01", end: "2026-11-30" };
    const records = dailyRecords(range);
    const plain = buildReportView({ op: "orders", groupBy: ["date"], metrics: METRICS, grain: "month", range, records });
    expect(plain.comparison).toBeNull();
    expect(plain.rows).toEqual(rollUp(records, spec(range, "month")));

    const compare: CompareSelection = { kind: "previous" };
    const cmpRange = comparisonRange(range, compare)!;
    const cmpRecords = dailyRecords(cmpRange, {}, 7);
    const compared = buildReportView({
      op: "orders",
      groupBy: ["date"],
      metrics: METRICS,
      grain: "month",
      range,
      records,
      comparison: { compare, range: cmpRange, records: cmpRecords },
    });
    // Every compared day has records: the view knows them, and the comparison is covered whole.
    expect(compared.comparison).toEqual({ compare, range: { start: "2026-10-02", end: "2026-10-31" }, dataDays: cmpRecords.map((r) => String(r.date)) });
    expect(compared.rows).toEqual(compareRows(records, cmpRecords, compareSpec(range, "month", compare)));
  });
});
