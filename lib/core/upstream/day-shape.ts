/**
 * Shapes and when their days settle. A *shape* is a question without its dates, grouped by date
 * (the day grain): its days can be kept apart and put together for any range. A day is *settled*
 * once nothing more can arrive for it (`settleDays`); a day within its settle window stays current
 * only for a while (`freshUntil`). docs/dashboards.md ("Kept days") states the windows.
 */
import { LIMITS, getMetric, type Operation } from "@/lib/contract";
import { addDays, daysBetween, todayIn } from "@/lib/contract/dates";
import { MATURITY_WINDOW_DAYS } from "@/lib/contract/catalog";
import type { DateRange } from "./range-pieces";
import { canonicalQuery, effectiveMetrics, type ReportQuery } from "./records";

/** A question without its dates, at the day grain. */
export type Shape = Omit<ReportQuery, "start_date" | "end_date">;

/**
 * Days after which the upstream no longer changes a day's attempts (late settlement, imports that
 * arrive the next morning): today and the day before are always asked again.
 */
export const RECENT_SETTLE_DAYS = 2;

/**
 * A cohort's numbers change for as long as its customers rebill, are refunded or charged back
 * (SPEC.md: "whenever they happen, up to today"); a year covers the demo's subscriptions and the
 * networks' dispute windows after their last rebill.
 */
export const COHORT_SETTLE_DAYS = 365;

/** Days after which one metric of an operation stops changing for a day. */
export function metricSettleDays(op: Operation, metric: string): number {
  if (op === "cohort") return COHORT_SETTLE_DAYS;
  const m = getMetric(metric);
  // Chargebacks, refunds and alerts dated by their sale keep arriving for the sale's day.
  if (m && m.source !== "attempts" && m.dateBasis === "attempt") return MATURITY_WINDOW_DAYS[m.source] + RECENT_SETTLE_DAYS;
  return RECENT_SETTLE_DAYS;
}

/** Days after which a shape's day is settled: the longest window of its metrics. */
export function settleDays(op: Operation, shape: Shape): number {
  return Math.max(RECENT_SETTLE_DAYS, ...effectiveMetrics(op, withRange(shape, "", "")).map((m) => metricSettleDays(op, m)));
}

export function withRange(shape: Shape, start_date: string, end_date: string): ReportQuery {
  return { ...shape, start_date, end_date };
}

/** The key a shape is kept under: its operation and canonical spelling. */
export function shapeKey(op: Operation, shape: Shape): string {
  const { start_date: _s, end_date: _e, ...canonical } = canonicalQuery(op, withRange(shape, "", ""));
  return `${op}:${JSON.stringify(canonical)}`;
}

/**
 * The day-grain shape a query is fetched at, or null when it cannot be (six dimensions already, or
 * one that would cost more calls). A query grouped by date, or at the finest grain, is at it
 * already. Totals (no dimension) become one record a day, which fits a 101-day piece in one page as
 * the totals did. A breakdown is asked per day only when `rowsPerDay` (its dimensions' known
 * distinct values) says a piece still fits in one page, so the day grain never costs a call more.
 */
export function dayGrain(
  op: Operation,
  query: ReportQuery,
  rowsPerDay: (dims: readonly string[]) => number | undefined = () => undefined,
  maxPieceDays: number = LIMITS.maxRangeDays,
): Shape | null {
  const { start_date: _s, end_date: _e, ...shape } = canonicalQuery(op, query);
  if (!shape.group_by || shape.group_by.includes("date")) return shape;
  if (shape.group_by.length >= LIMITS.maxGroupBy) return null;
  if (shape.group_by.length > 0) {
    const rows = rowsPerDay(shape.group_by);
    if (rows === undefined || rows * (maxPieceDays + 1) > LIMITS.maxPageSize) return null;
  }
  return { ...shape, group_by: ["date", ...shape.group_by] };
}

/** How long a day within its settle window stays current. */
export interface Freshness {
  /** The reporting time zone: what "today" is. */
  timeZone: string;
  /** How long today's records (a day still under way when fetched) stay current. */
  ttlTodaySeconds: number;
  /** How long a past day within its settle window stays current before it is asked again. */
  ttlPastSeconds: number;
}

/**
 * Until when a day fetched at `fetchedAt` answers: for ever once it was settled when fetched (until
 * the totals check or the bound removes it), a short while when it was still under way, else until
 * the recent days are next asked again.
 */
export function freshUntil(day: string, fetchedAt: number, settle: number, config: Freshness): number {
  const fetchedOn = todayIn(config.timeZone, new Date(fetchedAt));
  if (daysBetween(day, fetchedOn) >= settle) return Number.POSITIVE_INFINITY;
  if (fetchedOn <= day) return fetchedAt + config.ttlTodaySeconds * 1000;
  return fetchedAt + config.ttlPastSeconds * 1000;
}

/** Consecutive days of `[start, end]` for which `has` is false. */
export function missingRuns(start: string, end: string, has: (day: string) => boolean): DateRange[] {
  const out: DateRange[] = [];
  for (let d = start; d <= end; d = addDays(d, 1)) {
    if (has(d)) continue;
    const last = out.at(-1);
    if (last && addDays(last.end_date, 1) === d) last.end_date = d;
    else out.push({ start_date: d, end_date: d });
  }
  return out;
}
