"use client";
/** One filter of the filter editor: its dimension's values as checkboxes, or typed, pasted and suggested ones. */
import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/lib/report-client/fetch";
import { useId, useState } from "react";
import type { DimensionDef } from "@/lib/contract/dimensions";
import { LIMITS } from "@/lib/contract/limits";
import { formatDimensionValue } from "@/lib/metrics/format-dimension";
import { SUGGESTED_DIMENSIONS, filterValueHint, type FilterValue } from "@/lib/report-state/filters";
import { parseFilterInput, type FilterInput } from "@/lib/report-state/filter-input";
import { quote } from "@/lib/report-state/words";
import { Providers } from "@/components/providers";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { Select } from "@/components/ui/select";

export type FilterRowProps = Parameters<typeof FilterRow>[0];

/**
 * The row with the browser's react-query client (its suggestions query): the Alerts page's first
 * load has no react-query and gets it with the first filter; under a page's own provider it is the
 * same client.
 */
export function FilterRowWithClient(props: FilterRowProps) {
  return (
    <Providers>
      <FilterRow {...props} />
    </Providers>
  );
}

export function FilterRow({
  dimension: d,
  values,
  onChange,
  onRemove,
}: {
  dimension: DimensionDef;
  values: FilterValue[];
  onChange: (v: FilterValue[]) => void;
  onRemove: () => void;
}) {
  const id = useId();
  const [mode, setMode] = useState<"any" | "not">("any");
  const all = d.values ?? [];
  // "is not" is the complement of the enumeration: the contract can only keep listed values.
  const checked = (v: string) => (mode === "any" ? values.includes(v) : !values.includes(v));
  const toggle = (v: string, on: boolean) => {
    const chosen = all.filter((x) => (x === v ? on : checked(x)));
    onChange(mode === "any" ? chosen : all.filter((x) => !chosen.includes(x)));
  };
  const switchMode = (next: "any" | "not") => {
    // The boxes stay as they are and now mean the other thing.
    const chosen = all.filter((x) => checked(x));
    setMode(next);
    onChange(next === "any" ? chosen : all.filter((x) => !chosen.includes(x)));
  };
  const excluded = all.filter((x) => !values.includes(x));
  return (
    <div role="group" aria-labelledby={`${id}-name`} className="flex min-w-0 flex-col gap-2">
      <div className="flex items-center justify-between gap-2">
        <span id={`${id}-name`} className="text-sm font-medium">
          {d.label}
          {d.values ? null : <span className="font-normal text-slate-600"> (any of)</span>}
        </span>
        <Button size="sm" variant="ghost" onClick={onRemove} aria-label={`Remove the ${d.label} filter`}>
          Remove
        </Button>
      </div>
      {d.values ? (
        <>
          <div className="flex items-center gap-2">
            <label htmlFor={`${id}-mode`} className="sr-only">
              {d.label} condition
            </label>
            <Select
              id={`${id}-mode`}
              value={mode}
              onChange={(e) => switchMode(e.target.value === "not" ? "not" : "any")}
              options={[
                { value: "any", label: "is any of" },
                { value: "not", label: "is not" },
              ]}
            />
          </div>
          <div className="flex flex-wrap gap-x-4 gap-y-1">
            {d.values.map((v) => (
              <label key={v} className="flex items-center gap-1.5 text-sm">
                <input type="checkbox" className="size-4" checked={checked(v)} onChange={(e) => toggle(v, e.target.checked)} />
                {v}
              </label>
            ))}
          </div>
          {mode === "not" && excluded.length > 0 && values.length > 0 ? (
            <p className="text-xs text-slate-600">
              Sent as any of {values.join(", ")}; records without a {d.label.toLowerCase()} do not count.
            </p>
          ) : null}
        </>
      ) : (
        <ValueList dimension={d} values={values} onChange={onChange} />
      )}
      {values.length === 0 ? (
        <p className="text-xs text-amber-800">
          {mode === "not" ? "Excluding every value leaves nothing: clear a box, or remove this filter." : "Choose at least one value, or remove this filter."}
        </p>
      ) : null}
    </div>
  );
}

function ValueList({ dimension: d, values, onChange }: { dimension: DimensionDef; values: FilterValue[]; onChange: (v: FilterValue[]) => void }) {
  const id = useId();
  const [text, setText] = useState("");
  const [notes, setNotes] = useState<{ rejected: FilterInput["rejected"]; other: string[] } | null>(null);
  const full = values.length >= LIMITS.maxFilterValues;
  const suggestions = useSuggestions(d.name);
  const list = d.type !== "string";

  const add = () => {
    const r = parseFilterInput(d, text, values);
    if (r.added.length > 0) onChange([...values, ...r.added]);
    const other: string[] = [];
    if (r.duplicates > 0) other.push(`${r.duplicates} already in the filter.`);
    if (r.overLimit > 0) other.push(`${r.overLimit} not added: at most ${LIMITS.maxFilterValues} values per filter.`);
    // Rejected tokens stay in the box to be corrected; nothing typed is dropped.
    setText(r.rejected.map((x) => x.token).join(list ? ", " : "\n"));
    setNotes(r.rejected.length + other.length > 0 ? { rejected: r.rejected, other } : null);
  };

  return (
    <div className="flex min-w-0 flex-col gap-1.5">
      {values.length > 0 ? (
        <ul aria-label={`${d.label} values`} className="flex min-w-0 flex-wrap gap-1.5">
          {values.map((v) => (
            <li key={String(v)} className="inline-flex max-w-full min-w-0 items-center rounded-full border border-slate-300 bg-slate-100 pl-2.5 text-sm">
              <span className="min-w-0 break-all">{formatDimensionValue(d.name, v)}</span>
              <button
                type="button"
                className="ml-0.5 inline-flex size-7 shrink-0 items-center justify-center rounded-full text-slate-700 hover:bg-slate-200"
                aria-label={`Remove ${formatDimensionValue(d.name, v)} from ${d.label}`}
                onClick={() => onChange(values.filter((x) => x !== v))}
              >
                <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="flex min-w-0 gap-2">
        <label htmlFor={`${id}-value`} className="sr-only">
          Add {d.label} values
        </label>
        <input
          id={`${id}-value`}
          type="text"
          inputMode={d.type === "integer" ? "numeric" : d.type === "decimal" ? "decimal" : undefined}
          autoComplete="off"
          list={suggestions.length > 0 ? `${id}-suggestions` : undefined}
          className={`${inputClass} min-w-0`}
          value={text}
          disabled={full}
          placeholder={d.type === "date" ? "YYYY-MM-DD" : list ? "e.g. 12, 13" : `${d.label}…`}
          aria-invalid={notes !== null && notes.rejected.length > 0}
          aria-describedby={`${id}-hint`}
          onChange={(e) => {
            setText(e.target.value);
            setNotes(null);
          }}
          onPaste={(e) => {
            // A pasted column of free text keeps its lines apart (an input would join them).
            if (list) return;
            const pasted = e.clipboardData.getData("text");
            if (!/\r?\n/.test(pasted.trim())) return;
            e.preventDefault();
            const r = parseFilterInput(d, pasted, values);
            if (r.added.length > 0) onChange([...values, ...r.added]);
            setNotes(r.rejected.length + r.duplicates + r.overLimit > 0 ? { rejected: r.rejected, other: r.overLimit ? [`${r.overLimit} not added: at most ${LIMITS.maxFilterValues} values per filter.`] : [] } : null);
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              add();
            }
          }}
        />
        <Button size="md" onClick={add} disabled={full || text.trim() === ""}>
          Add
        </Button>
      </div>
      {suggestions.length > 0 ? (
        <datalist id={`${id}-suggestions`}>
          {suggestions.map((s) => (
            <option key={String(s.value)} value={String(s.value)}>
              {s.label ?? undefined}
            </option>
          ))}
        </datalist>
      ) : null}
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
            : `Enter ${filterValueHint(d)}${list ? "; several at once separated by commas, spaces or new lines" : " (one per line)"}, then Add or press Enter.`}
          {suggestions.length > 0 ? ` Suggestions: ${suggestions.length} values seen in recent reports.` : ""}
        </p>
      </div>
      <p className="text-xs text-slate-600">Only “any of”: the reporting service cannot exclude {d.label} values.</p>
    </div>
  );
}

/** Values of a dimension seen in answers already fetched (no upstream call); empty until some are. */
function useSuggestions(dimension: string): { value: string | number; label: string | null }[] {
  const q = useQuery({
    queryKey: ["suggestions", dimension],
    // Suggestions are a courtesy: when they cannot be had, the field works without them.
    queryFn: ({ signal }) =>
      apiFetch<{ values: { value: string | number; label: string | null }[] }>(`/api/reports/suggestions?dimension=${encodeURIComponent(dimension)}`, { signal }).then(
        (b) => b.values,
        () => [],
      ),
    enabled: SUGGESTED_DIMENSIONS.includes(dimension),
    staleTime: 30_000,
  });
  return q.data ?? [];
}
