/**
 * How a report's date range is split into upstream calls: pieces of at most `maxPieceDays` + 1
 * calendar days (the contract's end ≤ start + 100), in order, covering the range exactly. Pure and
 * browser-safe: the fetcher sends these pieces, and the dashboard planner (lib/dashboards/plan.ts)
 * counts the same pieces to estimate what a report costs.
 */
import { LIMITS } from "@/lib/contract/limits";
import { addDays, daysBetween, isCalendarDate } from "@/lib/contract/dates";

export interface DateRange {
  start_date: string;
  end_date: string;
}

/** The pieces of `range`; none when its dates are not calendar dates (nothing to split). */
export function rangePieces(range: DateRange, maxPieceDays: number = LIMITS.maxRangeDays): DateRange[] {
  if (!isCalendarDate(range.start_date) || !isCalendarDate(range.end_date)) return [];
  const out: DateRange[] = [];
  let start = range.start_date;
  while (start <= range.end_date) {
    const end = daysBetween(start, range.end_date) > maxPieceDays ? addDays(start, maxPieceDays) : range.end_date;
    out.push({ start_date: start, end_date: end });
    start = addDays(end, 1);
  }
  return out;
}
