"use client";
// The bulk BIN lookup's results: a row per BIN in the order looked up, each with its last 90 days'
// best gateway and the details of every gateway on demand, the run's and the report's status, and
// the CSV button.
import { Fragment, useId, type ComponentProps } from "react";
import { bestLabel, REPORT_BIN_DIGITS, type BinEvidence } from "@/lib/features/bin-lookup/evidence";
import { BULK_BEST_COLUMN, BULK_HEADERS, bulkCells, type BulkRow } from "@/lib/features/bin-lookup/bulk";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { StatusBanner } from "@/components/ui/status-banner";
import { EvidenceStatusBanner, EvidenceTable, rangeText, type EvidenceQuery } from "./evidence";

/** A BIN's evidence, or why it is not there (yet). */
export function evidenceOf(q: EvidenceQuery, bin: string): BinEvidence | string {
  if (q.isError) return "Not available";
  const d = q.data;
  if (d?.state === "done") return d.bins.find((e) => e.bin === bin) ?? "Not available";
  return q.isFetching || d?.state === "pending" ? "Waiting for the report…" : "";
}

export function BulkResults({
  rows,
  running,
  status,
  evidence,
  evidenceBins,
  open,
  onToggle,
  onDownload,
  timeZone,
}: {
  rows: readonly BulkRow[];
  running: boolean;
  /** The run's status line. */
  status: Omit<ComponentProps<typeof StatusBanner>, "label" | "busy">;
  evidence: EvidenceQuery;
  /** The BINs of the run on screen, whose last 90 days are one report. */
  evidenceBins: readonly string[] | null;
  /** BINs whose details are open. */
  open: ReadonlySet<string>;
  onToggle: (bin: string) => void;
  onDownload: () => void;
  timeZone: string;
}) {
  const id = useId();
  return (
    <section aria-labelledby={`${id}-results`} className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id={`${id}-results`} className="text-lg font-semibold">
          Routes
        </h2>
        <Button onClick={onDownload} disabled={rows.length === 0 || running}>
          Download CSV
        </Button>
      </div>
      <StatusBanner label="Bulk lookup status" busy={running} {...status} />
      {evidenceBins ? <EvidenceStatusBanner query={evidence} count={evidenceBins.length} /> : null}
      {evidence.data?.state === "done" ? (
        <p className="text-sm text-slate-700">
          Best gateway: the {bestLabel(evidence.data.min_attempts).toLowerCase()} in {rangeText(evidence.data.range)}, from one report for all{" "}
          {evidence.data.bins.length} BINs. Reports know a BIN by its first {REPORT_BIN_DIGITS} digits, so a longer BIN shows the figures of those
          digits. Open a row&apos;s details for every gateway&apos;s attempts, approval rate and chargeback rate.
        </p>
      ) : null}
      {rows.length === 0 ? (
        <div className="h-48">
          <EmptyState title="No lookups yet">Each BIN&apos;s gateway, group, rotation and issuer will be listed here.</EmptyState>
        </div>
      ) : (
        <div className="relative max-h-[32rem] overflow-auto rounded-md border border-slate-300 bg-white" tabIndex={0} role="region" aria-label="Routes (scrollable)">
          <table className="w-full text-sm">
            <caption className="sr-only">Routes for the BINs looked up, in order</caption>
            <thead className="sticky top-0 bg-slate-100">
              <tr>
                {BULK_HEADERS.map((h) => (
                  <th key={h} scope="col" className="px-3 py-2 text-left whitespace-nowrap">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => {
                const ev = evidenceOf(evidence, r.bin);
                const isOpen = typeof ev !== "string" && open.has(r.bin);
                const detailId = `${id}-evidence-${r.n}`;
                return (
                  <Fragment key={r.n}>
                    <tr className="border-t border-slate-100 odd:bg-white even:bg-slate-50">
                      {bulkCells(r, ev).map((c, i) => (
                        <td key={i} className={`px-3 py-1.5 whitespace-nowrap ${i === BULK_HEADERS.length - 1 && c ? "text-red-800" : ""}`}>
                          {i === BULK_BEST_COLUMN && typeof ev !== "string" ? (
                            <span className="flex items-center gap-2">
                              <span>{c}</span>
                              <Button size="sm" variant="ghost" aria-expanded={isOpen} aria-controls={isOpen ? detailId : undefined} onClick={() => onToggle(r.bin)}>
                                {isOpen ? "Hide details" : "Details"}
                                <span className="sr-only"> of the last 90 days for BIN {r.bin}</span>
                              </Button>
                            </span>
                          ) : (
                            (c ?? "")
                          )}
                        </td>
                      ))}
                    </tr>
                    {isOpen && evidence.data?.state === "done" ? (
                      <tr id={detailId} className="border-t border-slate-100 bg-slate-50">
                        <td colSpan={BULK_HEADERS.length} className="px-3 py-3">
                          <div className="sticky left-0 w-fit max-w-[calc(100vw-4rem)]">
                            <EvidenceTable evidence={ev} answer={evidence.data} timeZone={timeZone} />
                          </div>
                        </td>
                      </tr>
                    ) : null}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
