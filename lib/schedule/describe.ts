/**
 * A schedule in words, apart from its schema and slots (./spec.ts): the /alerts page draws every
 * rule's and subscription's schedule, and importing ./spec.ts would put zod (≈ 31 KB gzipped) in its
 * first load.
 */
import type { ScheduleSpec } from "./spec";

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

