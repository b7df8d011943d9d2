import { describe, expect, it } from "vitest";
import { addDays } from "@/lib/contract/dates";
import { alignedDay, comparedSpan } from "./align";
import { COMPARE_KINDS, holdsLeapDay, COMPARE_LABELS, comparisonRange, customComparisonProblem, shiftYears, type CompareSelection } from "./compare";
import { dayCount, type DayRange } from "./grain";

const PREVIOUS: CompareSelection = { kind: "previous" };
const YEAR: CompareSelection = { kind: "year" };

function daysOf(range: DayRange): string[] {
  const out: string[] = [];
  for (let d = range.start; d <= range.end; d = addDays(d, 1)) out.push(d);
  return out;
}

describe("compare kinds", () => {
  it("labels every kind", () => {
    expect(COMPARE_KINDS).toEqual(["none", "previous", "calendar", "year", "custom"]);
    for (const k of COMPARE_KINDS) expect(COMPARE_LABELS[k]).toBeTruthy();
  });
});

describe("shiftYears", () => {
  it("keeps the month and day, and turns 29 February into 28 February in a common year", () => {
    expect(shiftYears("2026-11-23", -1)).toBe("2025-11-23");
    expect(shiftYears("2025-02-28", -1)).toBe("2024-02-28");
    expect(shiftYears("2025-03-01", -1)).toBe("2024-03-01");
    expect(shiftYears("2024-02-29", -1)).toBe("2023-02-28");
    expect(shiftYears("2024-02-29", 1)).toBe("2025-02-28");
    expect(shiftYears("2024-02-29", 4)).toBe("2028-02-29");
    expect(shiftYears("2024-02-29", -4)).toBe("2020-02-29");
    expect(shiftYears("2000-02-29", 100)).toBe("2100-02-28");
    expect(shiftYears("2026-01-01", -1)).toBe("2025-01-01");
    expect(shiftYears("2026-12-31", -1)).toBe("2025-12-31");
  });
});

describe("comparison ranges", () => {
  it("compares with nothing", () => {
    expect(comparisonRange({ start: "2026-11-01", end: "2026-11-30" }, { kind: "none" })).toBeNull();
  });

  it("takes the previous period: the same number of days, ending the day before", () => {
    expect(comparisonRange({ start: "2026-11-01", end: "2026-11-30" }, PREVIOUS)).toEqual({ start: "2026-10-02", end: "2026-10-31" });
    expect(comparisonRange({ start: "2026-11-23", end: "2026-11-23" }, PREVIOUS)).toEqual({ start: "2026-11-22", end: "2026-11-22" });
    expect(comparisonRange({ start: "2026-01-01", end: "2026-01-31" }, PREVIOUS)).toEqual({ start: "2025-12-01", end: "2025-12-31" });
    // Across a leap day: 1–31 March 2024 (31 days) is compared with 30 January – 29 February.
    expect(comparisonRange({ start: "2024-03-01", end: "2024-03-31" }, PREVIOUS)).toEqual({ start: "2024-01-30", end: "2024-02-29" });
    for (const range of [
      { start: "2026-11-01", end: "2026-11-30" },
      { start: "2024-02-15", end: "2024-03-14" },
      { start: "2024-01-01", end: "2024-12-31" },
    ]) {
      const cmp = comparisonRange(range, PREVIOUS)!;
      expect(dayCount(cmp)).toBe(dayCount(range));
      expect(addDays(cmp.end, 1)).toBe(range.start);
    }
  });

  it("takes the same dates last year; a range with 29 February is compared with one a day shorter", () => {
    expect(comparisonRange({ start: "2026-11-01", end: "2026-11-30" }, YEAR)).toEqual({ start: "2025-11-01", end: "2025-11-30" });
    const leap = { start: "2024-02-28", end: "2024-03-01" };
    const cmp = comparisonRange(leap, YEAR)!;
    expect(cmp).toEqual({ start: "2023-02-28", end: "2023-03-01" });
    expect(dayCount(leap)).toBe(3);
    expect(dayCount(cmp)).toBe(2);
    expect(comparisonRange({ start: "2024-02-29", end: "2024-02-29" }, YEAR)).toEqual({ start: "2023-02-28", end: "2023-02-28" });
    // A whole leap year against a common one, and the other way round.
    expect(dayCount(comparisonRange({ start: "2024-01-01", end: "2024-12-31" }, YEAR)!)).toBe(365);
    const y2025 = comparisonRange({ start: "2025-01-01", end: "2025-12-31" }, YEAR)!;
    expect(y2025).toEqual({ start: "2024-01-01", end: "2024-12-31" });
    expect(dayCount(y2025)).toBe(366);
    // Ranges without the leap day keep their length.
    expect(dayCount(comparisonRange({ start: "2024-03-01", end: "2024-03-31" }, YEAR)!)).toBe(31);
  });

  it("takes a custom range as given", () => {
    expect(comparisonRange({ start: "2026-11-01", end: "2026-11-30" }, { kind: "custom", start: "2026-06-01", end: "2026-06-30" })).toEqual({
      start: "2026-06-01",
      end: "2026-06-30",
    });
  });
});

describe("customComparisonProblem", () => {
  const range = { start: "2026-11-01", end: "2026-11-30" };

  it("accepts a range of the same length, before or after the report", () => {
    expect(customComparisonProblem(range, { start: "2026-06-01", end: "2026-06-30" })).toBeNull();
    expect(customComparisonProblem(range, { start: "2024-02-01", end: "2024-03-01" })).toBeNull();
    expect(customComparisonProblem(range, { start: "2027-01-01", end: "2027-01-30" })).toBeNull();
    expect(customComparisonProblem({ start: "2026-11-23", end: "2026-11-23" }, { start: "2024-02-29", end: "2024-02-29" })).toBeNull();
  });

  it("takes whole calendar months as many as the report's, whatever their days", () => {
    // November (30 days) beside October (31) or February (28).
    expect(customComparisonProblem(range, { start: "2026-10-01", end: "2026-10-31" })).toBeNull();
    expect(customComparisonProblem(range, { start: "2026-02-01", end: "2026-02-28" })).toBeNull();
    expect(customComparisonProblem({ start: "2026-07-01", end: "2026-09-30" }, { start: "2026-01-01", end: "2026-03-31" })).toBeNull();
    // Two months are not one.
    expect(customComparisonProblem(range, { start: "2026-09-01", end: "2026-10-31" })).toMatch(/61 days.*30.*1 whole calendar month/);
  });

  it("refuses a range that shares days with the report, and says how many", () => {
    expect(customComparisonProblem(range, { start: "2026-10-02", end: "2026-11-01" })).toMatch(/overlaps the report's 2026-11-01\.\.2026-11-30 \(1 day in both\)/);
    expect(customComparisonProblem(range, { start: "2026-11-10", end: "2026-12-09" })).toMatch(/21 days in both/);
    expect(customComparisonProblem(range, range)).toMatch(/30 days in both/);
  });

  it("refuses a range of another length and says both lengths", () => {
    const p = customComparisonProblem({ start: "2026-11-05", end: "2026-11-30" }, { start: "2026-10-01", end: "2026-10-31" });
    expect(p).toMatch(/31 days/);
    expect(p).toMatch(/26/);
    expect(customComparisonProblem(range, { start: "2026-10-01", end: "2026-10-29" })).toMatch(/29 days.*30/);
    // The leap day counts.
    expect(customComparisonProblem({ start: "2025-02-01", end: "2025-03-01" }, { start: "2024-02-01", end: "2024-03-01" })).toMatch(/30 days.*29/);
  });

  it("refuses a reversed range", () => {
    expect(customComparisonProblem(range, { start: "2026-06-30", end: "2026-06-01" })).toMatch(/YYYY-MM-DD\.\.YYYY-MM-DD/);
  });

  it("refuses malformed or impossible dates", () => {
    const bad: DayRange[] = [
      { start: "", end: "2026-06-30" },
      { start: "2026-06-01", end: "" },
      { start: "2026-6-1", end: "2026-06-30" },
      { start: "2026-06-01", end: "2026/06/30" },
      { start: "2026-13-01", end: "2027-01-30" },
      { start: "2025-02-29", end: "2025-03-30" },
      { start: "2026-04-31", end: "2026-05-30" },
      { start: "2026-06-01T00:00:00Z", end: "2026-06-30" },
      { start: "yesterday", end: "today" },
    ];
    for (const custom of bad) expect(customComparisonProblem(range, custom), JSON.stringify(custom)).toMatch(/must be two dates/);
  });
});

describe("alignedDay", () => {
  it("places previous-period days by position", () => {
    const range = { start: "2026-11-01", end: "2026-11-30" };
    const cmp = comparisonRange(range, PREVIOUS)!;
    expect(alignedDay("2026-10-02", range, PREVIOUS, cmp, true)).toBe("2026-11-01");
    expect(alignedDay("2026-10-31", range, PREVIOUS, cmp, true)).toBe("2026-11-30");
    // Every compared day lands inside the report, one to one.
    const aligned = daysOf(cmp).map((d) => alignedDay(d, range, PREVIOUS, cmp, false));
    expect(aligned).toEqual(daysOf(range));
  });

  it("places custom days by position", () => {
    const range = { start: "2026-11-01", end: "2026-11-03" };
    const custom: CompareSelection = { kind: "custom", start: "2024-02-28", end: "2024-03-01" };
    const cmp = comparisonRange(range, custom)!;
    expect(daysOf(cmp).map((d) => alignedDay(d, range, custom, cmp, true))).toEqual(["2026-11-01", "2026-11-02", "2026-11-03"]);
  });

  it("places last year's days by calendar date, so 1 March stays beside 1 March across a leap day", () => {
    const range = { start: "2025-02-01", end: "2025-03-31" };
    const cmp = comparisonRange(range, YEAR)!;
    expect(alignedDay("2024-03-01", range, YEAR, cmp, true)).toBe("2025-03-01");
    expect(alignedDay("2024-02-28", range, YEAR, cmp, true)).toBe("2025-02-28");
    // At day grain last year's 29 February stands beside nothing; at coarser grains beside the 28th.
    expect(alignedDay("2024-02-29", range, YEAR, cmp, true)).toBeNull();
    expect(alignedDay("2024-02-29", range, YEAR, cmp, false)).toBe("2025-02-28");
  });

  it("places a common year's 28 February beside the 29th when the report starts on 29 February", () => {
    const range = { start: "2024-02-29", end: "2024-03-02" };
    const cmp = comparisonRange(range, YEAR)!;
    expect(cmp).toEqual({ start: "2023-02-28", end: "2023-03-02" });
    // 28 February 2023 is in the comparison only as the twin of 29 February 2024.
    expect(alignedDay("2023-02-28", range, YEAR, cmp, true)).toBe("2024-02-29");
    expect(alignedDay("2023-02-28", range, YEAR, cmp, false)).toBe("2024-02-29");
    expect(alignedDay("2023-03-01", range, YEAR, cmp, true)).toBe("2024-03-01");
  });

  it("places every compared day inside the report (or nowhere), whatever the kind", () => {
    const ranges: DayRange[] = [
      { start: "2026-11-01", end: "2026-11-30" },
      { start: "2024-02-29", end: "2024-02-29" },
      { start: "2024-02-29", end: "2024-03-31" },
      { start: "2024-01-15", end: "2024-02-29" },
      { start: "2025-01-01", end: "2025-12-31" },
      { start: "2025-02-28", end: "2025-03-01" },
    ];
    for (const range of ranges) {
      for (const compare of [PREVIOUS, YEAR]) {
        const cmp = comparisonRange(range, compare)!;
        for (const byCalendar of [true, false]) {
          for (const d of daysOf(cmp)) {
            const a = alignedDay(d, range, compare, cmp, byCalendar);
            if (a === null) {
              expect(compare.kind === "year" && byCalendar && d.endsWith("-02-29"), `${d} of ${cmp.start}..${cmp.end}`).toBe(true);
              continue;
            }
            expect(a >= range.start && a <= range.end, `${d} → ${a} outside ${range.start}..${range.end} (${compare.kind})`).toBe(true);
          }
        }
      }
    }
  });
});

describe("comparedSpan", () => {
  it("gives a 30-day report's whole November the previous 30 days, 2 to 31 October", () => {
    const range = { start: "2026-11-01", end: "2026-11-30" };
    const cmp = comparisonRange(range, PREVIOUS)!;
    expect(comparedSpan("2026-11-01", "2026-11-30", range, PREVIOUS, cmp, false)).toEqual({ start: "2026-10-02", end: "2026-10-31" });
    expect(comparedSpan("2026-11-23", "2026-11-29", range, PREVIOUS, cmp, false)).toEqual({ start: "2026-10-24", end: "2026-10-30" });
  });

  it("gives a custom comparison's days by position", () => {
    const range = { start: "2026-11-01", end: "2026-11-30" };
    const custom: CompareSelection = { kind: "custom", start: "2026-06-01", end: "2026-06-30" };
    expect(comparedSpan("2026-11-10", "2026-11-12", range, custom, comparisonRange(range, custom)!, true)).toEqual({ start: "2026-06-10", end: "2026-06-12" });
  });

  it("gives last year's dates, 29 February included at coarser grains", () => {
    const range = { start: "2025-01-01", end: "2025-03-31" };
    const cmp = comparisonRange(range, YEAR)!;
    expect(comparedSpan("2025-03-01", "2025-03-31", range, YEAR, cmp, false)).toEqual({ start: "2024-03-01", end: "2024-03-31" });
    // February 2025 by month stands beside all of February 2024, the 29th too.
    expect(comparedSpan("2025-02-01", "2025-02-28", range, YEAR, cmp, false)).toEqual({ start: "2024-02-01", end: "2024-02-29" });
    // By day, 28 February stands beside the 28th only (the 29th stands beside nothing).
    expect(comparedSpan("2025-02-28", "2025-02-28", range, YEAR, cmp, true)).toEqual({ start: "2024-02-28", end: "2024-02-28" });
    // The week of 28 February 2021 (a Sunday) reaches 29 February 2020.
    const r2021 = { start: "2021-02-01", end: "2021-03-31" };
    expect(comparedSpan("2021-02-22", "2021-02-28", r2021, YEAR, comparisonRange(r2021, YEAR)!, false)).toEqual({ start: "2020-02-22", end: "2020-02-29" });
    // A report ending on a common year's 28 February is compared up to last year's 29th: February whole.
    const toFeb28 = { start: "2025-01-01", end: "2025-02-28" };
    expect(comparedSpan("2025-02-01", "2025-02-28", toFeb28, YEAR, comparisonRange(toFeb28, YEAR)!, false)).toEqual({ start: "2024-02-01", end: "2024-02-29" });
  });

  it("gives a leap February its common-year twin", () => {
    const range = { start: "2024-01-01", end: "2024-03-31" };
    const cmp = comparisonRange(range, YEAR)!;
    expect(comparedSpan("2024-02-01", "2024-02-29", range, YEAR, cmp, false)).toEqual({ start: "2023-02-01", end: "2023-02-28" });
    expect(comparedSpan("2024-03-01", "2024-03-01", range, YEAR, cmp, true)).toEqual({ start: "2023-03-01", end: "2023-03-01" });
    // A report starting on 29 February: its first day stands beside 28 February of the year before.
    const fromLeapDay = { start: "2024-02-29", end: "2024-03-02" };
    expect(comparedSpan("2024-02-29", "2024-02-29", fromLeapDay, YEAR, comparisonRange(fromLeapDay, YEAR)!, true)).toEqual({ start: "2023-02-28", end: "2023-02-28" });
  });
});

describe("whole Februaries compare whole", () => {
  it("extends a common year's February to last year's 29th", () => {
    expect(comparisonRange({ start: "2025-02-01", end: "2025-02-28" }, { kind: "year" })).toEqual({ start: "2024-02-01", end: "2024-02-29" });
    expect(comparisonRange({ start: "2025-01-01", end: "2025-03-31" }, { kind: "year" })).toEqual({ start: "2024-01-01", end: "2024-03-31" });
    // Not when last year is common too, nor for a leap year's 28th.
    expect(comparisonRange({ start: "2026-02-01", end: "2026-02-28" }, { kind: "year" })).toEqual({ start: "2025-02-01", end: "2025-02-28" });
    expect(comparisonRange({ start: "2024-02-01", end: "2024-02-28" }, { kind: "year" })).toEqual({ start: "2023-02-01", end: "2023-02-28" });
  });
});

describe("holdsLeapDay", () => {
  it("is true only for a range with a 29 February in it", () => {
    expect(holdsLeapDay({ start: "2024-02-01", end: "2024-03-01" })).toBe(true);
    expect(holdsLeapDay({ start: "2024-03-01", end: "2025-02-28" })).toBe(false);
    expect(holdsLeapDay({ start: "2023-12-01", end: "2028-01-01" })).toBe(true);
    expect(holdsLeapDay({ start: "2025-01-01", end: "2025-12-31" })).toBe(false);
  });
});
