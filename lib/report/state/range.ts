/**
 * Date ranges: named presets and custom ranges, resolved to calendar dates in one place, against
 * "today" in the reporting time zone (which the page computes once, on the server, with `todayIn`).
 */
import { LIMITS } from "@/lib/contract/limits";
import { addDays, daysBetween, isCalendarDate } from "@/lib/contract/dates";
import { periodStart } from "@/lib/report/periods/periods";

/** The longest custom range the dashboard takes (it splits it into 100-day calls). */
export const MAX_RANGE_DAYS = LIMITS.maxDashboardRangeDays;

export const RANGE_PRESETS = [
  { id: "today", label: "Today" },
  { id: "yesterday", label: "Yesterday" },
  { id: "last7", label: "Last 7 days" },
  { id: "last30", label: "Last 30 days" },
  { id: "last90", label: "Last 90 days" },
  { id: "mtd", label: "Month to date" },
  { id: "lastmonth", label: "Last month" },
  { id: "qtd", label: "Quarter to date" },
  { id: "lastquarter", label: "Last quarter" },
  { id: "ytd", label: "Year to date" },
  { id: "lastyear", label: "Last year" },
  { id: "last180", label: "Last 180 days" },
  { id: "last365", label: "Last 365 days" },
] as const;

export type RangePreset = (typeof RANGE_PRESETS)[number]["id"];

/**
 * The presets Explore (and every page and share link) offers; Cohorts and dashboards also offer the
 * longer rolling ones. A year is over the service's 100-day cap: the dashboard splits it into calls.
 */
export const EXPLORE_PRESETS: readonly RangePreset[] = ["today", "yesterday", "last7", "last30", "last90", "mtd", "lastmonth", "qtd", "lastquarter", "ytd", "lastyear"];
export const COHORT_PRESETS: readonly RangePreset[] = [...EXPLORE_PRESETS, "last180", "last365"];

export type RangeSelection = { preset: RangePreset } | { start: string; end: string };

export interface ResolvedRange {
  start: string;
  end: string;
}

const presetIds = new Set<string>(RANGE_PRESETS.map((p) => p.id));
export function isRangePreset(s: string): s is RangePreset {
  return presetIds.has(s);
}

export function presetLabel(p: RangePreset): string {
  return RANGE_PRESETS.find((x) => x.id === p)?.label ?? p;
}

const lastDays = (today: string, n: number): ResolvedRange => ({ start: addDays(today, -(n - 1)), end: today });

/**
 * Calendar dates of a selection. "Last N days" are the N days ending today, today included (today's
 * data is partial until midnight in the reporting time zone; the status line says when it was fetched).
 * "Last month/quarter/year" are the whole calendar period before today's; "to date" ones run from the
 * first day of today's month, quarter or year to today.
 */
export function resolveRange(range: RangeSelection, today: string): ResolvedRange {
  if (!("preset" in range)) return { start: range.start, end: range.end };
  switch (range.preset) {
    case "today":
      return { start: today, end: today };
    case "yesterday": {
      const y = addDays(today, -1);
      return { start: y, end: y };
    }
    case "last7":
      return lastDays(today, 7);
    case "last30":
      return lastDays(today, 30);
    case "last90":
      return lastDays(today, 90);
    case "last180":
      return lastDays(today, 180);
    case "last365":
      return lastDays(today, 365);
    case "mtd":
      return { start: `${today.slice(0, 7)}-01`, end: today };
    case "lastmonth": {
      const firstOfThis = `${today.slice(0, 7)}-01`;
      const lastOfPrev = addDays(firstOfThis, -1);
      return { start: `${lastOfPrev.slice(0, 7)}-01`, end: lastOfPrev };
    }
    case "qtd":
      return { start: periodStart(today, "quarter"), end: today };
    case "lastquarter": {
      const lastOfPrev = addDays(periodStart(today, "quarter"), -1);
      return { start: periodStart(lastOfPrev, "quarter"), end: lastOfPrev };
    }
    case "ytd":
      return { start: periodStart(today, "year"), end: today };
    case "lastyear": {
      const lastOfPrev = addDays(periodStart(today, "year"), -1);
      return { start: periodStart(lastOfPrev, "year"), end: lastOfPrev };
    }
  }
}

/** A custom range the dashboard accepts: real dates, in order, at most ~10 years. */
export function isValidCustomRange(start: string, end: string): boolean {
  if (!isCalendarDate(start) || !isCalendarDate(end)) return false;
  const span = daysBetween(start, end);
  return span >= 0 && span <= MAX_RANGE_DAYS;
}

export function rangeDays(r: ResolvedRange): number {
  return daysBetween(r.start, r.end) + 1;
}

/** A selection kept if it is a known preset or a valid custom range, else `fallback`. */
export function normalizeRange(range: RangeSelection, fallback: RangePreset): RangeSelection {
  if ("preset" in range) return isRangePreset(range.preset) ? { preset: range.preset } : { preset: fallback };
  return isValidCustomRange(range.start, range.end) ? { start: range.start, end: range.end } : { preset: fallback };
}
