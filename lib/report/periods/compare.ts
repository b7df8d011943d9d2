/**
 * "Compare to": which days a report is compared with. Which day of the report each compared day stands
 * beside is in ./align.ts, which only the results need (this module is in the report forms'
 * first load, and a module comes to the browser with every export any page uses).
 *
 * - previous: the same number of days, ending the day before the range starts;
 * - calendar: when the range is whole calendar months (a quarter, a year, or any run of months), as
 *   many months just before it: Q3 → Q2, October → September, January–March → October–December,
 *   2025 → 2024, whatever the months' lengths. Any other range has no previous calendar period and
 *   is refused (comparisonProblem says why);
 * - year: the same calendar dates one year earlier. 29 February has no twin in a common year: a range
 *   that includes it is compared with a range one day shorter, and a last year's 29 February (when
 *   the report's year is common) stands beside no day of the report. At grains of a week and longer
 *   the leap day simply falls into its period, and a range ending on 28 February of a common year is
 *   compared up to last year's 29 February, so whole months and quarters compare whole;
 * - custom: a range of its own start and end that shares no day with the report. It has the report's
 *   number of days, or (when both are whole calendar months) as many months as the report, whatever
 *   their days: months then stand beside months, as for the previous calendar period.
 */
import { addDays, isCalendarDate } from "@/lib/contract/dates";
import { dayCount, type DayRange } from "./grain";
import { periodEnd } from "./periods";

export type CompareSelection = { kind: "none" } | { kind: "previous" } | { kind: "calendar" } | { kind: "year" } | { kind: "custom"; start: string; end: string };
export const COMPARE_KINDS = ["none", "previous", "calendar", "year", "custom"] as const;
export type CompareKind = (typeof COMPARE_KINDS)[number];

export const COMPARE_LABELS: Readonly<Record<CompareKind, string>> = {
  none: "Nothing",
  previous: "Previous period of the same length",
  calendar: "Previous calendar period",
  year: "Same period last year",
  custom: "A custom range",
};

const ymd = (s: string) => ({ y: Number(s.slice(0, 4)), md: s.slice(4) });
const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** The same month and day `years` later (negative: earlier); 29 February becomes 28 February in a common year. */
export function shiftYears(date: string, years: number): string {
  const { y, md } = ymd(date);
  const out = `${String(y + years).padStart(4, "0")}${md}`;
  return isCalendarDate(out) ? out : `${String(y + years).padStart(4, "0")}-02-28`;
}

/** Months since year 0 of the month a date is in. */
export function monthIndex(date: string): number {
  return Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1;
}

const monthStart = (index: number) => `${pad(Math.floor(index / 12), 4)}-${pad((index % 12) + 1)}-01`;
const monthEnd = (index: number) => periodEnd(monthStart(index), "month");

/** The same day of the month `months` later (negative: earlier), or the month's last day when it is shorter. */
export function shiftMonths(date: string, months: number): string {
  const index = monthIndex(date) + months;
  const end = monthEnd(index);
  const day = `${monthStart(index).slice(0, 8)}${date.slice(8, 10)}`;
  return isCalendarDate(day) && day <= end ? day : end;
}

/** Whether a date is the last day of its month. */
export const isMonthEnd = (date: string): boolean => periodEnd(`${date.slice(0, 8)}01`, "month") === date;

export type CalendarUnit = "month" | "quarter" | "year";

/**
 * The range as whole calendar periods: its number of months, and the largest unit it is a whole
 * number of (a year from 1 January, a quarter from 1 January, April, July or October), or null when
 * it starts after a month's first day or ends before a month's last.
 */
export function wholeMonths(range: DayRange): { months: number; unit: CalendarUnit; count: number } | null {
  if (!isCalendarDate(range.start) || !isCalendarDate(range.end) || range.start > range.end) return null;
  if (!range.start.endsWith("-01") || !isMonthEnd(range.end)) return null;
  const months = monthIndex(range.end) - monthIndex(range.start) + 1;
  const first = monthIndex(range.start) % 12;
  if (first === 0 && months % 12 === 0) return { months, unit: "year", count: months / 12 };
  if (first % 3 === 0 && months % 3 === 0) return { months, unit: "quarter", count: months / 3 };
  return { months, unit: "month", count: months };
}

/**
 * On a dashboard, the previous period of a range of whole calendar months is as many calendar months
 * before it: "Last month" (October) beside September, not beside the 31 days before it (31 August to
 * 30 September), which would put a day of August into a month's comparison. Any other comparison, and
 * any other range, is kept.
 */
export function previousAsCalendar(range: DayRange, compare: CompareSelection): CompareSelection {
  return compare.kind === "previous" && wholeMonths(range) ? { kind: "calendar" } : compare;
}

/** "1 day", "3 days". */
const count = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
/** "quarter", "3 quarters": a run of units named after "previous". */
const units = (n: number, unit: string) => (n === 1 ? unit : count(n, unit));

/** The days the report is compared with, or null for none (and for a comparison comparisonProblem refuses). */
export function comparisonRange(range: DayRange, compare: CompareSelection): DayRange | null {
  switch (compare.kind) {
    case "none":
      return null;
    case "previous": {
      const n = dayCount(range);
      return { start: addDays(range.start, -n), end: addDays(range.start, -1) };
    }
    case "calendar": {
      const whole = wholeMonths(range);
      if (!whole) return null;
      const first = monthIndex(range.start) - whole.months;
      return { start: monthStart(first), end: monthEnd(first + whole.months - 1) };
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

/**
 * How many months the report is after its comparison when the two stand month beside month (the
 * previous calendar period, or a custom range of as many whole months as the report), else null.
 */
export function calendarShift(range: DayRange, compare: CompareSelection, cmp: DayRange): number | null {
  if (compare.kind !== "calendar" && compare.kind !== "custom") return null;
  const a = wholeMonths(range);
  const b = wholeMonths(cmp);
  return a && b && a.months === b.months ? monthIndex(range.start) - monthIndex(cmp.start) : null;
}

const spanText = (r: DayRange) => (r.start === r.end ? r.start : `${r.start}..${r.end}`);

/** Days both ranges hold. */
function sharedDays(a: DayRange, b: DayRange): number {
  const start = a.start > b.start ? a.start : b.start;
  const end = a.end < b.end ? a.end : b.end;
  return start > end ? 0 : dayCount({ start, end });
}

/** Why a custom comparison range cannot be used with `range`, or null when it can. */
export function customComparisonProblem(range: DayRange, custom: DayRange): string | null {
  if (!isCalendarDate(custom.start) || !isCalendarDate(custom.end) || custom.start > custom.end) {
    return `The comparison range must be two dates, YYYY-MM-DD..YYYY-MM-DD, the first not after the second.`;
  }
  const shared = sharedDays(range, custom);
  if (shared > 0) {
    return `The comparison ${spanText(custom)} overlaps the report's ${spanText(range)} (${count(shared, "day")} in both): a comparison must not share days with the report.`;
  }
  const n = dayCount(range);
  const m = dayCount(custom);
  if (m === n || calendarShift(range, { kind: "custom", ...custom }, custom) !== null) return null;
  const months = wholeMonths(range);
  const alternative = months ? `, or ${count(months.months, "whole calendar month")} like the report` : "";
  return `The comparison range has ${m} days; the report has ${n}, and a comparison needs the same number${alternative}.`;
}

/**
 * Why `compare` cannot be used with `range` (the user sees it), or null when it can: a previous
 * calendar period of a range that is not whole months, a custom range that overlaps the report or is
 * of another length, the same dates a year earlier of a range longer than a year (they overlap it).
 */
export function comparisonProblem(range: DayRange, compare: CompareSelection): string | null {
  switch (compare.kind) {
    case "none":
    case "previous":
      return null;
    case "calendar":
      return wholeMonths(range)
        ? null
        : `${spanText(range)} is not whole calendar months, so it has no previous calendar period: choose whole months, quarters or years, or another comparison.`;
    case "year": {
      const cmp = comparisonRange(range, compare)!;
      const shared = sharedDays(range, cmp);
      return shared > 0 ? `${spanText(range)} is longer than a year: the same dates a year earlier share ${count(shared, "day")} with it.` : null;
    }
    case "custom":
      return customComparisonProblem(range, compare);
  }
}

const UNIT_WORDS: Readonly<Record<CalendarUnit, string>> = { month: "month", quarter: "quarter", year: "year" };

/**
 * The comparison as a column names it: "previous 30 days", "previous quarter", "previous 2 months",
 * "same period last year", "a custom range". `cmp` is the compared days.
 */
export function comparisonName(compare: CompareSelection, cmp: DayRange): string {
  switch (compare.kind) {
    case "none":
      return "nothing";
    case "previous":
      return `previous ${units(dayCount(cmp), "day")}`;
    case "calendar": {
      const whole = wholeMonths(cmp);
      return whole ? `previous ${units(whole.count, UNIT_WORDS[whole.unit])}` : "previous calendar period";
    }
    case "year":
      return "same period last year";
    case "custom":
      return "a custom range";
  }
}

/**
 * Which days the report is compared with, in words: "the previous 30 days, 2026-09-02 to 2026-10-01",
 * "the previous quarter (previous calendar period), 2026-04-01 to 2026-06-30". Unequal lengths are said.
 */
export function describeComparison(range: DayRange, compare: CompareSelection, cmp: DayRange): string {
  const name = comparisonName(compare, cmp);
  const what = compare.kind === "custom" ? name : compare.kind === "calendar" ? `the ${name} (previous calendar period)` : `the ${name}`;
  const n = dayCount(range);
  const m = dayCount(cmp);
  const notes: string[] = [];
  if (m !== n) notes.push(`${count(m, "day")} against the report's ${n}`);
  if (calendarShift(range, compare, cmp) !== null && m !== n) notes.push("month beside month");
  if (compare.kind === "year" && (holdsLeapDay(range) || holdsLeapDay(cmp))) notes.push("29 February has no twin in a common year");
  return `${what}, ${cmp.start} to ${cmp.end}${notes.length ? ` (${notes.join("; ")})` : ""}`;
}

/** Whether a range holds a 29 February: only then does "same period last year" compare unequal days. */
export function holdsLeapDay(range: DayRange): boolean {
  for (let y = Number(range.start.slice(0, 4)); y <= Number(range.end.slice(0, 4)); y++) {
    const day = `${String(y).padStart(4, "0")}-02-29`;
    if (isCalendarDate(day) && day >= range.start && day <= range.end) return true;
  }
  return false;
}
