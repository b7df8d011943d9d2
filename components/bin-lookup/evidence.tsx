"use client";
import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import {
  approvalRateTitle,
  bestLabel,
  cbRateTitle,
  gatewayName,
  pendingDelay,
  reportBinNote,
  type BinEvidence,
  type EvidenceAnswer,
  type EvidenceDone,
  type EvidenceRange,
  type EvidenceRow,
} from "@/lib/features/bin-lookup/evidence";
import { formatInstant, formatValue } from "@/lib/report/metrics/format";
import { apiFetch, RequestError } from "@/lib/core/api-client/fetch";
import { queuePosition, queueWords } from "@/lib/report/client/queue-words";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { StatusBanner } from "@/components/ui/status-banner";

/**
 * The last 90 days of the BINs asked, per gateway: ONE request (one report on the server) for all of
 * them. While the report waits for the reporting quota the server answers "pending" and this asks
 * again near its estimated start (asking again joins the same job: no further upstream call).
 */
export function useBinEvidence(bins: readonly string[] | null) {
  return useQuery({
    queryKey: ["bin-evidence", bins],
    queryFn: ({ signal }) => apiFetch<EvidenceAnswer>("/api/bin-lookup/evidence", { method: "POST", body: { bins }, signal }),
    enabled: bins !== null && bins.length > 0,
    refetchInterval: (q) => {
      const d = q.state.data;
      return d?.state === "pending" ? pendingDelay(d, Date.now()) : false;
    },
    // A past range: the server caches it for a day; a repeat lookup here need not even ask.
    staleTime: 10 * 60_000,
    retry: false,
  });
}

export type EvidenceQuery = ReturnType<typeof useBinEvidence>;

/** "2025-05-02 to 2025-07-30 (UTC)". */
export function rangeText(r: EvidenceRange): string {
  return `${r.start_date} to ${r.end_date} (${r.time_zone})`;
}

/** Where the evidence is, for a status line: null once it is there. */
function evidenceStatus(q: EvidenceQuery, count: number): { tone: "progress" | "error"; title: string; detail: string; action?: string } | null {
  const what = count === 1 ? "this BIN" : `these ${count} BINs`;
  if (q.isError) {
    const e = q.error;
    return {
      tone: "error",
      title: "Last 90 days not available",
      detail: e instanceof RequestError ? e.message : "Something went wrong while fetching the last 90 days.",
      action: e instanceof RequestError ? e.action : "Try again.",
    };
  }
  const d = q.data;
  if (d?.state === "done") return null;
  if (d?.state === "pending") {
    // Where it stands in the queue, in Explore's words, counted from when this answer came.
    const place = d.estimated_start ? queueWords({ position: d.position ?? 0, estimated_start: d.estimated_start }, q.dataUpdatedAt) : queuePosition(d.position ?? 0);
    const detail =
      d.phase === "fetching"
        ? `Fetching ${rangeText(d.range)} for ${what} from the reporting service; the figures appear here by themselves.`
        : `${place}. The report of ${rangeText(d.range)} for ${what} waits for the reporting service; the figures appear here by themselves.`;
    return { tone: "progress", title: d.phase === "fetching" ? "Fetching the last 90 days" : "Queued", detail };
  }
  return { tone: "progress", title: "Fetching the last 90 days", detail: `Asking for the last 90 days of ${what} per gateway…` };
}

const num = "px-3 py-1.5 text-right whitespace-nowrap tabular-nums";

function Rate({ value, title }: { value: number | null; title: string }) {
  return (
    <td className={num} title={title}>
      <span>{formatValue(value, "percent")}</span>
      <span className="sr-only"> ({title})</span>
    </td>
  );
}

function note(e: BinEvidence, row: EvidenceRow, min: number): string {
  if (row.id !== null && row.id === e.best) return bestLabel(min);
  if (e.best_reason.kind === "tie" && row.id !== null && e.best_reason.tied.includes(row.id)) return `Tied for the best approval rate with ≥ ${min} attempts`;
  if (!row.enough) return `Fewer than ${min} attempts: not ranked`;
  return "";
}

/**
 * One BIN's last 90 days per gateway: attempts, approval rate and chargeback rate (ratios of the
 * window's sums; hover a rate for its numerator and denominator), the best gateway marked in words,
 * and all gateways together. Scrolls sideways on a narrow screen.
 */
export function EvidenceTable({ evidence: e, answer, timeZone }: { evidence: BinEvidence; answer: EvidenceDone; timeZone: string }) {
  const id = useId();
  const min = answer.min_attempts;
  const longer = reportBinNote(e.bin);
  const bestRow = e.gateways.find((g) => g.id !== null && g.id === e.best);
  return (
    <div className="flex flex-col gap-2" data-testid="bin-evidence" data-bin={e.bin}>
      {longer ? <p className="text-xs text-slate-700">{longer}</p> : null}
      {e.gateways.length === 0 ? null : (
        <>
          <p id={`${id}-hint`} className="text-xs text-slate-600 sm:hidden">
            The table scrolls sideways: swipe it to see every column.
          </p>
          <div
            role="region"
            aria-label={`Last 90 days for BIN ${e.bin} by gateway (scrollable)`}
            aria-describedby={`${id}-hint`}
            tabIndex={0}
            // relative: the rates' sr-only words (position: absolute) are placed and clipped in this box;
            // without it they hang off the page at the table's full width and the page scrolls sideways.
            className="relative overflow-x-auto rounded-md border border-slate-300 bg-white"
          >
            <table className="w-full text-sm">
              <caption className="px-3 pt-2 pb-1 text-left text-xs text-slate-700">
                BIN {e.report_bin}, {rangeText(answer.range)}, per gateway. Rates are ratios of the period&apos;s sums; hover a rate for its numerator and
                denominator.
              </caption>
              <thead className="bg-slate-100">
                <tr>
                  <th scope="col" className="px-3 py-2 text-left whitespace-nowrap">
                    Gateway
                  </th>
                  <th scope="col" className="px-3 py-2 text-right whitespace-nowrap">
                    Attempts
                  </th>
                  <th scope="col" className="px-3 py-2 text-right whitespace-nowrap">
                    Approval rate
                  </th>
                  <th scope="col" className="px-3 py-2 text-right whitespace-nowrap">
                    Chargeback rate
                  </th>
                  <th scope="col" className="px-3 py-2 text-left whitespace-nowrap">
                    Note
                  </th>
                </tr>
              </thead>
              <tbody>
                {e.gateways.map((g) => {
                  const isBest = g.id !== null && g.id === e.best;
                  return (
                    <tr key={g.id ?? "none"} data-gateway-id={g.id ?? ""} className={cn("border-t border-slate-100", isBest ? "bg-emerald-50" : "")}>
                      <th scope="row" className="px-3 py-1.5 text-left font-normal whitespace-nowrap">
                        {gatewayName(g)}
                      </th>
                      <td className={num}>{formatValue(g.attempts, "count")}</td>
                      <Rate value={g.approval_rate} title={approvalRateTitle(g)} />
                      <Rate value={g.cb_rate} title={cbRateTitle(g)} />
                      <td className={cn("px-3 py-1.5 text-left whitespace-nowrap", isBest ? "font-semibold text-emerald-900" : "text-slate-700")}>{note(e, g, min)}</td>
                    </tr>
                  );
                })}
              </tbody>
              <tfoot className="border-t-2 border-slate-300 bg-slate-50 font-medium">
                <tr>
                  <th scope="row" className="px-3 py-1.5 text-left whitespace-nowrap">
                    All gateways
                  </th>
                  <td className={num}>{formatValue(e.totals.attempts, "count")}</td>
                  <Rate value={e.totals.approval_rate} title={approvalRateTitle(e.totals)} />
                  <Rate value={e.totals.cb_rate} title={cbRateTitle(e.totals)} />
                  <td />
                </tr>
              </tfoot>
            </table>
          </div>
        </>
      )}
      <p
        className={cn(
          "text-sm",
          bestRow ? "font-medium text-emerald-950" : "text-slate-800",
          e.gateways.length === 0 ? "rounded-md border border-dashed border-slate-300 bg-white px-3 py-2" : "",
        )}
        data-testid="best-gateway"
      >
        {e.best_reason.message}
        {e.gateways.length === 0 ? ` (BIN ${e.report_bin}, ${rangeText(answer.range)}.)` : null}
      </p>
      <p className="text-xs text-slate-600">
        Chargebacks are counted on the date of the attempt they dispute, so the last weeks&apos; rates can still rise. Data fetched{" "}
        {formatInstant(answer.fetched_at, timeZone)}.
      </p>
    </div>
  );
}

/** Where the evidence of `count` BINs is, with a way to ask again after a failure; nothing once it is there. */
export function EvidenceStatusBanner({ query, count }: { query: EvidenceQuery; count: number }) {
  const status = evidenceStatus(query, count);
  if (!status) return null;
  return (
    <StatusBanner label="Last 90 days status" busy={status.tone === "progress"} {...status}>
      {query.isError ? (
        <Button size="sm" onClick={() => void query.refetch()}>
          Try again
        </Button>
      ) : null}
    </StatusBanner>
  );
}

/** The single lookup's evidence: a heading, where the report is, then the table. */
export function SingleEvidence({ bin, query, timeZone, dimmed = false }: { bin: string; query: EvidenceQuery; timeZone: string; dimmed?: boolean }) {
  const id = useId();
  const d = query.data;
  const e = d?.state === "done" ? d.bins.find((x) => x.bin === bin) : undefined;
  return (
    <section aria-labelledby={`${id}-title`} className={cn("flex flex-col gap-2", dimmed ? "opacity-60" : "")}>
      <h3 id={`${id}-title`} className="text-sm font-semibold">
        Last 90 days for BIN {bin}, by gateway
      </h3>
      <EvidenceStatusBanner query={query} count={1} />
      {d?.state === "done" && e ? <EvidenceTable evidence={e} answer={d} timeZone={timeZone} /> : null}
    </section>
  );
}
