/**
 * "Compare to": which days a report is compared with, and which day of the report each compared day
 * stands beside.
 *
 * - previous: the same number of days, ending the day before the range starts;
 * - year: the same calendar dates one year earlier. 29 February has no twin in a common year: a range
 *   that includes it is compared with a range one day shorter, and a last year's 29 February (when
 *   the report's year is common) stands beside no day of the report. At grains of a week and longer
 *   the leap day simply falls into its period, and a range ending on 28 February of a common year is
 *   compared up to last year's 29 February, so whole months and quarters compare whole;
 * - custom: any range of the same number of days.
 *
 * Days are placed beside the report's days by position for previous and custom (day 1 with day 1)
 * and by calendar date for last year, so that 1 March stays beside 1 March across a leap day.
 */
import { addDays, daysBetween, isCalendarDate } from "@/lib/contract/dates";
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

/**
 * The report's day a compared day stands beside, or null when it stands beside none (last year's 29
 * February at day grain).
 */
export function alignedDay(day: string, range: DayRange, compare: CompareSelection, cmp: DayRange, byCalendar: boolean): string | null {
  if (compare.kind === "year") {
    if (byCalendar && day.endsWith("-02-29") && !isCalendarDate(`${String(Number(day.slice(0, 4)) + 1).padStart(4, "0")}-02-29`)) return null;
    const twin = shiftYears(day, 1);
    // A range starting on 29 February is compared from 28 February of a common year: that day is in
    // the comparison only as the twin of the range's first day, so it stands beside it (not beside the
    // 28th, which is outside the report).
    return twin < range.start ? range.start : twin;
  }
  // By position: the i-th day of the comparison beside the i-th day of the report.
  return addDays(range.start, daysBetween(cmp.start, day));
}

/**
 * The compared days that stand beside the report's days `from`..`to` (for a tooltip or an export).
 * `byCalendar` as for alignedDay: unless placed by calendar, last year's 29 February stands beside 28
 * February, so a span ending on 28 February of a common year reaches the 29th of the year before.
 */
export function comparedSpan(from: string, to: string, range: DayRange, compare: CompareSelection, cmp: DayRange, byCalendar: boolean): DayRange {
  if (compare.kind === "year") {
    const end = shiftYears(to, -1);
    const leapDay = `${end.slice(0, 4)}-02-29`;
    const reachesLeapDay = !byCalendar && end.endsWith("-02-28") && isCalendarDate(leapDay) && leapDay <= cmp.end;
    return { start: shiftYears(from, -1), end: reachesLeapDay ? leapDay : end };
  }
  const offset = daysBetween(cmp.start, range.start);
  return { start: addDays(from, -offset), end: addDays(to, -offset) };
}

/** Whether a range holds a 29 February: only then does "same period last year" compare unequal days. */
export function holdsLeapDay(range: DayRange): boolean {
  for (let y = Number(range.start.slice(0, 4)); y <= Number(range.end.slice(0, 4)); y++) {
    const day = `${String(y).padStart(4, "0")}-02-29`;
    if (isCalendarDate(day) && day >= range.start && day <= range.end) return true;
  }
  return false;
}
