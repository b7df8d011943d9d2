import { describe, expect, it } from "vitest";
import type { ReportRecord } from "@/lib/contract";
import { buildCohortGrid, cycleOffsetDays, hasReached, type CohortGridInput } from "./grid";
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

describe("rows: the periods of lib/report/periods, partial where the range cuts them", () => {
  const rowsOf = (range: { start: string; end: string }, rows: CohortGridInput["rows"], records: ReportRecord[] = [], today = "2027-06-30") =>
    buildCohortGrid({ ...base, range, today, rows, records, cell: "retention" }).rows.map((r) => ({
      label: r.label,
      partial: r.partial,
      note: r.note,
      start: r.start,
      end: r.end,
      customers: r.customers,
    }));

  it("mark both months of a range that cuts both ends, naming the days each holds, and count only those days", () => {
    const records = [
      rec("2026-10-14", 0, { approvals_by_initial_date: 1000 }), // before the range: in no row
      rec("2026-10-15", 0, { approvals_by_initial_date: 4 }),
      rec("2026-10-31", 0, { approvals_by_initial_date: 5 }),
      rec("2026-11-20", 0, { approvals_by_initial_date: 7 }),
      rec("2026-11-21", 0, { approvals_by_initial_date: 1000 }), // after it
    ];
    expect(rowsOf({ start: "2026-10-15", end: "2026-11-20" }, "month", records)).toEqual([
      {
        label: "2026-10 (partial)",
        partial: true,
        note: "Only 2026-10-15 to 2026-10-31 of 2026-10-01 to 2026-10-31 is in the range.",
        start: "2026-10-15",
        end: "2026-10-31",
        customers: 9,
      },
      {
        label: "2026-11 (partial)",
        partial: true,
        note: "Only 2026-11-01 to 2026-11-20 of 2026-11-01 to 2026-11-30 is in the range.",
        start: "2026-11-01",
        end: "2026-11-20",
        customers: 7,
      },
    ]);
  });

  it("mark nothing when the range is whole months (February of a leap year included)", () => {
    const rows = rowsOf({ start: "2024-01-01", end: "2024-03-31" }, "month");
    expect(rows.map((r) => [r.label, r.partial, r.note, r.start, r.end])).toEqual([
      ["2024-01", false, undefined, "2024-01-01", "2024-01-31"],
      ["2024-02", false, undefined, "2024-02-01", "2024-02-29"],
      ["2024-03", false, undefined, "2024-03-01", "2024-03-31"],
    ]);
  });

  it("take ISO weeks across a year end: Monday 2020-12-28 to Sunday 2021-01-03 is one week, cut by a range from 2020-12-30", () => {
    const records = [rec("2020-12-31", 0, { approvals_by_initial_date: 2 }), rec("2021-01-03", 0, { approvals_by_initial_date: 3 }), rec("2021-01-04", 0, { approvals_by_initial_date: 6 })];
    expect(rowsOf({ start: "2020-12-30", end: "2021-01-12" }, "week", records)).toEqual([
      {
        label: "Week of 2020-12-28 (partial)",
        partial: true,
        note: "Only 2020-12-30 to 2021-01-03 of 2020-12-28 to 2021-01-03 is in the range.",
        start: "2020-12-30",
        end: "2021-01-03",
        customers: 5,
      },
      { label: "Week of 2021-01-04", partial: false, note: undefined, start: "2021-01-04", end: "2021-01-10", customers: 6 },
      {
        label: "Week of 2021-01-11 (partial)",
        partial: true,
        note: "Only 2021-01-11 to 2021-01-12 of 2021-01-11 to 2021-01-17 is in the range.",
        start: "2021-01-11",
        end: "2021-01-12",
        customers: 0,
      },
    ]);
  });

  it("never mark a day, whatever the range", () => {
    const rows = rowsOf({ start: "2026-10-30", end: "2026-11-02" }, "day");
    expect(rows.map((r) => r.label)).toEqual(["2026-10-30", "2026-10-31", "2026-11-01", "2026-11-02"]);
    expect(rows.every((r) => !r.partial && r.note === undefined)).toBe(true);
  });

  it("mark the month today cuts, even when the range runs past today, and say its later days are still to come", () => {
    const rows = rowsOf({ start: "2026-10-01", end: "2026-11-30" }, "month", [], "2026-11-20");
    expect(rows.map((r) => [r.label, r.note])).toEqual([
      ["2026-10", undefined],
      ["2026-11 (partial)", "Only 2026-11-01 to 2026-11-20 of 2026-11-01 to 2026-11-30 is in the range. The days after 2026-11-20 are still to come."],
    ]);
  });

  it("never mark the pooled row", () => {
    const g = buildCohortGrid({ ...base, range: { start: "2026-10-15", end: "2026-11-20" }, today: "2026-12-31", rows: "month", records: [], cell: "retention" });
    expect(g.rows.every((r) => r.partial)).toBe(true);
    expect(g.summary).toMatchObject({ label: "All cohorts", partial: false });
    expect(g.summary.note).toBeUndefined();
  });
});

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
