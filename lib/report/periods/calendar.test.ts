/**
 * The previous calendar period and month-by-month alignment: which days are compared, which row each
 * compared day stands beside, and which compared days each row (and its hover, and the CSV) names,
 * for months of 28 to 31 days, quarters, years and leap years; ranges that are not whole months are
 * refused; custom comparisons that overlap the report or differ in length are refused or named.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addDays, fromEpochDay, toEpochDay } from "@/lib/contract/dates";
import type { ReportRecord } from "@/lib/contract/schemas";
import { alignedDay, comparedSpan } from "./align";
import {
  calendarShift,
  comparisonName,
  comparisonProblem,
  comparisonRange,
  customComparisonProblem,
  describeComparison,
  shiftMonths,
  wholeMonths,
  type CompareSelection,
} from "./compare";
import { dayCount, TIME_GRAINS, type DayRange, type TimeGrain } from "./grain";
import { periodEnd, periodLabel } from "./periods";
import { compareRows } from "./rollup";

const CALENDAR: CompareSelection = { kind: "calendar" };

function daysOf(range: DayRange): string[] {
  const out: string[] = [];
  for (let d = range.start; d <= range.end; d = addDays(d, 1)) out.push(d);
  return out;
}

const monthAt = (index: number) => `${String(Math.floor(index / 12)).padStart(4, "0")}-${String((index % 12) + 1).padStart(2, "0")}-01`;

/** `count` whole months from the month `index` (months since year 0). */
const months = (index: number, count: number): DayRange => ({ start: monthAt(index), end: periodEnd(monthAt(index + count - 1), "month") });

/** Whole-month ranges from 1999 to 2041 (leap years 2000, 2004 … 2040 among them), 1 to 36 months. */
const wholeMonthRange = fc.record({ index: fc.integer({ min: 1999 * 12, max: 2040 * 12 }), count: fc.integer({ min: 1, max: 36 }) }).map(({ index, count }) => months(index, count));

/** Any range of 1 to 800 days between 1999 and 2041. */
const anyRange = fc
  .record({ start: fc.integer({ min: toEpochDay("1999-01-01"), max: toEpochDay("2040-01-01") }), days: fc.integer({ min: 1, max: 800 }) })
  .map(({ start, days }) => ({ start: fromEpochDay(start), end: fromEpochDay(start + days - 1) }));

/** One record a day, each day's attempts its day of the month (so sums tell days apart). */
const records = (range: DayRange): ReportRecord[] => daysOf(range).map((date) => ({ date, attempts: Number(date.slice(8)), approvals: 1 }));

describe("the previous calendar period", () => {
  it("is as many whole months, quarters or years just before", () => {
    const cases: [DayRange, DayRange][] = [
      // Q3 → Q2 (92 days beside 91).
      [{ start: "2026-07-01", end: "2026-09-30" }, { start: "2026-04-01", end: "2026-06-30" }],
      // October (31) → September (30).
      [{ start: "2026-10-01", end: "2026-10-31" }, { start: "2026-09-01", end: "2026-09-30" }],
      // January–March → October–December, across the year.
      [{ start: "2026-01-01", end: "2026-03-31" }, { start: "2025-10-01", end: "2025-12-31" }],
      // 2025 → 2024 (a leap year).
      [{ start: "2025-01-01", end: "2025-12-31" }, { start: "2024-01-01", end: "2024-12-31" }],
      // March 2024 → February 2024, with its 29th; February 2024 → January.
      [{ start: "2024-03-01", end: "2024-03-31" }, { start: "2024-02-01", end: "2024-02-29" }],
      [{ start: "2024-02-01", end: "2024-02-29" }, { start: "2024-01-01", end: "2024-01-31" }],
      // Two months not on quarter boundaries; two quarters; two years.
      [{ start: "2025-02-01", end: "2025-03-31" }, { start: "2024-12-01", end: "2025-01-31" }],
      [{ start: "2026-04-01", end: "2026-09-30" }, { start: "2025-10-01", end: "2026-03-31" }],
      [{ start: "2024-01-01", end: "2025-12-31" }, { start: "2022-01-01", end: "2023-12-31" }],
    ];
    for (const [range, expected] of cases) {
      expect(comparisonProblem(range, CALENDAR), `${range.start}..${range.end}`).toBeNull();
      expect(comparisonRange(range, CALENDAR), `${range.start}..${range.end}`).toEqual(expected);
    }
  });

  it("is named by its unit", () => {
    const name = (range: DayRange) => comparisonName(CALENDAR, comparisonRange(range, CALENDAR)!);
    expect(name({ start: "2026-07-01", end: "2026-09-30" })).toBe("previous quarter");
    expect(name({ start: "2026-10-01", end: "2026-10-31" })).toBe("previous month");
    expect(name({ start: "2025-01-01", end: "2025-12-31" })).toBe("previous year");
    expect(name({ start: "2025-02-01", end: "2025-03-31" })).toBe("previous 2 months");
    expect(name({ start: "2026-04-01", end: "2026-09-30" })).toBe("previous 2 quarters");
    expect(comparisonName({ kind: "previous" }, { start: "2026-09-01", end: "2026-09-30" })).toBe("previous 30 days");
    expect(comparisonName({ kind: "previous" }, { start: "2026-09-30", end: "2026-09-30" })).toBe("previous day");
  });

  it("is refused, with the reason, for a range that is not whole calendar months", () => {
    for (const range of [
      { start: "2026-10-05", end: "2026-10-31" },
      { start: "2026-10-01", end: "2026-10-30" },
      { start: "2024-02-01", end: "2024-02-28" },
      { start: "2026-10-31", end: "2026-10-31" },
      { start: "2026-07-02", end: "2026-09-30" },
    ]) {
      expect(comparisonProblem(range, CALENDAR)).toBe(
        `${range.start === range.end ? range.start : `${range.start}..${range.end}`} is not whole calendar months, so it has no previous calendar period: choose whole months, quarters or years, or another comparison.`,
      );
      expect(comparisonRange(range, CALENDAR)).toBeNull();
    }
  });

  it("is refused exactly when the range does not start on a 1st and end on a month's last day (property)", () => {
    fc.assert(
      fc.property(anyRange, (range) => {
        const whole = range.start.endsWith("-01") && addDays(range.end, 1).endsWith("-01");
        expect(comparisonProblem(range, CALENDAR) === null).toBe(whole);
        expect(comparisonRange(range, CALENDAR) !== null).toBe(whole);
      }),
      { numRuns: 2000 },
    );
  });

  it("ends the day before the range, holds as many whole months, and never overlaps it (property)", () => {
    fc.assert(
      fc.property(wholeMonthRange, (range) => {
        const cmp = comparisonRange(range, CALENDAR)!;
        expect(addDays(cmp.end, 1)).toBe(range.start);
        expect(wholeMonths(cmp)?.months).toBe(wholeMonths(range)!.months);
        expect(calendarShift(range, CALENDAR, cmp)).toBe(wholeMonths(range)!.months);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("month-by-month alignment", () => {
  it("shifts a day by months, a shorter month's last day standing for the days it lacks", () => {
    expect(shiftMonths("2026-07-31", -3)).toBe("2026-04-30");
    expect(shiftMonths("2026-11-30", 3)).toBe("2027-02-28");
    expect(shiftMonths("2023-11-30", 3)).toBe("2024-02-29");
    expect(shiftMonths("2024-02-29", 12)).toBe("2025-02-28");
    expect(shiftMonths("2024-02-29", -48)).toBe("2020-02-29");
    expect(shiftMonths("2026-01-15", -1)).toBe("2025-12-15");
  });

  it("names the compared days of a day: none for a 31st beside a month of 30, three for a common February's 28th", () => {
    const q3 = { start: "2026-07-01", end: "2026-09-30" };
    const q2 = comparisonRange(q3, CALENDAR)!;
    expect(comparedSpan("2026-07-31", "2026-07-31", q3, CALENDAR, q2, true)).toBeNull();
    expect(comparedSpan("2026-07-30", "2026-07-30", q3, CALENDAR, q2, true)).toEqual({ start: "2026-04-30", end: "2026-04-30" });
    expect(comparedSpan("2026-08-31", "2026-08-31", q3, CALENDAR, q2, true)).toEqual({ start: "2026-05-31", end: "2026-05-31" });
    // Q1 2025 beside Q4 2024: 28 February stands beside 28, 29 and 30 November.
    const q1 = { start: "2025-01-01", end: "2025-03-31" };
    const q4 = comparisonRange(q1, CALENDAR)!;
    expect(comparedSpan("2025-02-28", "2025-02-28", q1, CALENDAR, q4, true)).toEqual({ start: "2024-11-28", end: "2024-11-30" });
    expect(["2024-11-28", "2024-11-29", "2024-11-30"].map((d) => alignedDay(d, q1, CALENDAR, q4, true))).toEqual(["2025-02-28", "2025-02-28", "2025-02-28"]);
    // An ISO week across the month's end.
    expect(comparedSpan("2025-01-27", "2025-02-02", q1, CALENDAR, q4, false)).toEqual({ start: "2024-10-27", end: "2024-11-02" });
  });

  it("gives every span of the report exactly the compared days that stand beside it (property)", () => {
    const compareArb = fc.oneof(
      fc.constant<"calendar">("calendar"),
      // A custom range of as many whole months, some years before.
      fc.integer({ min: 1, max: 60 }),
    );
    fc.assert(
      fc.property(wholeMonthRange, compareArb, fc.nat(), fc.nat(), (range, c, a, b) => {
        const n = wholeMonths(range)!.months;
        const compare: CompareSelection = c === "calendar" ? CALENDAR : { kind: "custom", ...months(Number(range.start.slice(0, 4)) * 12 + Number(range.start.slice(5, 7)) - 1 - n - c, n) };
        const cmp = comparisonRange(range, compare)!;
        expect(comparisonProblem(range, compare)).toBeNull();
        const days = daysOf(range);
        const [i, j] = [a % days.length, b % days.length].sort((x, y) => x - y) as [number, number];
        const from = days[i]!;
        const to = days[j]!;
        const inside = daysOf(cmp).filter((d) => {
          const r = alignedDay(d, range, compare, cmp, true)!;
          expect(r >= range.start && r <= range.end).toBe(true);
          return r >= from && r <= to;
        });
        const span = comparedSpan(from, to, range, compare, cmp, true);
        expect(span === null ? [] : daysOf(span)).toEqual(inside);
      }),
      { numRuns: 300 },
    );
  });

  it("puts each month (quarter, year) beside its compared one, whatever their lengths (property)", () => {
    fc.assert(
      fc.property(wholeMonthRange, fc.constantFrom<TimeGrain>("month", "quarter", "year"), (range, grain) => {
        const cmp = comparisonRange(range, CALENDAR)!;
        const rows = compareRows(records(range), records(cmp), { groupBy: ["date"], metrics: ["attempts", "approvals"], grain, range, compare: CALENDAR, comparisonRange: cmp });
        const n = wholeMonths(range)!.months;
        for (const row of rows) {
          expect(row.presence).toBe("both");
          const p = row.period!;
          // Whole periods of the report beside the periods exactly n months before (partial ones beside their part).
          const span = row.compared!;
          expect(span.start).toBe(shiftMonths(p.from, -n));
          expect(addDays(span.end, 1)).toBe(shiftMonths(addDays(p.to, 1), -n));
          // The compared sums are those of exactly those days.
          expect(row.comparison.approvals).toBe(dayCount(span));
          expect(row.comparison.attempts).toBe(daysOf(span).reduce((s, d) => s + Number(d.slice(8)), 0));
        }
        // Every compared day is counted once.
        expect(rows.reduce((s, r) => s + Number(r.comparison.approvals), 0)).toBe(dayCount(cmp));
      }),
      { numRuns: 300 },
    );
  });

  it("with the same period last year, puts each month beside the same month a year earlier, at every coarser grain", () => {
    const range = { start: "2024-01-01", end: "2024-06-30" };
    const cmp = comparisonRange(range, { kind: "year" })!;
    for (const grain of TIME_GRAINS.filter((g) => g !== "day")) {
      const rows = compareRows(records(range), records(cmp), { groupBy: ["date"], metrics: ["approvals"], grain, range, compare: { kind: "year" }, comparisonRange: cmp });
      expect(rows.reduce((s, r) => s + Number(r.comparison.approvals), 0)).toBe(dayCount(cmp));
      if (grain === "month") {
        expect(rows.map((r) => [r.period!.label, r.compared!.start, r.compared!.end])).toEqual(
          [0, 1, 2, 3, 4, 5].map((m) => [periodLabel(monthAt(2024 * 12 + m), "month"), monthAt(2023 * 12 + m), periodEnd(monthAt(2023 * 12 + m), "month")]),
        );
      }
    }
  });
});

describe("custom comparisons: overlap and length", () => {
  it("refuses any custom range that shares a day with the report, and takes any other of the same length (property)", () => {
    fc.assert(
      fc.property(anyRange, fc.integer({ min: -1000, max: 1000 }), (range, shift) => {
        const custom = { start: addDays(range.start, shift), end: addDays(range.end, shift) };
        const overlaps = custom.start <= range.end && custom.end >= range.start;
        const problem = customComparisonProblem(range, custom);
        if (overlaps) expect(problem).toMatch(/overlaps the report's .* in both\): a comparison must not share days with the report\./);
        else expect(problem).toBeNull();
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses another length unless both are as many whole months, and then says the lengths on screen", () => {
    const range = { start: "2025-03-01", end: "2025-04-30" }; // 61 days
    const custom: CompareSelection = { kind: "custom", start: "2024-01-01", end: "2024-02-29" }; // 60 days, two whole months
    expect(comparisonProblem(range, custom)).toBeNull();
    const cmp = comparisonRange(range, custom)!;
    expect(describeComparison(range, custom, cmp)).toBe("a custom range, 2024-01-01 to 2024-02-29 (60 days against the report's 61; month beside month)");
    // The report's number of days, not whole months: day beside day.
    expect(comparisonProblem(range, { kind: "custom", start: "2024-01-01", end: "2024-03-01" })).toBeNull();
    expect(comparisonProblem(range, { kind: "custom", start: "2024-01-02", end: "2024-03-01" })).toMatch(/60 days; the report has 61.*2 whole calendar months/);
    // A custom range of the report's length that is not whole months lines up day by day.
    expect(describeComparison({ start: "2025-03-05", end: "2025-03-09" }, { kind: "custom", start: "2025-01-01", end: "2025-01-05" }, { start: "2025-01-01", end: "2025-01-05" })).toBe(
      "a custom range, 2025-01-01 to 2025-01-05",
    );
  });

  it("refuses the same dates a year earlier for a range longer than a year (they overlap it)", () => {
    expect(comparisonProblem({ start: "2024-01-01", end: "2025-01-31" }, { kind: "year" })).toMatch(/longer than a year: the same dates a year earlier share 31 days with it/);
    expect(comparisonProblem({ start: "2024-01-01", end: "2024-12-31" }, { kind: "year" })).toBeNull();
  });
});
