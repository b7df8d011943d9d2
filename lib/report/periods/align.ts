/**
 * Which day of the report each compared day stands beside (./compare.ts says which days are compared).
 * Days are placed beside the report's days by position for previous and custom (day 1 with day 1),
 * by calendar date for last year, so that 1 March stays beside 1 March across a leap day, and by month
 * when the comparison is whole calendar months (the previous calendar period, or a custom range of as
 * many whole months): the n-th day of a compared month stands beside the n-th day of the report's
 * month, and the days a longer compared month has past the report month's end beside its last day,
 * so a month (quarter, year) row holds exactly its compared month (quarter, year), whatever their
 * lengths.
 */
import { addDays, daysBetween, isCalendarDate } from "@/lib/contract/dates";
import { calendarShift, isMonthEnd, shiftMonths, shiftYears, type CompareSelection } from "./compare";
import type { DayRange } from "./grain";

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
  const months = calendarShift(range, compare, cmp);
  if (months !== null) return shiftMonths(day, months);
  // By position: the i-th day of the comparison beside the i-th day of the report.
  return addDays(range.start, daysBetween(cmp.start, day));
}

/**
 * The compared days that stand beside the report's days `from`..`to` (for a tooltip or an export), or
 * null when none does (a 31st beside a month of 30 days, by day).
 * `byCalendar` as for alignedDay: unless placed by calendar, last year's 29 February stands beside 28
 * February, so a span ending on 28 February of a common year reaches the 29th of the year before.
 */
export function comparedSpan(from: string, to: string, range: DayRange, compare: CompareSelection, cmp: DayRange, byCalendar: boolean): DayRange | null {
  if (compare.kind === "year") {
    const end = shiftYears(to, -1);
    const leapDay = `${end.slice(0, 4)}-02-29`;
    const reachesLeapDay = !byCalendar && end.endsWith("-02-28") && isCalendarDate(leapDay) && leapDay <= cmp.end;
    return { start: shiftYears(from, -1), end: reachesLeapDay ? leapDay : end };
  }
  const months = calendarShift(range, compare, cmp);
  if (months !== null) {
    // shiftMonths is monotonic, so the days it takes into from..to are a run: from the first whose
    // image is not before `from` to the last whose image is not after `to`.
    const back = shiftMonths(from, -months);
    const start = back.slice(8) === from.slice(8) ? back : addDays(back, 1);
    const endBack = shiftMonths(to, -months);
    const end = isMonthEnd(to) ? addDays(shiftMonths(`${endBack.slice(0, 8)}01`, 1), -1) : endBack;
    return start <= end ? { start, end } : null;
  }
  const offset = daysBetween(cmp.start, range.start);
  return { start: addDays(from, -offset), end: addDays(to, -offset) };
}
