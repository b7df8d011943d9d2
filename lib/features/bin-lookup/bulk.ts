/**
 * The bulk BIN lookup apart from its page: the run (BINs looked up one after another in the order
 * given, a refusal for the quota waited out once as the server says, a stop that ends it between
 * lookups), and the rows and CSV it gives.
 */
import { RequestError } from "@/lib/core/api-client/fetch";
import type { CsvCell } from "@/lib/report/table/csv";
import { bestLabel, bestSummary, REPORT_BIN_DIGITS, type BinEvidence } from "./evidence";
import { gatewayLabel, LOOKUP_MODES, type LookupMode } from "./lookup";
import type { BinAnswer } from "./upstream";

export interface BulkRow {
  /** The BIN's place in the list, from 1. */
  n: number;
  bin: string;
  result?: BinAnswer;
  error?: string;
}

export const BULK_HEADERS = ["#", "BIN", "Gateway", "Best gateway, last 90 days", "Group", "Fallback", "Rule", "Next gateway", "Total calls", "Issuer", "Brand", "Card type", "Error"] as const;

/** Index of the evidence column (on screen its cell also holds the button that opens the BIN's details). */
export const BULK_BEST_COLUMN = BULK_HEADERS.indexOf("Best gateway, last 90 days");

/** A row's cells under BULK_HEADERS; `evidence` is the BIN's last 90 days, or why they are not there (yet). */
export function bulkCells(r: BulkRow, evidence: BinEvidence | string): CsvCell[] {
  const x = r.result;
  return [
    r.n,
    r.bin,
    x ? gatewayLabel(x.gateway_id, x.gateway_names) : null,
    typeof evidence === "string" ? evidence || null : bestSummary(evidence),
    x ? `${x.group_name} (#${x.group_id})` : null,
    x ? (x.is_fallback ? "Yes" : "No") : null,
    x?.session_info.rule_name ?? null,
    x ? gatewayLabel(x.session_info.next_gateway_id, x.gateway_names) : null,
    x?.session_info.total_calls ?? null,
    x?.bin_info?.bank ?? null,
    x?.bin_info?.card_brand ?? null,
    x?.bin_info?.card_type ?? null,
    r.error ?? null,
  ];
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

/**
 * Looks `bins` up one after another, handing each row to `onRow` as it is done. A lookup refused for
 * the quota (429) is tried once more after the server's Retry-After; any other failure is the row's
 * error and the run goes on. An abort ends the run between lookups (the row under way is dropped);
 * the answer is whether it was stopped so.
 */
export async function lookUpInOrder(
  bins: readonly string[],
  lookUp: (bin: string, signal: AbortSignal) => Promise<BinAnswer>,
  signal: AbortSignal,
  onRow: (row: BulkRow) => void,
): Promise<{ stopped: boolean }> {
  for (let i = 0; i < bins.length && !signal.aborted; i++) {
    let row: BulkRow = { n: i + 1, bin: bins[i]! };
    for (let attempt = 0; ; attempt++) {
      try {
        row = { ...row, result: await lookUp(row.bin, signal), error: undefined };
        break;
      } catch (e) {
        if (signal.aborted) break;
        if (e instanceof RequestError && e.status === 429 && attempt === 0) {
          try {
            await pause((e.retryAfter ?? 1) * 1000, signal);
          } catch {
            break;
          }
          continue;
        }
        row = { ...row, error: e instanceof RequestError ? e.message : "Lookup failed." };
        break;
      }
    }
    if (signal.aborted) break;
    onRow(row);
  }
  return { stopped: signal.aborted };
}

/** What a bulk run's CSV states above its rows. */
export interface BulkCsvContext {
  salesType: string;
  /** The export's time, as the page shows instants. */
  exportedAt: string;
  ranAs: LookupMode;
  unused: readonly { token: string; reason: string }[];
  /** The last 90 days' report, when it has answered. */
  evidence: { min_attempts: number; range: string } | null;
}

/** The bulk run as a CSV's lines: what was asked, then a row per BIN under BULK_HEADERS. */
export function bulkCsvLines(ctx: BulkCsvContext, rows: readonly BulkRow[], evidenceOf: (bin: string) => BinEvidence | string): CsvCell[][] {
  return [
    ["Report", "Bulk BIN lookup"],
    ["Sales type", ctx.salesType || "Any"],
    ["Exported at", ctx.exportedAt],
    ["Lookup", LOOKUP_MODES[ctx.ranAs].label],
    ["Note", ctx.ranAs === "route" ? "Each lookup advanced the routing rotation like a real order." : "Previews: no rotation advanced and nothing was recorded."],
    ...(ctx.unused.length > 0 ? [["Not looked up", ctx.unused.map((u) => `${u.token} (${u.reason})`).join("; ")]] : []),
    ...(ctx.evidence ? [["Best gateway, last 90 days", `${bestLabel(ctx.evidence.min_attempts)}, ${ctx.evidence.range}; BINs by their first ${REPORT_BIN_DIGITS} digits`]] : []),
    [],
    [...BULK_HEADERS],
    ...rows.map((r) => bulkCells(r, evidenceOf(r.bin))),
  ];
}
