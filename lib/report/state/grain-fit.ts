/**
 * The grain a dashboard's date rows use for a range: the one asked for when the range holds at least
 * one whole period of it, else the coarsest finer grain that fits, with a sentence saying so. A
 * "Last 7 days" read by month would be one or two partial months: points that say nothing.
 */
import { dayCount, TIME_GRAINS, type DayRange, type TimeGrain } from "@/lib/report/periods/grain";

/** The fewest days one period of a grain can have (February; a common year's first quarter). */
export const SHORTEST_PERIOD_DAYS: Readonly<Record<TimeGrain, number>> = { day: 1, week: 7, month: 28, quarter: 90, year: 365 };

const GRAIN_WORDS: Readonly<Record<TimeGrain, string>> = { day: "day", week: "week", month: "month", quarter: "quarter", year: "year" };

export interface GrainFit {
  /** The grain the rows use. */
  grain: TimeGrain;
  /** Why it is not the one asked for; null when it is. */
  note: string | null;
}

export function fitGrain(range: DayRange, asked: TimeGrain): GrainFit {
  const days = dayCount(range);
  if (days >= SHORTEST_PERIOD_DAYS[asked]) return { grain: asked, note: null };
  const finer = TIME_GRAINS.slice(0, TIME_GRAINS.indexOf(asked)).reverse();
  const grain = finer.find((g) => days >= SHORTEST_PERIOD_DAYS[g]) ?? "day";
  const span = days === 1 ? "1 day is" : `${days} days are`;
  const a = GRAIN_WORDS[asked];
  return { grain, note: `By ${GRAIN_WORDS[grain]}, not by ${a}: the range's ${span} shorter than a ${a}, so every ${a} shown would be partial.` };
}
