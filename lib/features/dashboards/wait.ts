/**
 * How long a dashboard still waits, from one look's plan, for the words every waiting screen shows:
 * how many calls go before the dashboard's last one (everyone's, its own included: a number that only
 * falls while nobody's report learns it needs more), and when its last call should have answered, the
 * latest of its queries' estimates (each played forward through the shared quota by the queue).
 * Pure and browser-safe: the shared page draws it on the server, the signed-in page in the browser.
 */
import type { DashboardAnswer } from "./answer";

export interface DashboardWait {
  /** Queries still queued or fetching. */
  running: number;
  /** Calls that start before the dashboard's last one, or null when no query has said. */
  callsToGo: number | null;
  /** When the dashboard's last call should have answered (ISO), or null when none is queued or held. */
  readyAt: string | null;
  /** When the first queued query should start (ISO), or null when none is queued: when to look again. */
  nextStart: string | null;
  /**
   * Calls the waiting queries make beyond (or, negative, short of) what they were planned at, once
   * the service has said how many records each part holds: why `callsToGo` can rise.
   */
  replanned: number;
}

/** Words for `replanned`, or null when the waiting queries make the calls they were planned at. */
export function replannedWords(replanned: number): string | null {
  if (replanned === 0) return null;
  const n = Math.abs(replanned);
  return `${n.toLocaleString("en-US")} ${n === 1 ? "call" : "calls"} ${replanned > 0 ? "more" : "fewer"} than planned: the reporting service said how many records each part holds`;
}

export function dashboardWait(answer: Pick<DashboardAnswer, "plan">): DashboardWait {
  let running = 0;
  let callsToGo: number | null = null;
  let readyAt: string | null = null;
  let nextStart: string | null = null;
  let replanned = 0;
  const later = (a: string | null, b: string) => (a === null || b > a ? b : a);
  for (const step of answer.plan) {
    const s = step.status;
    if (s.state !== "queued" && s.state !== "fetching") continue;
    running++;
    if (step.callsKnown && step.plannedCalls > 0) replanned += step.calls - step.plannedCalls;
    const last = s.last_position ?? (s.state === "queued" ? s.position : null);
    if (last !== null) callsToGo = Math.max(callsToGo ?? 0, last + 1);
    const done = s.estimated_done ?? (s.state === "queued" ? s.estimated_start : null);
    if (done !== null) readyAt = later(readyAt, done);
    if (s.state === "queued" && (nextStart === null || s.estimated_start < nextStart)) nextStart = s.estimated_start;
  }
  return { running, callsToGo, readyAt, nextStart, replanned };
}
