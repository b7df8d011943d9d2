/**
 * The schedule a user picks for an alert or a scheduled report, and its slots: the
 * instants it is due, in the reporting time zone. Pure and browser-safe (the form shows the
 * description and the next slot); the server's Scheduler (./scheduler.ts) runs the slots.
 *
 * Slots come from croner, which knows the time zone's daylight-saving rules. A schedule at a fixed
 * hour (every day, week or month) has exactly one slot on each of its days: on a spring-forward day
 * a 02:00 that does not exist runs when the clock has jumped (03:00), and on a fall-back day a time
 * that occurs twice runs at its first occurrence. An hourly schedule has a slot for each hour that
 * actually passes: none for the skipped hour, two for the repeated one.
 */
import { Cron } from "croner";
import { z } from "zod";

const hour = z.int().min(0).max(23);

export const ScheduleSpec = z.discriminatedUnion("every", [
  /** Every hour, at `minute` past (default 0). */
  z.strictObject({ every: z.literal("hour"), minute: z.int().min(0).max(59).optional() }),
  /** Every day at `hour`:00. */
  z.strictObject({ every: z.literal("day"), hour }),
  /** Every week on `weekday` (ISO: Monday 1 … Sunday 7) at `hour`:00. */
  z.strictObject({ every: z.literal("week"), weekday: z.int().min(1).max(7), hour }),
  /** Every month on `day` (1–28, so every month has it) at `hour`:00. */
  z.strictObject({ every: z.literal("month"), day: z.int().min(1).max(28), hour }),
]);
export type ScheduleSpec = z.infer<typeof ScheduleSpec>;

/**
 * The 5-field cron pattern (minute hour day-of-month month day-of-week, Sunday 0) of a schedule.
 * Throws a ZodError for a spec outside the schema (a value built in code, say).
 */
export function cronOf(spec: ScheduleSpec): string {
  const s = ScheduleSpec.parse(spec);
  switch (s.every) {
    case "hour":
      return `${s.minute ?? 0} * * * *`;
    case "day":
      return `0 ${s.hour} * * *`;
    case "week":
      return `0 ${s.hour} * * ${s.weekday % 7}`;
    case "month":
      return `0 ${s.hour} ${s.day} * *`;
  }
}

const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;

const pad = (n: number) => String(n).padStart(2, "0");

function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th"}`;
}

/** "Every day at 08:00 (Europe/Berlin)", "Every Monday at 07:00 (UTC)", "Every hour at :15 (UTC)". */
export function describeSchedule(spec: ScheduleSpec, timeZone: string): string {
  const at = (h: number) => `${pad(h)}:00`;
  switch (spec.every) {
    case "hour":
      return `Every hour at :${pad(spec.minute ?? 0)} (${timeZone})`;
    case "day":
      return `Every day at ${at(spec.hour)} (${timeZone})`;
    case "week":
      return `Every ${WEEKDAYS[spec.weekday - 1] ?? `weekday ${spec.weekday}`} at ${at(spec.hour)} (${timeZone})`;
    case "month":
      return `Every month on the ${ordinal(spec.day)} at ${at(spec.hour)} (${timeZone})`;
  }
}

/** A croner job that only computes (no function, so it never schedules a timer). */
function cron(spec: ScheduleSpec, timeZone: string): Cron {
  return new Cron(cronOf(spec), { timezone: timeZone, mode: "5-part" });
}

/**
 * The most recent slot at or before `now`. Throws for an unknown time zone (croner's RangeError)
 * or an invalid spec (ZodError).
 */
export function latestSlot(spec: ScheduleSpec, now: Date, timeZone: string): Date {
  // previousRuns gives runs strictly before its reference (one earlier in the same second counts),
  // so a reference 1 ms later includes a slot exactly at `now`.
  const slot = cron(spec, timeZone).previousRuns(1, new Date(now.getTime() + 1))[0];
  if (!slot) throw new Error(`no slot of ${cronOf(spec)} before ${now.toISOString()}`);
  return slot;
}

/** The first slot strictly after `after`. Throws like latestSlot. */
export function nextSlot(spec: ScheduleSpec, after: Date, timeZone: string): Date {
  const slot = cron(spec, timeZone).nextRun(after);
  if (!slot) throw new Error(`no slot of ${cronOf(spec)} after ${after.toISOString()}`);
  return slot;
}
