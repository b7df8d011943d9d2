import { describe, expect, it } from "vitest";
import type { ReportRecord } from "@/lib/contract";
import { bucketOf, buildCohortGrid, cycleOffsetDays, hasReached, type CohortGridInput } from "./grid";
import { colourFor } from "./color";

const schedule = { trialDays: 14, periodDays: 30 };

describe("the billing schedule", () => {
  it("puts cycle k at 0, trial, trial + period, …", () => {
    expect([0, 1, 2, 3].map((k) => cycleOffsetDays(k, schedule))).toEqual([0, 14, 44, 74]);
  });
  it("says a day's cohort reached a cycle once its due date is today or earlier", () => {
    expect(hasReached("2025-07-17", 1, "2025-07-31", schedule)).toBe(true);
    expect(hasReached("2025-07-18", 1, "2025-07-31", schedule)).toBe(false);
    expect(hasReached("2025-07-31", 0, "2025-07-31", schedule)).toBe(true);
  });
});

describe("row buckets", () => {
  it("starts weeks on Monday", () => {
    expect(bucketOf("2025-07-01", "week").start).toBe("2025-06-30");
    expect(bucketOf("2025-07-06", "week")).toMatchObject({ start: "2025-06-30", end: "2025-07-06" });
    expect(bucketOf("2025-07-07", "week").start).toBe("2025-07-07");
  });
  it("takes calendar months", () => {
    expect(bucketOf("2024-02-10", "month")).toEqual({ key: "2024-02-01", start: "2024-02-01", end: "2024-02-29", label: "2024-02" });
    expect(bucketOf("2025-12-31", "month").end).toBe("2025-12-31");
  });
});

const rec = (date: string, cycle: number, m: Partial<Record<string, number>>): ReportRecord => ({ date, billing_cycle: cycle, ...m });

const base: Omit<CohortGridInput, "records" | "cell"> = {
  range: { start: "2025-06-01", end: "2025-06-01" },
  today: "2025-07-31",
  rows: "day",
  cycles: 3,
  ...schedule,
};
const oneDay = [
  rec("2025-06-01", 0, { approvals_by_initial_date: 10, revenue_by_initial_date: 100, cpa: 20 }),
  rec("2025-06-01", 1, { approvals_by_initial_date: 6, revenue_by_initial_date: 60, refund_amount_by_initial_date: 6 }),
  rec("2025-06-01", 2, { approvals_by_initial_date: 3, revenue_by_initial_date: 30, cb_amount_by_initial_date: 10 }),
];

describe("cells", () => {
  it("show approvals as a share of cycle 0, masking cycles not reached", () => {
    const g = buildCohortGrid({ ...base, records: oneDay, cell: "retention" });
    expect(g.rows).toHaveLength(1);
    expect(g.rows[0]!.customers).toBe(10);
    expect(g.rows[0]!.cells.map((c) => (c.masked ? "masked" : c.value))).toEqual([1, 0.6, 0.3, "masked"]);
    expect(g.format).toBe("percent");
  });
  it("show approvals as a share of the previous cycle", () => {
    const g = buildCohortGrid({ ...base, records: oneDay, cell: "previous" });
    expect(g.rows[0]!.cells.map((c) => c.value)).toEqual([1, 0.6, 0.5, null]);
  });
  it("show revenue per cycle", () => {
    const g = buildCohortGrid({ ...base, records: oneDay, cell: "revenue" });
    expect(g.rows[0]!.cells.map((c) => c.value)).toEqual([100, 60, 30, null]);
  });
  it("show cumulative net revenue per initial approval, CPA included", () => {
    const g = buildCohortGrid({ ...base, records: oneDay, cell: "ltv" });
    // (100 − 20) / 10; (80 + 60 − 6) / 10; (134 + 30 − 10) / 10
    expect(g.rows[0]!.cells.map((c) => c.value)).toEqual([8, 13.4, 15.4, null]);
  });
  it("show a reached cycle without data as 0, not masked", () => {
    const g = buildCohortGrid({ ...base, records: oneDay.slice(0, 1), cell: "retention" });
    expect(g.rows[0]!.cells[2]).toMatchObject({ masked: false, value: 0 });
  });
});

describe("coarser rows", () => {
  const week = [
    rec("2025-07-14", 0, { approvals_by_initial_date: 4 }),
    rec("2025-07-14", 1, { approvals_by_initial_date: 2 }),
    rec("2025-07-18", 0, { approvals_by_initial_date: 6 }),
  ];
  it("sum their days and mask a cycle until the youngest day has reached it", () => {
    const g = buildCohortGrid({ ...base, range: { start: "2025-07-14", end: "2025-07-20" }, rows: "week", records: week, cell: "retention" });
    expect(g.rows).toHaveLength(1);
    expect(g.rows[0]).toMatchObject({ label: "Week of 2025-07-14", customers: 10, start: "2025-07-14", end: "2025-07-20" });
    // Monday's cohort reached cycle 1 on 07-28, but Sunday's (07-20) only will on 08-03
    expect(g.rows[0]!.cells[1]!.masked).toBe(true);
    const later = buildCohortGrid({ ...base, today: "2025-08-03", range: { start: "2025-07-14", end: "2025-07-20" }, rows: "week", records: week, cell: "retention" });
    expect(later.rows[0]!.cells[1]).toMatchObject({ masked: false, value: 0.2 });
  });
  it("clip the youngest day to the range", () => {
    const g = buildCohortGrid({ ...base, range: { start: "2025-07-14", end: "2025-07-16" }, rows: "week", records: week.slice(0, 2), cell: "retention" });
    expect(g.rows[0]!.end).toBe("2025-07-16");
    expect(g.rows[0]!.cells[1]).toMatchObject({ masked: false, value: 0.5 }); // 07-16 + 14 = 07-30
  });
  it("have a row for every bucket up to today, with or without signups", () => {
    const g = buildCohortGrid({ ...base, range: { start: "2025-07-01", end: "2025-09-30" }, rows: "month", records: [], cell: "retention" });
    expect(g.rows.map((r) => r.label)).toEqual(["2025-07"]);
    expect(g.rows[0]!.cells[0]).toMatchObject({ masked: false, value: null });
  });
});

describe("the pooled row", () => {
  it("takes, for each cycle, only the cohorts that reached it", () => {
    const records = [
      rec("2025-06-01", 0, { approvals_by_initial_date: 10 }),
      rec("2025-06-01", 1, { approvals_by_initial_date: 5 }),
      rec("2025-07-30", 0, { approvals_by_initial_date: 90 }),
    ];
    const g = buildCohortGrid({ ...base, range: { start: "2025-06-01", end: "2025-07-30" }, records, cell: "retention" });
    expect(g.summary.customers).toBe(100);
    expect(g.summary.cells[0]!.value).toBe(1);
    // cycle 1: only June 1st .. July 17th cohorts count: 5 / 10, not 5 / 100
    expect(g.summary.cells[1]).toMatchObject({ masked: false, value: 0.5, numerator: 5, denominator: 10 });
    expect(g.summary.cells[3]!.masked).toBe(true);
  });
});

describe("colour scale", () => {
  it("darkens with the value, keeps text readable, and turns red below zero", () => {
    expect(colourFor(0, 0, 1).step).toBe(0);
    expect(colourFor(1, 0, 1)).toMatchObject({ step: 6, color: "#ffffff" });
    expect(colourFor(0.3, 0, 1).color).toBe("#0f172a");
    expect(colourFor(-5, -10, 10).step).toBeLessThan(0);
  });
});
