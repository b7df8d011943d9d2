/**
 * Time grains of the `date` dimension by name, and ranges of days. The calendar arithmetic (which
 * period a day belongs to, its first and last day, its label) is in ./periods.ts: the report forms
 * need only these names, and a module comes to the browser whole, with every export any page uses
 * (the forms are in the pages' first load, the arithmetic comes with the results).
 */
import { toEpochDay } from "@/lib/contract/dates";

export const TIME_GRAINS = ["day", "week", "month", "quarter", "year"] as const;
export type TimeGrain = (typeof TIME_GRAINS)[number];

export const GRAIN_LABELS: Readonly<Record<TimeGrain, string>> = { day: "Day", week: "Week (ISO, Monday first)", month: "Month", quarter: "Quarter", year: "Year" };

export function isTimeGrain(s: string): s is TimeGrain {
  return (TIME_GRAINS as readonly string[]).includes(s);
}

export interface DayRange {
  start: string;
  end: string;
}

/** Days in a range, both ends included. */
export function dayCount(range: DayRange): number {
  return toEpochDay(range.end) - toEpochDay(range.start) + 1;
}

