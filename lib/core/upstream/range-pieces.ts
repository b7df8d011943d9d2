/**
 * How a report's date range is split into upstream calls: pieces of at most `maxPieceDays` + 1
 * calendar days (the contract's end ≤ start + 100), in order, covering the range exactly. Pure and
 * browser-safe: the fetcher sends these pieces, and the dashboard planner (lib/features/dashboards/plan.ts)
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

/**
 * What to fetch for the runs of days a store lacks: the runs themselves, or the one span from the
 * first to the last when that takes fewer pieces (fewer calls), so that kept days in the middle of
 * a range never make it cost more than asking it whole.
 */
export function fetchRanges(missing: readonly DateRange[], maxPieceDays: number = LIMITS.maxRangeDays): DateRange[] {
  const first = missing[0];
  const last = missing.at(-1);
  if (!first || !last) return [];
  const runs = missing.reduce((n, r) => n + rangePieces(r, maxPieceDays).length, 0);
  const span = { start_date: first.start_date, end_date: last.end_date };
  return rangePieces(span, maxPieceDays).length < runs ? [span] : missing.map((r) => ({ ...r }));
}
