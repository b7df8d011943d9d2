"use client";
/**
 * A filter's values typed, pasted (one per line) or picked from the suggestions: the values already
 * seen in fetched answers (no upstream call), offered as a list box as one types or with the down
 * arrow; values no answer has shown yet are said so.
 */
import { useQuery } from "@tanstack/react-query";
import { midName } from "@/lib/report/mid-name";
import { useId, useState } from "react";
import type { DimensionDef } from "@/lib/contract/dimensions";
import { LIMITS } from "@/lib/contract/limits";
import { formatDimensionValue } from "@/lib/report/metrics/format";
import { SUGGESTED_DIMENSIONS } from "@/lib/contract/dimensions";
import { filterValueHint, type FilterValue } from "@/lib/report/state/filters";
import {
  lastReports,
  parseFilterInput,
  suggestValues,
  typedEntry,
  unseenNote,
  unseenValues,
  type FilterInput,
  type KnownValue,
  type KnownValues,
} from "@/lib/report/state/filter-input";
import { quote } from "@/lib/report/state/words";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { fetchKnownValues } from "./filter-known";

export function ValueList({ dimension: d, values, onChange }: { dimension: DimensionDef; values: FilterValue[]; onChange: (v: FilterValue[]) => void }) {
  const id = useId();
  const [text, setText] = useState("");
  const [notes, setNotes] = useState<{ rejected: FilterInput["rejected"]; other: string[] } | null>(null);
  /** The suggestions list: shut, offering matches for what is typed, or the first 50 values seen (opened with the down arrow). */
  const [open, setOpen] = useState<"shut" | "typing" | "browsing">("shut");
  const [active, setActive] = useState(-1);
  const full = values.length >= LIMITS.maxFilterValues;
  const known = useKnownValues(d.name);
  const list = d.type !== "string";
  const entry = typedEntry(d, text);
  const offered = !full && (open === "browsing" || (open === "typing" && entry.trim() !== "")) ? suggestValues(known.values, entry, values, open === "browsing" ? 50 : 8) : [];
  const unseen = unseenValues(values, known);
  const unseenText = unseenNote(values, known);

  /** Notes on what adding did: duplicates, the limit, text taken in the spelling reports use. */
  const otherNotes = (r: FilterInput) => {
    const other: string[] = [];
    if (r.duplicates > 0) other.push(`${r.duplicates} already in the filter.`);
    if (r.overLimit > 0) other.push(`${r.overLimit} not added: at most ${LIMITS.maxFilterValues} values per filter.`);
    for (const x of r.respelled) other.push(`${quote(x.typed, 40)} added as ${quote(x.as, 60)}, the spelling recent reports use (text is matched exactly).`);
    return other;
  };
  const add = () => {
    const r = parseFilterInput(d, text, values, known.values);
    if (r.added.length > 0) onChange([...values, ...r.added]);
    const other = otherNotes(r);
    // Rejected tokens stay in the box to be corrected; nothing typed is dropped.
    setText(r.rejected.map((x) => x.token).join(list ? ", " : "\n"));
    setNotes(r.rejected.length + other.length > 0 ? { rejected: r.rejected, other } : null);
    setActive(-1);
  };
  /** A suggestion chosen: added as it is known, replacing what was being typed for it. */
  const pick = (k: KnownValue) => {
    if (!values.includes(k.value)) onChange([...values, k.value]);
    setText(list ? text.slice(0, text.length - typedEntry(d, text).length) : "");
    setNotes(null);
    setActive(-1);
    setOpen("shut");
  };
  const optionId = (i: number) => `${id}-option-${i}`;

  return (
    <div className="flex min-w-0 flex-col gap-1.5">
      {values.length > 0 ? (
        <ul aria-label={`${d.label} values`} className="flex min-w-0 flex-wrap gap-1.5">
          {values.map((v) => {
            const notSeen = unseen.includes(v);
            return (
              <li
                key={String(v)}
                className={`inline-flex max-w-full min-w-0 items-center rounded-full border pl-2.5 text-sm ${notSeen ? "border-dashed border-amber-700 bg-amber-50" : "border-slate-300 bg-slate-100"}`}
              >
                {/* Exactly the value sent, spaces as they are (text is normalized when added). */}
                <span className="min-w-0 break-all whitespace-pre-wrap">{formatDimensionValue(d.name, v)}</span>
                {notSeen ? <span className="sr-only"> (not seen in recent reports)</span> : null}
                <button
                  type="button"
                  className="ml-0.5 inline-flex size-7 shrink-0 items-center justify-center rounded-full text-slate-700 hover:bg-slate-200"
                  aria-label={`Remove ${formatDimensionValue(d.name, v)} from ${d.label}`}
                  onClick={() => onChange(values.filter((x) => x !== v))}
                >
                  <span aria-hidden="true">×</span>
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
      {unseenText ? (
        <p role="status" aria-label={`${d.label} values not seen`} className="text-xs font-medium text-amber-900">
          {unseenText}
        </p>
      ) : null}
      <div className="flex min-w-0 gap-2">
        <label htmlFor={`${id}-value`} className="sr-only">
          Add {d.label} values
        </label>
        <div className="relative min-w-0 flex-1">
          <input
            id={`${id}-value`}
            type="text"
            role="combobox"
            aria-autocomplete="list"
            aria-expanded={offered.length > 0}
            aria-controls={`${id}-suggestions`}
            aria-activedescendant={active >= 0 && active < offered.length ? optionId(active) : undefined}
            inputMode={d.type === "integer" ? "numeric" : d.type === "decimal" ? "decimal" : undefined}
            autoComplete="off"
            className={`${inputClass} min-w-0`}
            value={text}
            disabled={full}
            placeholder={d.type === "date" ? "YYYY-MM-DD" : list ? "e.g. 12, 13" : `${d.label}…`}
            aria-invalid={notes !== null && notes.rejected.length > 0}
            aria-describedby={`${id}-hint`}
            onChange={(e) => {
              setText(e.target.value);
              setNotes(null);
              setOpen("typing");
              setActive(-1);
            }}
            onBlur={() => setOpen("shut")}
            onPaste={(e) => {
              // A pasted column of free text keeps its lines apart (an input would join them).
              if (list) return;
              const pasted = e.clipboardData.getData("text");
              if (!/\r?\n/.test(pasted.trim())) return;
              e.preventDefault();
              const r = parseFilterInput(d, pasted, values, known.values);
              if (r.added.length > 0) onChange([...values, ...r.added]);
              const other = otherNotes(r);
              setNotes(r.rejected.length + other.length > 0 ? { rejected: r.rejected, other } : null);
            }}
            onKeyDown={(e) => {
              if (e.key === "ArrowDown" || e.key === "ArrowUp") {
                e.preventDefault();
                if (offered.length === 0) {
                  // Nothing offered yet: the arrow opens the list of every value seen.
                  setOpen("browsing");
                  setActive(-1);
                  return;
                }
                const n = offered.length;
                setActive((a) => (e.key === "ArrowDown" ? (a + 1) % n : (a <= 0 ? n : a) - 1));
              } else if (e.key === "Escape" && offered.length > 0) {
                e.preventDefault();
                setOpen("shut");
                setActive(-1);
              } else if (e.key === "Enter") {
                e.preventDefault();
                const chosen = active >= 0 ? offered[active] : undefined;
                if (chosen) pick(chosen);
                else add();
              }
            }}
          />
          <ul
            id={`${id}-suggestions`}
            role="listbox"
            aria-label={`${d.label} values seen in recent reports`}
            className={offered.length > 0 ? "absolute inset-x-0 top-full z-20 mt-1 max-h-64 overflow-auto rounded-md border border-slate-300 bg-white py-1 text-sm shadow-lg" : "hidden"}
          >
            {offered.map((k, i) => (
              <li
                key={String(k.value)}
                id={optionId(i)}
                role="option"
                aria-selected={i === active}
                className={`cursor-pointer px-3 py-2 break-all whitespace-pre-wrap ${i === active ? "bg-slate-200" : "hover:bg-slate-100"}`}
                // Keeps the focus in the box, so the list is not closed before the choice lands.
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => pick(k)}
              >
                {d.name === "gateway_id" ? (
                  // A MID reads as it does everywhere: "Wells 02 (#2)".
                  midName(String(k.value), k.label)
                ) : (
                  <>
                    {formatDimensionValue(d.name, k.value)}
                    {k.label ? <span className="text-slate-600"> {k.label}</span> : null}
                  </>
                )}
              </li>
            ))}
          </ul>
        </div>
        <Button size="md" onClick={add} disabled={full || text.trim() === ""}>
          Add
        </Button>
      </div>
      <div id={`${id}-hint`} className="flex min-w-0 flex-col gap-0.5 text-xs">
        {notes && notes.rejected.length > 0 ? (
          <div role="alert" className="font-medium text-red-700">
            <p>
              Not added ({notes.rejected.length}); correct {notes.rejected.length === 1 ? "it" : "them"} in the box:
            </p>
            <ul className="list-disc pl-4">
              {notes.rejected.slice(0, 10).map((r, i) => (
                <li key={i} className="break-all">
                  {quote(r.token, 24)} is {r.reason}
                </li>
              ))}
              {notes.rejected.length > 10 ? <li>and {notes.rejected.length - 10} more</li> : null}
            </ul>
          </div>
        ) : null}
        {notes?.other.map((o) => (
          <p key={o} className="text-slate-700">
            {o}
          </p>
        ))}
        <p className="text-slate-600">
          {full
            ? `At most ${LIMITS.maxFilterValues} values.`
            : list
              ? `Enter ${filterValueHint(d)}; several at once separated by commas, spaces or new lines, then Add or press Enter.`
              : `Enter ${filterValueHint(d)}, then Add or press Enter. Text is matched exactly (spaces trimmed, runs of spaces made one), so choose a suggestion where you can; pasting several lines adds one value per line.`}
          {known.values.length > 0 ? ` Suggestions: ${known.values.length} values seen in ${lastReports(known.reports)}, offered as you type (or with the down arrow).` : ""}
        </p>
      </div>
      <p className="text-xs text-slate-600">Only “any of”: the reporting service cannot exclude {d.label} values.</p>
    </div>
  );
}

const NOTHING_KNOWN: KnownValues = { values: [], reports: 0, complete: false };

/** Values of a dimension seen in answers already fetched (no upstream call); nothing until some are. */
function useKnownValues(dimension: string): KnownValues {
  const q = useQuery({
    queryKey: ["suggestions", dimension],
    queryFn: ({ signal }) => fetchKnownValues(dimension, signal),
    enabled: SUGGESTED_DIMENSIONS.includes(dimension),
    staleTime: 30_000,
  });
  return q.data ?? NOTHING_KNOWN;
}
