/**
 * What the status line says, as a pure function of where a report is: not run, queued (position,
 * wait), fetching (page n of m), done (fresh, from cache as of when, derived from a cached answer),
 * failed (why, and what to do) or cancelled.
 */
import { formatInstant, formatWait } from "@/lib/report/metrics/format";
import { RequestError } from "@/lib/core/api-client/fetch";
import { queueWords } from "./queue-words";
import type { JobResult, JobStatus, Progress } from "./api";

export type ReportPhase =
  | { kind: "idle" }
  | { kind: "running"; progress: Progress | null }
  | { kind: "done"; result: JobResult }
  | { kind: "failed"; error: unknown }
  | { kind: "cancelled" };

export type StatusTone = "neutral" | "progress" | "success" | "warning" | "error";

export interface StatusView {
  tone: StatusTone;
  title: string;
  detail: string;
  /** What to do next (failures). */
  action?: string;
  busy: boolean;
}

export const NOT_RUN: StatusView = { tone: "neutral", title: "Not run yet", detail: "Choose the report's settings, then press Run report.", busy: false };
export const STARTING: StatusView = { tone: "progress", title: "Starting", detail: "Sending the report request…", busy: true };
export const CANCELLED: StatusView = { tone: "warning", title: "Cancelled", detail: "The report was stopped. Press Run report to start it again.", busy: false };

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/** "part 2 of 3" (or "of at least 3" while some date-range part has not said how many pages it has). */
function partOf(s: { call: number; calls: number; calls_exact: boolean }): string {
  return `part ${s.call} of ${s.calls_exact ? "" : "at least "}${s.calls}`;
}

export function describeStatus(phase: ReportPhase, timeZone: string): StatusView {
  switch (phase.kind) {
    case "idle":
      return NOT_RUN;
    case "cancelled":
      return CANCELLED;
    case "failed": {
      const e = phase.error;
      if (e instanceof RequestError) {
        const details = e.details.length > 1 ? ` (${e.details.map((d) => `${d.path}: ${d.message}`).join("; ")})` : "";
        return { tone: "error", title: "Failed", detail: `${e.message}${details}`, action: e.action, busy: false };
      }
      return {
        tone: "error",
        title: "Failed",
        detail: e instanceof Error ? e.message : "Something went wrong.",
        action: "Try again; if it keeps failing, tell an administrator.",
        busy: false,
      };
    }
    case "done": {
      const r = phase.result;
      const rows = plural(r.total, "row");
      const at = formatInstant(r.fetched_at, timeZone);
      if (r.source === "cache") return { tone: "success", title: "From cache", detail: `${rows}, as of ${at}.`, busy: false };
      if (r.source === "derived") {
        const from = r.derived_from ? `${r.derived_from.query.start_date} to ${r.derived_from.query.end_date}` : "a cached report";
        return { tone: "success", title: "Derived from a cached answer", detail: `${rows}, computed from the report for ${from} fetched ${at}; no quota used.`, busy: false };
      }
      return { tone: "success", title: "Up to date", detail: `${rows}, fetched ${at} with ${plural(r.upstream_calls, "call")} to the reporting service.`, busy: false };
    }
    case "running": {
      const p = phase.progress;
      const s = p?.status;
      if (!p || !s || s.state === "submitting") return STARTING;
      if (s.state === "queued") {
        const limit = slowDown(s, timeZone);
        // A report of several calls: say which one waits, and when the last of them should start.
        const several =
          s.calls > 1
            ? ` This is ${partOf(s)}; all of them should be under way ${formatWait(Date.parse(s.estimated_done) - p.at)}.`
            : "";
        return { tone: "progress", title: "Queued", detail: `${queueWords(s, p.at)}.${several}${limit}`, busy: true };
      }
      if (s.state === "fetching") {
        const page = s.pages === null ? `page ${s.page}` : `page ${s.page} of ${s.pages}`;
        const piece = s.pieces > 1 ? `, date range part ${s.piece} of ${s.pieces}` : "";
        const what = s.calls > 1 ? `${partOf(s)} (${page}${piece})` : `${page}${piece ? ` (${piece.slice(2)})` : ""}`;
        return { tone: "progress", title: "Fetching", detail: `Fetching ${what}.`, busy: true };
      }
      if (s.state === "cancelled") return describeStatus({ kind: "cancelled" }, timeZone);
      return { tone: "progress", title: "Finishing", detail: "Putting the answer together…", busy: true };
    }
  }
}

/** The upstream asked for a pause (its 429): until when this call waits. */
function slowDown(s: { waiting_for_rate_limit_until?: string }, timeZone: string): string {
  return s.waiting_for_rate_limit_until
    ? ` The reporting service asked us to slow down; waiting until ${formatInstant(s.waiting_for_rate_limit_until, timeZone)}.`
    : "";
}

/** A job's status as a screen that waits for several reports receives it (a finished one without its records). */
export type WaitingStatus = Exclude<JobStatus, { state: "done" }> | { state: "done" };

/**
 * Several reports one screen waits for (the Monitor's drill-down), as one status line: the one
 * nearest the front of the queue says where it stands and when it should start, in the words of a
 * single report's line, then how many are in and when all of them should be under way.
 */
export function describeWaiting(statuses: readonly WaitingStatus[], at: number, timeZone: string, noun = "report"): StatusView {
  const ready = `${statuses.filter((s) => s.state === "done").length} of ${plural(statuses.length, noun)} ready`;
  const several = statuses.length > 1;
  const queued = statuses.flatMap((s) => (s.state === "queued" ? [s] : []));
  if (queued.length > 0) {
    const next = queued.reduce((a, b) => (b.position < a.position ? b : a));
    const last = Math.max(...queued.map((s) => Date.parse(s.estimated_done)));
    const all = several ? ` ${ready}; all of them should be under way ${formatWait(last - at)}.` : "";
    const limited = queued.find((s) => s.waiting_for_rate_limit_until);
    return { tone: "progress", title: "Queued", detail: `${queueWords(next, at)}.${all}${limited ? slowDown(limited, timeZone) : ""}`, busy: true };
  }
  if (statuses.some((s) => s.state === "fetching")) {
    return { tone: "progress", title: "Fetching", detail: several ? `Fetching from the reporting service; ${ready}.` : "Fetching from the reporting service.", busy: true };
  }
  return { tone: "progress", title: "Finishing", detail: "Putting the answer together…", busy: true };
}
