"use client";
import { Fragment, useId, useRef, useState } from "react";
import { bestLabel, bestSummary, REPORT_BIN_DIGITS, type BinEvidence } from "@/lib/features/bin-lookup/evidence";
import { BIN_FROM_CARD, BIN_MEANING, CARD_DIGITS, LOOKUP_MODES, MAX_BULK_BINS, cutCardNumbers, gatewayLabel, parseBinList, type LookupMode } from "@/lib/features/bin-lookup/lookup";
import { ROUTING_SALES_TYPES } from "@/lib/contract/routing-values";
import { toCsv, type CsvCell } from "@/lib/report/table/csv";
import { downloadText } from "@/lib/report/table/browser-download";
import { formatInstant } from "@/lib/report/metrics/format";
import { RequestError } from "@/lib/core/api-client/fetch";
import type { BinAnswer } from "@/lib/features/bin-lookup/upstream";
import { routeBin } from "@/lib/features/bin-lookup/route-bin";
import { quote } from "@/lib/report/state/words";
import { Providers } from "@/components/providers";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { inputClass } from "@/components/ui/field";
import { Select } from "@/components/ui/select";
import { StatusBanner } from "@/components/ui/status-banner";
import { EvidenceTable, evidenceStatus, rangeText, useBinEvidence, type EvidenceQuery } from "./evidence";
import { LookupModePicker } from "./lookup-mode";
import { SALES_TYPE_LABELS, loadRoutingSchema } from "./single-lookup";

interface BulkRow {
  n: number;
  bin: string;
  result?: BinAnswer;
  error?: string;
}

const HEADERS = ["#", "BIN", "Gateway", "Best gateway, last 90 days", "Group", "Fallback", "Rule", "Next gateway", "Total calls", "Issuer", "Brand", "Card type", "Error"] as const;

/** Index of the evidence column (its cell also holds the button that opens the BIN's details). */
const BEST_COLUMN = HEADERS.indexOf("Best gateway, last 90 days");

/** A BIN's evidence, or why it is not there (yet). */
function evidenceOf(q: EvidenceQuery, bin: string): BinEvidence | string {
  if (q.isError) return "Not available";
  const d = q.data;
  if (d?.state === "done") return d.bins.find((e) => e.bin === bin) ?? "Not available";
  return q.isFetching || d?.state === "pending" ? "Waiting for the report…" : "";
}

function cells(r: BulkRow, evidence: BinEvidence | string): CsvCell[] {
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

const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

/** Up to 100 BINs, pasted or from a file, looked up one after another in the order given. */
export function BulkLookup({ timeZone }: { timeZone: string }) {
  const id = useId();
  const [text, setTextAsIs] = useState("");
  /** How many card numbers the last paste, edit or file held (each cut to its BIN). */
  const [cardsCut, setCardsCut] = useState(0);
  // Card numbers are cut to their BINs as they come in: the rest of a card number is never kept.
  const setText = (raw: string) => {
    const cut = cutCardNumbers(raw);
    setTextAsIs(cut.text);
    if (cut.cards > 0 || cut.text.trim() === "") setCardsCut(cut.cards);
  };
  const [salesType, setSalesType] = useState("");
  const [mode, setMode] = useState<LookupMode>("preview");
  /** The mode of the rows on screen (the picker may have moved since). */
  const [ranAs, setRanAs] = useState<LookupMode>("preview");
  const [rows, setRows] = useState<BulkRow[]>([]);
  const [running, setRunning] = useState(false);
  const [stopped, setStopped] = useState(false);
  const [fileError, setFileError] = useState<string | null>(null);
  /** The BINs of the run on screen: their last 90 days come in ONE request (one report). */
  const [evidenceBins, setEvidenceBins] = useState<string[] | null>(null);
  /** BINs whose evidence details are open. */
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const evidence = useBinEvidence(evidenceBins);
  const abort = useRef<AbortController | null>(null);
  const list = parseBinList(text);
  const canRun = !running && list.bins.length > 0 && !list.tooMany;

  const run = async () => {
    const schema = await loadRoutingSchema();
    const controller = new AbortController();
    abort.current = controller;
    setRunning(true);
    setStopped(false);
    setRows([]);
    setRanAs(mode);
    const bins = list.bins;
    setEvidenceBins([...bins]);
    setOpen(new Set());
    for (let i = 0; i < bins.length; i++) {
      if (controller.signal.aborted) break;
      const body = schema.parse({ bin: bins[i], ...(salesType ? { sales_type: salesType } : {}) });
      let row: BulkRow = { n: i + 1, bin: bins[i]! };
      for (let attempt = 0; ; attempt++) {
        try {
          row = { ...row, result: await routeBin(body, mode, controller.signal), error: undefined };
          break;
        } catch (e) {
          if (controller.signal.aborted) break;
          if (e instanceof RequestError && e.status === 429 && attempt === 0) {
            try {
              await wait((e.retryAfter ?? 1) * 1000, controller.signal);
            } catch {
              break;
            }
            continue;
          }
          row = { ...row, error: e instanceof RequestError ? e.message : "Lookup failed." };
          break;
        }
      }
      if (controller.signal.aborted) break;
      setRows((rs) => [...rs, row]);
    }
    setStopped(controller.signal.aborted);
    setRunning(false);
    abort.current = null;
  };

  const onFile = async (file: File | undefined) => {
    setFileError(null);
    if (!file) return;
    if (file.size > 256 * 1024) {
      setFileError("That file is larger than 256 KB; a list of 100 BINs is far smaller.");
      return;
    }
    setText(await file.text());
  };

  const exportCsv = () => {
    const lines: CsvCell[][] = [
      ["Report", "Bulk BIN lookup"],
      ["Sales type", salesType || "Any"],
      ["Exported at", formatInstant(new Date().toISOString(), timeZone)],
      ["Lookup", LOOKUP_MODES[ranAs].label],
      ["Note", ranAs === "route" ? "Each lookup advanced the routing rotation like a real order." : "Previews: no rotation advanced and nothing was recorded."],
      ...(list.unused.length > 0 ? [["Not looked up", list.unused.map((u) => `${u.token} (${u.reason})`).join("; ")] as CsvCell[]] : []),
      ...(evidence.data?.state === "done"
        ? [
            [
              "Best gateway, last 90 days",
              `${bestLabel(evidence.data.min_attempts)}, ${rangeText(evidence.data.range)}; BINs by their first ${REPORT_BIN_DIGITS} digits`,
            ] as CsvCell[],
          ]
        : []),
      [],
      [...HEADERS],
      ...rows.map((r) => cells(r, evidenceOf(evidence, r.bin))),
    ];
    downloadText(`bin-lookups_${new Date().toISOString().slice(0, 10)}.csv`, toCsv(lines));
  };

  const failed = rows.filter((r) => r.error).length;
  const evidenceLine = evidenceBins ? evidenceStatus(evidence, evidenceBins.length) : null;
  const toggle = (bin: string) =>
    setOpen((o) => {
      const next = new Set(o);
      if (!next.delete(bin)) next.add(bin);
      return next;
    });
  const status = running
    ? { tone: "progress" as const, title: "Looking up", detail: `${rows.length} of ${list.bins.length} done.` }
    : stopped
      ? { tone: "warning" as const, title: "Stopped", detail: `${rows.length} of ${list.bins.length} were looked up before you stopped.` }
      : rows.length > 0
        ? {
            tone: failed ? ("warning" as const) : ("success" as const),
            title: ranAs === "preview" ? "Previewed" : "Routed as real orders",
            detail: `${rows.length} looked up${failed ? `, ${failed} failed` : ""}; ${ranAs === "preview" ? "nothing advanced" : "each advanced its group's rotation"}.`,
          }
        : { tone: "neutral" as const, title: "Not run yet", detail: "Paste or upload BINs, then look them up." };

  return (
    <div className="flex flex-col gap-6">
      <form
        aria-label="Bulk BIN lookup"
        className="grid grid-cols-1 gap-4 rounded-lg border border-slate-200 bg-white p-4 lg:grid-cols-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (canRun) void run();
        }}
        onFocus={() => void loadRoutingSchema()}
      >
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-bins`} className="text-sm font-medium">
            BINs (up to {MAX_BULK_BINS})
          </label>
          <textarea
            id={`${id}-bins`}
            className={`${inputClass} h-40 font-mono`}
            value={text}
            onChange={(e) => setText(e.target.value)}
            aria-describedby={`${id}-bins-hint`}
            aria-invalid={list.tooMany}
            spellCheck={false}
          />
          <p id={`${id}-bins-hint`} className={list.tooMany ? "text-xs font-medium text-red-700" : "text-xs text-slate-600"}>
            {list.tooMany
              ? `${list.bins.length} BINs: at most ${MAX_BULK_BINS} at a time.`
              : `${list.bins.length} BIN${list.bins.length === 1 ? "" : "s"} to look up. ${BIN_MEANING}; one per line, or separated by commas, semicolons or spaces. A card number (${CARD_DIGITS.min} to ${CARD_DIGITS.max} digits, grouped with spaces or dashes as printed, like 4111 1111 1111 1111) is one card and gives its first ${BIN_FROM_CARD} digits; put each on a line of its own or separate them with commas.`}
          </p>
          <p role="status" aria-label="Card numbers cut to BINs" className={cardsCut > 0 ? "text-xs text-slate-700" : "sr-only"}>
            {cardsCut > 0
              ? `${cardsCut === 1 ? "A card number was" : `${cardsCut} card numbers were`} cut to ${cardsCut === 1 ? "its" : "their"} first ${BIN_FROM_CARD} digits, the BIN; the rest was not kept.`
              : ""}
          </p>
          {list.unused.length > 0 ? (
            <div className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-xs text-amber-950">
              <p className="font-medium">Not looked up ({list.unused.length}):</p>
              <ul aria-label="Tokens not looked up" className="mt-1 max-h-32 list-disc overflow-auto pl-4">
                {list.unused.map((u, i) => (
                  <li key={i} className="break-all">
                    {quote(u.token, 24)}: {u.reason}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </div>
        <div className="flex flex-col gap-4">
          <div className="flex flex-col gap-1">
            <label htmlFor={`${id}-file`} className="text-sm font-medium">
              Or upload a file (.txt or .csv)
            </label>
            <input
              id={`${id}-file`}
              type="file"
              accept=".txt,.csv,text/plain,text/csv"
              className="text-sm file:mr-3 file:min-h-10 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:text-sm"
              onChange={(e) => void onFile(e.target.files?.[0])}
              aria-describedby={fileError ? `${id}-file-error` : undefined}
            />
            {fileError ? (
              <p id={`${id}-file-error`} className="text-xs font-medium text-red-700">
                {fileError}
              </p>
            ) : null}
          </div>
          <div className="flex flex-col gap-1">
            <label htmlFor={`${id}-sales`} className="text-sm font-medium">
              Sales type (for every BIN)
            </label>
            <Select
              id={`${id}-sales`}
              value={salesType}
              onChange={(e) => setSalesType(e.target.value)}
              options={[{ value: "", label: "Any" }, ...ROUTING_SALES_TYPES.map((t) => ({ value: t, label: SALES_TYPE_LABELS[t] }))]}
            />
          </div>
          <LookupModePicker value={mode} onChange={setMode} bulk />
          <div className="flex flex-wrap gap-2">
            <Button type="submit" variant="primary" disabled={!canRun}>
              {mode === "preview" ? "Preview" : "Route"} {list.bins.length > 0 && !list.tooMany ? `${list.bins.length} BIN${list.bins.length === 1 ? "" : "s"}` : "BINs"}
            </Button>
            {running ? (
              <Button variant="danger" onClick={() => abort.current?.abort()}>
                Stop
              </Button>
            ) : null}
          </div>
        </div>
      </form>
      <section aria-labelledby={`${id}-results`} className="flex flex-col gap-2">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 id={`${id}-results`} className="text-lg font-semibold">
            Routes
          </h2>
          <Button onClick={exportCsv} disabled={rows.length === 0 || running}>
            Download CSV
          </Button>
        </div>
        <StatusBanner label="Bulk lookup status" busy={running} {...status} />
        {evidenceLine ? (
          <StatusBanner label="Last 90 days status" busy={evidenceLine.tone === "progress"} {...evidenceLine}>
            {evidence.isError ? (
              <Button size="sm" onClick={() => void evidence.refetch()}>
                Try again
              </Button>
            ) : null}
          </StatusBanner>
        ) : evidence.data?.state === "done" ? (
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
                  {HEADERS.map((h) => (
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
                        {cells(r, ev).map((c, i) => (
                          <td key={i} className={`px-3 py-1.5 whitespace-nowrap ${i === HEADERS.length - 1 && c ? "text-red-800" : ""}`}>
                            {i === BEST_COLUMN && typeof ev !== "string" ? (
                              <span className="flex items-center gap-2">
                                <span>{c}</span>
                                <Button size="sm" variant="ghost" aria-expanded={isOpen} aria-controls={isOpen ? detailId : undefined} onClick={() => toggle(r.bin)}>
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
                          <td colSpan={HEADERS.length} className="px-3 py-3">
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
    </div>
  );
}

/** The bulk tab as the page loads it: with the browser's react-query client, which the page's first load does without. */
export function BulkLookupWithClient({ timeZone }: { timeZone: string }) {
  return (
    <Providers>
      <BulkLookup timeZone={timeZone} />
    </Providers>
  );
}
