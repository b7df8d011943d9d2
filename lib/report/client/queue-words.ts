/**
 * Where a call waiting for the shared reporting quota stands, in the words Explore's status line
 * uses, so every screen that waits (Monitor, drill-down, dashboards, BIN evidence, shares) says it
 * the same way. Small and free of the rest of the status words, so a screen can have these alone.
 */
import { formatInstant, formatWait } from "@/lib/report/metrics/format";

/** A queued call as the job status gives it: calls ahead of it (everyone's), and when it should start. */
export interface QueuePlace {
  position: number;
  estimated_start: string;
}

/** "Next in line" or "Position 3 in the queue" (two calls ahead). */
export function queuePosition(position: number): string {
  return position <= 0 ? "Next in line" : `Position ${position + 1} in the queue`;
}

/** "Position 3 in the queue; estimated start about 40 s", the wait counted from `at` (ms since epoch), when the status was received. */
export function queueWords(s: QueuePlace, at: number): string {
  return `${queuePosition(s.position)}; estimated start ${formatWait(Date.parse(s.estimated_start) - at)}`;
}

/**
 * The same, with the estimate as a time of day: for a screen drawn once on the server and again in
 * the browser, where a wait counted from "now" would differ between the two.
 */
export function queueWordsAt(s: QueuePlace, timeZone: string): string {
  return `${queuePosition(s.position)}; estimated start at ${formatInstant(s.estimated_start, timeZone)}`;
}
