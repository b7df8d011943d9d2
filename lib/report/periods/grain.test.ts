import { describe, expect, it } from "vitest";
import { addDays, todayIn } from "@/lib/contract/dates";
import { dayCount, GRAIN_LABELS, isTimeGrain, TIME_GRAINS, type DayRange, type TimeGrain } from "./grain";
import { isoWeek, periodEnd, periodLabel, periodOf, periodsIn, periodStart } from "./periods";

/** Every day of a range, both ends included. */
function daysOf(range: DayRange): string[] {
  const out: string[] = [];
  for (let d = range.start; d <= range.end; d = addDays(d, 1)) out.push(d);
  return out;
}

/**
 * ISO 8601 week, worked out independently of grain.ts from the rule "week 1 is the week with 4
 * January in it", on Date objects rather than epoch-day arithmetic.
 */
function referenceIsoWeek(date: string): { year: number; week: number } {
  const t = Date.parse(`${date}T00:00:00Z`);
  const mondayOfWeek1 = (year: number) => {
    const jan4 = Date.UTC(year, 0, 4);
    const dow = (new Date(jan4).getUTCDay() + 6) % 7; // 0 = Monday
    return jan4 - dow * 86_400_000;
  };
  const y = new Date(t).getUTCFullYear();
  for (const year of [y + 1, y, y - 1]) {
    const m = mondayOfWeek1(year);
    if (m <= t) return { year, week: Math.floor((t - m) / (7 * 86_400_000)) + 1 };
  }
  throw new Error(`no ISO year for ${date}`);
}

describe("grains", () => {
  it("lists the five grains, each with a label, and recognises only them", () => {
    expect(TIME_GRAINS).toEqual(["day", "week", "month", "quarter", "year"]);
    for (const g of TIME_GRAINS) {
      expect(isTimeGrain(g)).toBe(true);
      expect(GRAIN_LABELS[g]).toBeTruthy();
    }
    for (const s of ["", "Day", "weeks", "hour", "isoweek", "date"]) expect(isTimeGrain(s)).toBe(false);
  });
});

describe("ISO weeks", () => {
  it("numbers weeks by the year of their Thursday (week 53, weeks crossing a year)", () => {
    const cases: [string, string][] = [
      // 2020 has 53 weeks: 2020-W53 runs Monday 2020-12-28 to Sunday 2021-01-03.
      ["2020-12-28", "2020-W53"],
      ["2020-12-31", "2020-W53"],
      ["2021-01-01", "2020-W53"],
      ["2021-01-03", "2020-W53"],
      ["2021-01-04", "2021-W01"],
      // 2026 starts on a Thursday, so it has a week 53 reaching into 2027.
      ["2026-12-28", "2026-W53"],
      ["2027-01-03", "2026-W53"],
      ["2027-01-04", "2027-W01"],
      // A week that starts in December and belongs to the next year.
      ["2024-12-29", "2024-W52"],
      ["2024-12-30", "2025-W01"],
      ["2024-12-31", "2025-W01"],
      ["2025-01-05", "2025-W01"],
      ["2025-01-06", "2025-W02"],
      ["2019-12-30", "2020-W01"],
      // 1 January in the previous year's last week.
      ["2022-01-01", "2021-W52"],
      ["2023-01-01", "2022-W52"],
      ["2016-01-03", "2015-W53"],
      ["2026-11-23", "2026-W48"],
      ["2026-01-01", "2026-W01"],
    ];
    for (const [day, label] of cases) {
      const start = periodStart(day, "week");
      expect(periodLabel(start, "week"), day).toBe(label);
      const w = isoWeek(day);
      expect(`${w.year}-W${String(w.week).padStart(2, "0")}`, day).toBe(label);
    }
  });

  it("starts every week on a Monday and ends it six days later, on a Sunday", () => {
    expect(periodStart("2021-01-03", "week")).toBe("2020-12-28");
    expect(periodEnd("2020-12-28", "week")).toBe("2021-01-03");
    expect(periodStart("2024-12-30", "week")).toBe("2024-12-30");
    expect(periodStart("2025-01-01", "week")).toBe("2024-12-30");
    expect(periodEnd("2024-12-30", "week")).toBe("2025-01-05");
    // A week across the leap day.
    expect(periodStart("2024-02-29", "week")).toBe("2024-02-26");
    expect(periodEnd("2024-02-26", "week")).toBe("2024-03-03");
    for (const d of daysOf({ start: "2026-11-01", end: "2026-11-30" })) {
      const s = periodStart(d, "week");
      expect(new Date(`${s}T00:00:00Z`).getUTCDay()).toBe(1);
      expect(new Date(`${periodEnd(s, "week")}T00:00:00Z`).getUTCDay()).toBe(0);
      expect(s <= d && d <= periodEnd(s, "week")).toBe(true);
    }
  });

  it("agrees with an independent ISO week computation on every day from 1999 to 2041", () => {
    for (const d of daysOf({ start: "1999-01-01", end: "2041-12-31" })) {
      expect(isoWeek(d), d).toEqual(referenceIsoWeek(d));
    }
  });

  it("gives week 53 to exactly the years starting on a Thursday, or leap years starting on a Wednesday", () => {
    const withWeek53: number[] = [];
    for (let y = 2000; y <= 2040; y++) {
      // 28 December is always in the last ISO week of its year.
      if (isoWeek(`${y}-12-28`).week === 53) withWeek53.push(y);
      else expect(isoWeek(`${y}-12-28`).week).toBe(52);
    }
    expect(withWeek53).toEqual([2004, 2009, 2015, 2020, 2026, 2032, 2037]);
  });
});

describe("period starts, ends and labels", () => {
  it("labels each grain as the table, chart and CSV show it", () => {
    expect(periodLabel("2026-11-23", "day")).toBe("2026-11-23");
    expect(periodLabel("2026-11-23", "week")).toBe("2026-W48");
    expect(periodLabel("2026-11-01", "month")).toBe("2026-11");
    expect(periodLabel("2026-02-01", "month")).toBe("2026-02");
    expect(periodLabel("2026-10-01", "quarter")).toBe("2026-Q4");
    expect(periodLabel("2026-01-01", "quarter")).toBe("2026-Q1");
    expect(periodLabel("2026-04-01", "quarter")).toBe("2026-Q2");
    expect(periodLabel("2026-07-01", "quarter")).toBe("2026-Q3");
    expect(periodLabel("2026-01-01", "year")).toBe("2026");
    // Label shapes for every day of two years, at every grain.
    const shapes: Record<TimeGrain, RegExp> = {
      day: /^\d{4}-\d{2}-\d{2}$/,
      week: /^\d{4}-W(0[1-9]|[1-4]\d|5[0-3])$/,
      month: /^\d{4}-(0[1-9]|1[0-2])$/,
      quarter: /^\d{4}-Q[1-4]$/,
      year: /^\d{4}$/,
    };
    for (const d of daysOf({ start: "2024-01-01", end: "2025-12-31" })) {
      for (const g of TIME_GRAINS) expect(periodLabel(periodStart(d, g), g)).toMatch(shapes[g]);
    }
  });

  it("ends months on their last day: 31sts, 30ths, 28 and 29 February", () => {
    const ends: [string, string][] = [
      ["2026-01-01", "2026-01-31"],
      ["2025-02-01", "2025-02-28"],
      ["2026-02-01", "2026-02-28"],
      ["2024-02-01", "2024-02-29"],
      ["2000-02-01", "2000-02-29"], // divisible by 400: leap
      ["2100-02-01", "2100-02-28"], // divisible by 100 only: common
      ["2026-03-01", "2026-03-31"],
      ["2026-04-01", "2026-04-30"],
      ["2026-06-01", "2026-06-30"],
      ["2026-09-01", "2026-09-30"],
      ["2026-11-01", "2026-11-30"],
      ["2026-12-01", "2026-12-31"],
    ];
    for (const [start, end] of ends) expect(periodEnd(start, "month"), start).toBe(end);
    for (const d of ["2026-01-31", "2024-02-29", "2025-02-28", "2026-04-30", "2026-12-31", "2026-12-01"]) {
      expect(periodStart(d, "month")).toBe(`${d.slice(0, 7)}-01`);
    }
  });

  it("runs quarters January–March, April–June, July–September, October–December", () => {
    const quarters: [string, string, string, string][] = [
      ["2026-02-14", "2026-01-01", "2026-03-31", "2026-Q1"],
      ["2024-02-29", "2024-01-01", "2024-03-31", "2024-Q1"],
      ["2026-03-31", "2026-01-01", "2026-03-31", "2026-Q1"],
      ["2026-04-01", "2026-04-01", "2026-06-30", "2026-Q2"],
      ["2026-06-30", "2026-04-01", "2026-06-30", "2026-Q2"],
      ["2026-08-15", "2026-07-01", "2026-09-30", "2026-Q3"],
      ["2026-09-30", "2026-07-01", "2026-09-30", "2026-Q3"],
      ["2026-10-01", "2026-10-01", "2026-12-31", "2026-Q4"],
      ["2026-12-31", "2026-10-01", "2026-12-31", "2026-Q4"],
    ];
    for (const [day, start, end, label] of quarters) {
      expect(periodStart(day, "quarter"), day).toBe(start);
      expect(periodEnd(start, "quarter"), day).toBe(end);
      expect(periodLabel(start, "quarter"), day).toBe(label);
    }
  });

  it("runs years 1 January to 31 December and days one day long", () => {
    expect(periodStart("2024-02-29", "year")).toBe("2024-01-01");
    expect(periodEnd("2024-01-01", "year")).toBe("2024-12-31");
    expect(periodStart("2026-12-31", "year")).toBe("2026-01-01");
    expect(periodStart("2024-02-29", "day")).toBe("2024-02-29");
    expect(periodEnd("2024-02-29", "day")).toBe("2024-02-29");
  });

  it("puts every day inside its period, and the day after a period's end starts the next one", () => {
    for (const d of daysOf({ start: "2023-12-01", end: "2025-01-31" })) {
      for (const g of TIME_GRAINS) {
        const s = periodStart(d, g);
        const e = periodEnd(s, g);
        expect(s <= d && d <= e, `${d} ${g}`).toBe(true);
        expect(periodStart(e, g)).toBe(s);
        expect(periodStart(addDays(e, 1), g)).toBe(addDays(e, 1));
        expect(periodStart(addDays(s, -1), g)).not.toBe(s);
      }
    }
  });
});

describe("periods of a range", () => {
  it("clips the first week of a range starting mid-week and marks it partial", () => {
    // Wednesday 2026-11-18 to Sunday 2026-11-29.
    const range = { start: "2026-11-18", end: "2026-11-29" };
    expect(periodOf("2026-11-19", "week", range)).toEqual({
      start: "2026-11-16",
      end: "2026-11-22",
      label: "2026-W47",
      from: "2026-11-18",
      to: "2026-11-22",
      partial: true,
    });
    expect(periodsIn(range, "week")).toEqual([
      { start: "2026-11-16", end: "2026-11-22", label: "2026-W47", from: "2026-11-18", to: "2026-11-22", partial: true },
      { start: "2026-11-23", end: "2026-11-29", label: "2026-W48", from: "2026-11-23", to: "2026-11-29", partial: false },
    ]);
  });

  it("clips a week cut at both ends (a range inside one week)", () => {
    expect(periodsIn({ start: "2026-11-24", end: "2026-11-26" }, "week")).toEqual([
      { start: "2026-11-23", end: "2026-11-29", label: "2026-W48", from: "2026-11-24", to: "2026-11-26", partial: true },
    ]);
  });

  it("lists week 53 and the weeks either side of a year boundary", () => {
    expect(periodsIn({ start: "2020-12-21", end: "2021-01-10" }, "week").map((p) => [p.label, p.start, p.end, p.partial])).toEqual([
      ["2020-W52", "2020-12-21", "2020-12-27", false],
      ["2020-W53", "2020-12-28", "2021-01-03", false],
      ["2021-W01", "2021-01-04", "2021-01-10", false],
    ]);
    // A year's worth by week, starting on 1 January (a Thursday in 2026): the first week is cut.
    const weeks = periodsIn({ start: "2026-01-01", end: "2026-12-31" }, "week");
    expect(weeks[0]).toMatchObject({ label: "2026-W01", start: "2025-12-29", from: "2026-01-01", partial: true });
    expect(weeks.at(-1)).toMatchObject({ label: "2026-W53", start: "2026-12-28", end: "2027-01-03", to: "2026-12-31", partial: true });
    expect(weeks).toHaveLength(53);
  });

  it("clips months to the range and keeps whole months whole", () => {
    expect(periodsIn({ start: "2026-01-15", end: "2026-04-10" }, "month")).toEqual([
      { start: "2026-01-01", end: "2026-01-31", label: "2026-01", from: "2026-01-15", to: "2026-01-31", partial: true },
      { start: "2026-02-01", end: "2026-02-28", label: "2026-02", from: "2026-02-01", to: "2026-02-28", partial: false },
      { start: "2026-03-01", end: "2026-03-31", label: "2026-03", from: "2026-03-01", to: "2026-03-31", partial: false },
      { start: "2026-04-01", end: "2026-04-30", label: "2026-04", from: "2026-04-01", to: "2026-04-10", partial: true },
    ]);
    // A range ending on 28 February of a leap year cuts February; on the 29th it does not.
    expect(periodsIn({ start: "2024-02-01", end: "2024-02-28" }, "month")).toEqual([
      { start: "2024-02-01", end: "2024-02-29", label: "2024-02", from: "2024-02-01", to: "2024-02-28", partial: true },
    ]);
    expect(periodsIn({ start: "2024-02-01", end: "2024-02-29" }, "month")[0]!.partial).toBe(false);
    expect(periodsIn({ start: "2025-02-01", end: "2025-02-28" }, "month")[0]!.partial).toBe(false);
    // Months of 30 days.
    expect(periodsIn({ start: "2026-04-01", end: "2026-06-30" }, "month").map((p) => [p.label, p.end, p.partial])).toEqual([
      ["2026-04", "2026-04-30", false],
      ["2026-05", "2026-05-31", false],
      ["2026-06", "2026-06-30", false],
    ]);
  });

  it("ends a quarter on its last day and starts the next the day after", () => {
    expect(periodsIn({ start: "2026-03-15", end: "2026-07-02" }, "quarter")).toEqual([
      { start: "2026-01-01", end: "2026-03-31", label: "2026-Q1", from: "2026-03-15", to: "2026-03-31", partial: true },
      { start: "2026-04-01", end: "2026-06-30", label: "2026-Q2", from: "2026-04-01", to: "2026-06-30", partial: false },
      { start: "2026-07-01", end: "2026-09-30", label: "2026-Q3", from: "2026-07-01", to: "2026-07-02", partial: true },
    ]);
    expect(periodsIn({ start: "2025-10-01", end: "2026-03-31" }, "quarter").map((p) => [p.label, p.partial])).toEqual([
      ["2025-Q4", false],
      ["2026-Q1", false],
    ]);
  });

  it("lists years, partial where cut", () => {
    expect(periodsIn({ start: "2024-02-29", end: "2026-12-31" }, "year").map((p) => [p.label, p.from, p.to, p.partial])).toEqual([
      ["2024", "2024-02-29", "2024-12-31", true],
      ["2025", "2025-01-01", "2025-12-31", false],
      ["2026", "2026-01-01", "2026-12-31", false],
    ]);
  });

  it("lists one whole period per day at day grain", () => {
    const periods = periodsIn({ start: "2024-02-27", end: "2024-03-02" }, "day");
    expect(periods.map((p) => p.label)).toEqual(["2024-02-27", "2024-02-28", "2024-02-29", "2024-03-01", "2024-03-02"]);
    expect(periods.every((p) => !p.partial && p.from === p.start && p.to === p.end)).toBe(true);
  });

  it("covers a range exactly: contiguous, no gap, no overlap, every day once, at every grain", () => {
    const ranges: DayRange[] = [
      { start: "2026-01-01", end: "2026-01-01" },
      { start: "2024-02-29", end: "2024-02-29" },
      { start: "2020-12-30", end: "2021-01-02" },
      { start: "2023-11-15", end: "2025-03-03" },
      { start: "2026-11-18", end: "2026-11-29" },
      { start: "2026-10-02", end: "2026-10-31" },
      { start: "2019-12-31", end: "2027-01-05" },
    ];
    for (const range of ranges) {
      for (const g of TIME_GRAINS) {
        const periods = periodsIn(range, g);
        const what = `${range.start}..${range.end} by ${g}`;
        expect(periods[0]!.from, what).toBe(range.start);
        expect(periods.at(-1)!.to, what).toBe(range.end);
        let days = 0;
        periods.forEach((p, i) => {
          expect(p.start <= p.from && p.from <= p.to && p.to <= p.end, what).toBe(true);
          expect(p.start, what).toBe(periodStart(p.from, g));
          expect(p.end, what).toBe(periodEnd(p.start, g));
          expect(p.label, what).toBe(periodLabel(p.start, g));
          expect(p.partial, what).toBe(p.from !== p.start || p.to !== p.end);
          // Only the first and last period can be cut.
          if (i > 0 && i < periods.length - 1) expect(p.partial, what).toBe(false);
          if (i > 0) {
            expect(p.from, what).toBe(addDays(periods[i - 1]!.to, 1));
            expect(p.start, what).toBe(addDays(periods[i - 1]!.end, 1));
          }
          days += dayCount({ start: p.from, end: p.to });
          // Each of the period's days in the range is placed in this very period.
          expect(periodOf(p.to, g, range), what).toEqual(p);
          expect(periodOf(p.from, g, range), what).toEqual(p);
        });
        expect(days, what).toBe(dayCount(range));
        expect(new Set(periods.map((p) => p.label)).size, what).toBe(periods.length);
      }
    }
  });

  it("counts the days of a range, both ends included", () => {
    expect(dayCount({ start: "2026-11-01", end: "2026-11-30" })).toBe(30);
    expect(dayCount({ start: "2026-11-01", end: "2026-11-01" })).toBe(1);
    expect(dayCount({ start: "2024-01-01", end: "2024-12-31" })).toBe(366);
    expect(dayCount({ start: "2025-01-01", end: "2025-12-31" })).toBe(365);
    expect(dayCount({ start: "2024-02-28", end: "2024-03-01" })).toBe(3);
    expect(dayCount({ start: "2025-02-28", end: "2025-03-01" })).toBe(2);
  });
});

describe("the time zone boundary of today", () => {
  // 23:30 UTC on 31 January is 08:30 on 1 February in Tokyo (UTC+9).
  const now = new Date("2026-01-31T23:30:00Z");

  it("resolves today in the reporting time zone, not in UTC", () => {
    expect(todayIn("Asia/Tokyo", now)).toBe("2026-02-01");
    expect(todayIn("UTC", now)).toBe("2026-01-31");
    expect(todayIn(undefined, now)).toBe("2026-01-31");
    // West of UTC it is still the evening of the 31st.
    expect(todayIn("America/New_York", now)).toBe("2026-01-31");
  });

  it("makes the current month February, partial (1 to 1 February), in Tokyo, and January in UTC", () => {
    const tokyo = { start: "2026-01-01", end: todayIn("Asia/Tokyo", now) };
    const tokyoMonths = periodsIn(tokyo, "month");
    expect(tokyoMonths).toHaveLength(2);
    expect(tokyoMonths[0]).toMatchObject({ label: "2026-01", partial: false });
    expect(tokyoMonths.at(-1)).toEqual({
      start: "2026-02-01",
      end: "2026-02-28",
      label: "2026-02",
      from: "2026-02-01",
      to: "2026-02-01",
      partial: true,
    });
    expect(periodOf(tokyo.end, "month", tokyo).label).toBe("2026-02");

    const utc = { start: "2026-01-01", end: todayIn("UTC", now) };
    const utcMonths = periodsIn(utc, "month");
    expect(utcMonths).toEqual([{ start: "2026-01-01", end: "2026-01-31", label: "2026-01", from: "2026-01-01", to: "2026-01-31", partial: false }]);
    expect(periodOf(utc.end, "month", utc).label).toBe("2026-01");
  });

  it("makes the current week and quarter follow the same today", () => {
    // Sunday 1 February 2026 in Tokyo ends 2026-W05; Saturday 31 January in UTC is inside it.
    const tokyoEnd = todayIn("Asia/Tokyo", now);
    const utcEnd = todayIn("UTC", now);
    expect(periodOf(tokyoEnd, "week", { start: "2026-01-26", end: tokyoEnd })).toMatchObject({ label: "2026-W05", to: "2026-02-01", partial: false });
    expect(periodOf(utcEnd, "week", { start: "2026-01-26", end: utcEnd })).toMatchObject({ label: "2026-W05", to: "2026-01-31", partial: true });
    // 31 December 2026, 20:00 UTC is already 2027 in Tokyo: a new year and a new quarter.
    const newYear = new Date("2026-12-31T20:00:00Z");
    expect(periodLabel(periodStart(todayIn("Asia/Tokyo", newYear), "quarter"), "quarter")).toBe("2027-Q1");
    expect(periodLabel(periodStart(todayIn("UTC", newYear), "quarter"), "quarter")).toBe("2026-Q4");
  });
});
