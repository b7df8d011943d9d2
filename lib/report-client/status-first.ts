/**
 * What a report's status line can say on the page's first render, before the words for every phase
 * (./status.ts) have come (those come just after the page's first load). A first render
 * shows a report not run yet, or one starting; the other phases can only follow an answer, by when
 * the words are there (a report answered faster than its words still gets a true, plainer line).
 */
import type { JobResult, Progress } from "./api";

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

/** The status line before ./status.ts has come: exact for a first render, plainer after. */
export function describeFirst(phase: ReportPhase): StatusView {
  switch (phase.kind) {
    case "idle":
      return NOT_RUN;
    case "running":
      return STARTING;
    case "cancelled":
      return CANCELLED;
    case "done":
      return { tone: "success", title: "Done", detail: "", busy: false };
    case "failed":
      return { tone: "error", title: "Failed", detail: phase.error instanceof Error ? phase.error.message : "Something went wrong.", busy: false };
  }
}
