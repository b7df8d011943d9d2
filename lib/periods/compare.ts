/**
 * "Compare to": which days a report is compared with. Which day of the report each compared day stands
 * beside is in ./align.ts, which only the results need (issue 21: this module is in the report forms'
 * first load, and a module comes to the browser with every export any page uses).
 *
 * - previous: the same number of days, ending the day before the range starts;
 * - year: the same calendar dates one year earlier. 29 February has no twin in a common year: a range
 *   that includes it is compared with a range one day shorter, and a last year's 29 February (when
 *   the report's year is common) stands beside no day of the report. At grains of a week and longer
 *   the leap day simply falls into its period, and a range ending on 28 February of a common year is
 *   compared up to last year's 29 February, so whole months and quarters compare whole;
 * - custom: any range of the same number of days.
 */
import { addDays, isCalendarDate } from "@/lib/contract/dates";
import { dayCount, type DayRange } from "./grain";

export type CompareSelection = { kind: "none" } | { kind: "previous" } | { kind: "year" } | { kind: "custom"; start: string; end: string };
export const COMPARE_KINDS = ["none", "previous", "year", "custom"] as const;
export type CompareKind = (typeof COMPARE_KINDS)[number];

export const COMPARE_LABELS: Readonly<Record<CompareKind, string>> = {
  none: "Nothing",
  previous: "Previous period",
  year: "Same period last year",
  custom: "A custom range",
};

const ymd = (s: string) => ({ y: Number(s.slice(0, 4)), md: s.slice(4) });

/** The same month and day `years` later (negative: earlier); 29 February becomes 28 February in a common year. */
export function shiftYears(date: string, years: number): string {
  const { y, md } = ymd(date);
  const out = `${String(y + years).padStart(4, "0")}${md}`;
  return isCalendarDate(out) ? out : `${String(y + years).padStart(4, "0")}-02-28`;
}

/** The days the report is compared with, or null for none. */
export function comparisonRange(range: DayRange, compare: CompareSelection): DayRange | null {
  switch (compare.kind) {
    case "none":
      return null;
    case "previous": {
      const n = dayCount(range);
      return { start: addDays(range.start, -n), end: addDays(range.start, -1) };
    }
    case "year": {
      // A range ending on the last day of a common year's February ends on last year's last day of
      // February, the 29th in a leap year, so that February (and its quarter) compares whole.
      const end = shiftYears(range.end, -1);
      const leapEnd = `${end.slice(0, 4)}-02-29`;
      return { start: shiftYears(range.start, -1), end: range.end.endsWith("-02-28") && isCalendarDate(leapEnd) ? leapEnd : end };
    }
    case "custom":
      return { start: compare.start, end: compare.end };
  }
}

/** Why a custom comparison range cannot be used with `range`, or null when it can. */
export function customComparisonProblem(range: DayRange, custom: DayRange): string | null {
  if (!isCalendarDate(custom.start) || !isCalendarDate(custom.end) || custom.start > custom.end) {
    return `The comparison range must be two dates, YYYY-MM-DD..YYYY-MM-DD, the first not after the second.`;
  }
  const n = dayCount(range);
  const m = dayCount(custom);
  if (m !== n) return `The comparison range has ${m} days; the report has ${n}, and a comparison needs the same number.`;
  return null;
}

/** Whether a range holds a 29 February: only then does "same period last year" compare unequal days. */
export function holdsLeapDay(range: DayRange): boolean {
  for (let y = Number(range.start.slice(0, 4)); y <= Number(range.end.slice(0, 4)); y++) {
    const day = `${String(y).padStart(4, "0")}-02-29`;
    if (isCalendarDate(day) && day >= range.start && day <= range.end) return true;
  }
  return false;
}
