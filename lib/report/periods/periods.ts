/**
 * The calendar periods of a time grain: which period a day belongs to, the period's first and last
 * day, and its label. Days are calendar dates already in the reporting time zone (the service answers
 * in it), so no time zone arithmetic happens here: a period is a run of calendar dates.
 *
 * Weeks are ISO 8601 weeks: Monday first, numbered within the ISO year of their Thursday, so
 * 2020-12-28 is in 2020-W53 and 2021-01-03 too.
 */
import { addDays, toEpochDay } from "@/lib/contract/dates";
import type { DayRange, TimeGrain } from "./grain";

const ymd = (s: string) => ({ y: Number(s.slice(0, 4)), m: Number(s.slice(5, 7)), d: Number(s.slice(8, 10)) });
const pad = (n: number, w = 2) => String(n).padStart(w, "0");
const dateOf = (y: number, m: number, d: number) => `${pad(y, 4)}-${pad(m)}-${pad(d)}`;

/** 1 = Monday … 7 = Sunday (1970-01-01 was a Thursday). */
function isoWeekday(date: string): number {
  return ((((toEpochDay(date) + 3) % 7) + 7) % 7) + 1;
}

/** The first day of the period `date` falls in. */
export function periodStart(date: string, grain: TimeGrain): string {
  const { y, m } = ymd(date);
  switch (grain) {
    case "day":
      return date;
    case "week":
      return addDays(date, 1 - isoWeekday(date));
    case "month":
      return dateOf(y, m, 1);
    case "quarter":
      return dateOf(y, m - ((m - 1) % 3), 1);
    case "year":
      return dateOf(y, 1, 1);
  }
}

/** The last day of the period that starts on `start`. */
export function periodEnd(start: string, grain: TimeGrain): string {
  const { y, m } = ymd(start);
  const monthsLater = (n: number) => {
    const total = y * 12 + (m - 1) + n;
    return addDays(dateOf(Math.floor(total / 12), (total % 12) + 1, 1), -1);
  };
  switch (grain) {
    case "day":
      return start;
    case "week":
      return addDays(start, 6);
    case "month":
      return monthsLater(1);
    case "quarter":
      return monthsLater(3);
    case "year":
      return dateOf(y, 12, 31);
  }
}

/** The ISO week-numbering year and week of a day. */
export function isoWeek(date: string): { year: number; week: number } {
  // The week belongs to the year of its Thursday.
  const thursday = addDays(date, 4 - isoWeekday(date));
  const year = ymd(thursday).y;
  const week = Math.floor((toEpochDay(thursday) - toEpochDay(dateOf(year, 1, 1))) / 7) + 1;
  return { year, week };
}

/** "2026-11-23", "2026-W48", "2026-11", "2026-Q4", "2026": what the table, chart and CSV show. */
export function periodLabel(start: string, grain: TimeGrain): string {
  const { y, m } = ymd(start);
  switch (grain) {
    case "day":
      return start;
    case "week": {
      const w = isoWeek(start);
      return `${w.year}-W${pad(w.week)}`;
    }
    case "month":
      return `${pad(y, 4)}-${pad(m)}`;
    case "quarter":
      return `${pad(y, 4)}-Q${Math.floor((m - 1) / 3) + 1}`;
    case "year":
      return pad(y, 4);
  }
}

export interface Period {
  /** The period's first and last day, whole. */
  start: string;
  end: string;
  label: string;
  /** The days of the period inside the range (all of them unless it is partial). */
  from: string;
  to: string;
  /** The range cuts the period: it starts before the range or ends after it. */
  partial: boolean;
}

/** What a partial period's "(partial)" abbreviates: the table, pivot and cohort grid say it in these words. */
export function partialNote(p: Pick<Period, "from" | "to" | "start" | "end">): string {
  return `Only ${p.from} to ${p.to} of ${p.start} to ${p.end} is in the range.`;
}

export function periodOf(date: string, grain: TimeGrain, range: DayRange): Period {
  const start = periodStart(date, grain);
  const end = periodEnd(start, grain);
  const from = start < range.start ? range.start : start;
  const to = end > range.end ? range.end : end;
  return { start, end, label: periodLabel(start, grain), from, to, partial: from !== start || to !== end };
}

/** Every period that meets the range, oldest first. */
export function periodsIn(range: DayRange, grain: TimeGrain): Period[] {
  const out: Period[] = [];
  for (let d = range.start; d <= range.end; d = addDays(periodEnd(periodStart(d, grain), grain), 1)) out.push(periodOf(d, grain, range));
  return out;
}
