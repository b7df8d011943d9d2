"use client";
import { useId, useRef, useState } from "react";
import { lookUpInOrder, bulkCsvLines, type BulkRow } from "@/lib/features/bin-lookup/bulk";
import { BIN_FROM_CARD, BIN_MEANING, CARD_DIGITS, MAX_BULK_BINS, cutCardNumbers, parseBinList, type LookupMode } from "@/lib/features/bin-lookup/lookup";
import { ROUTING_SALES_TYPES } from "@/lib/contract/routing-values";
import { toCsv } from "@/lib/report/table/csv";
import { downloadText } from "@/lib/report/table/browser-download";
import { formatInstant } from "@/lib/report/metrics/format";
import { routeBin } from "@/lib/features/bin-lookup/route-bin";
import { quote } from "@/lib/report/state/words";
import { Providers } from "@/components/providers";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { Select } from "@/components/ui/select";
import { BulkResults, evidenceOf } from "./bulk-results";
import { rangeText, useBinEvidence } from "./evidence";
import { LookupModePicker } from "./lookup-mode";
import { SALES_TYPE_LABELS, loadRoutingSchema } from "./single-lookup";

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
    const { stopped } = await lookUpInOrder(
      bins,
      (bin, signal) => routeBin(schema.parse({ bin, ...(salesType ? { sales_type: salesType } : {}) }), mode, signal),
      controller.signal,
      (row) => setRows((rs) => [...rs, row]),
    );
    setStopped(stopped);
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
    const done = evidence.data?.state === "done" ? evidence.data : null;
    const lines = bulkCsvLines(
      { salesType, exportedAt: formatInstant(new Date().toISOString(), timeZone), ranAs, unused: list.unused, evidence: done ? { min_attempts: done.min_attempts, range: rangeText(done.range) } : null },
      rows,
      (bin) => evidenceOf(evidence, bin),
    );
    downloadText(`bin-lookups_${new Date().toISOString().slice(0, 10)}.csv`, toCsv(lines));
  };

  const failed = rows.filter((r) => r.error).length;
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
      <BulkResults
        rows={rows}
        running={running}
        status={status}
        evidence={evidence}
        evidenceBins={evidenceBins}
        open={open}
        onToggle={toggle}
        onDownload={exportCsv}
        timeZone={timeZone}
      />
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
