/**
 * What a print view tells the PDF renderer about itself (lib/core/pdf/renderer.ts reads them from its
 * `data-pdf-*` attributes): whether it is complete enough to print, and the words of the header
 * repeated on every page. A page whose data is still being fetched, or a dashboard with a tile still
 * waiting, drawn from an answer older than the one being fetched, or failed, is not printed: a PDF
 * is whole or not made.
 */
import { formatInstant } from "@/lib/report/metrics/format";
import type { SharedView } from "./view";

export interface PrintFacts {
  state: "ready" | "pending" | "refused";
  title: string;
  subtitle: string;
  generated: string;
  /** "Data as of …": when the live answer printed was fetched (the e-mail that carries the PDF says it too); empty for a snapshot, which says its own time. */
  asOf: string;
  snapshot: string;
  retryAfter: number;
  reason: string;
  /** A refusal the PDF's route answers as its own status: "not-found" (404), "forbidden" (403), or "". */
  refusal: "" | "not-found" | "forbidden";
}

/** A link that went away while its PDF was being made answers as the link's route answers it (lib/features/sharing/pdf.ts). */
const REFUSAL: Record<string, PrintFacts["refusal"]> = { locked: "forbidden", paused: "forbidden", expired: "not-found", revoked: "not-found", unknown: "not-found" };

const REFUSED: Record<string, string> = {
  locked: "This link is protected by a password: open it first.",
  expired: "This link has expired.",
  revoked: "This link has been revoked.",
  paused: "This link is paused.",
  unknown: "There is no such link.",
  throttled: "Too many attempts. Try again in 15 minutes.",
};

export function printFacts(view: SharedView, timeZone: string, now: Date): PrintFacts {
  const generated = `Generated ${formatInstant(now.toISOString(), timeZone)}`;
  const base = { generated, asOf: "", snapshot: "", retryAfter: 0, reason: "", refusal: "" as const };
  const dataAsOf = (at: string | null, snapshot: boolean) => (at && !snapshot ? `Data as of ${formatInstant(at, timeZone)}` : "");
  switch (view.kind) {
    case "ok": {
      const filters = view.filters.length ? view.filters.join("; ") : "none";
      return {
        ...base,
        state: "ready",
        title: view.title,
        subtitle: `${view.rangeLabel}: ${view.range.start} to ${view.range.end} (${view.timeZone}) · Filters: ${filters}${view.periods ? ` · ${view.periods}` : ""}`,
        snapshot: view.mode === "snapshot" ? `Snapshot taken ${formatInstant(view.asOf, view.timeZone)}` : "",
        asOf: dataAsOf(view.asOf, view.mode === "snapshot"),
      };
    }
    case "dashboard": {
      const tiles = view.answer.tiles;
      const failed = tiles.find((t) => t.outcome.status === "failed");
      const facts = {
        ...base,
        title: view.title,
        subtitle: `${view.rangeLabel} (${view.timeZone}) · Filters: ${view.filters}`,
        asOf: dataAsOf(view.answer.asOf, view.mode === "snapshot"),
        snapshot: view.mode === "snapshot" && view.answer.asOf ? `Snapshot taken ${formatInstant(view.answer.asOf, view.timeZone)}` : view.mode === "snapshot" ? "Snapshot" : "",
      };
      if (failed) {
        const why = failed.outcome.status === "failed" ? `: ${failed.outcome.message.replace(/\.$/, "")}` : "";
        return { ...facts, state: "refused", reason: `The tile “${failed.title}” could not be answered${why}.` };
      }
      const waiting = tiles.some((t) => t.outcome.status === "pending" || (t.outcome.status === "done" && t.outcome.stale && view.mode === "live"));
      if (waiting) return { ...facts, state: "pending", retryAfter: 10, reason: "Some of the dashboard's tiles are still being fetched." };
      return { ...facts, state: "ready" };
    }
    case "monitor":
      return { ...base, state: "ready", title: view.title, subtitle: `This month and the two before (${view.timeZone})` };
    case "pending":
      return { ...base, state: "pending", title: view.title, subtitle: view.rangeLabel, retryAfter: view.retryAfterSeconds, reason: "The report's data is still being fetched." };
    default:
      return { ...base, state: "refused", title: "", subtitle: "", reason: REFUSED[view.kind] ?? "This page cannot be printed.", refusal: REFUSAL[view.kind] ?? "" };
  }
}
