"use client";
import { useId, useState } from "react";
import { LIMITS, dimensionsFor, type DimensionDef, type Operation } from "@/lib/contract/catalog";
import { formatDimensionValue } from "@/lib/metrics/format";
import { filterValueHint, parseFilterValue, type FilterValue, type Filters } from "@/lib/report-state/filters";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { Select, type SelectGroup } from "@/components/ui/select";

/** Catalog dimensions as select groups (the catalog's own display groups, in catalog order). */
export function dimensionGroups(op: Operation, exclude: readonly string[] = []): SelectGroup[] {
  const groups = new Map<string, SelectGroup>();
  for (const d of dimensionsFor(op)) {
    if (exclude.includes(d.name)) continue;
    let g = groups.get(d.group);
    if (!g) groups.set(d.group, (g = { label: d.group, options: [] }));
    g.options.push({ value: d.name, label: d.label });
  }
  return [...groups.values()];
}

/**
 * Filters on any dimension of the operation, typed by the catalog: a checkbox per value for the
 * enumerated ones, number, date or text entries (several values each) for the rest.
 */
export function FilterEditor({ op, value, onChange }: { op: Operation; value: Filters; onChange: (f: Filters) => void }) {
  const id = useId();
  const dims = dimensionsFor(op);
  const active = Object.keys(value);
  const set = (name: string, values: FilterValue[]) => onChange({ ...value, [name]: values });
  const remove = (name: string) => {
    const next = { ...value };
    delete next[name];
    onChange(next);
  };

  return (
    <fieldset className="flex flex-col gap-2">
      <legend className="text-sm font-medium text-slate-900">Filters</legend>
      {active.length === 0 ? <p className="text-xs text-slate-600">No filters: every record in the range counts.</p> : null}
      <ul className="flex flex-col gap-2">
        {active.map((name) => {
          const d = dims.find((x) => x.name === name);
          if (!d) return null;
          return (
            <li key={name} className="rounded-md border border-slate-300 bg-white p-2">
              <FilterRow dimension={d} values={value[name] ?? []} onChange={(v) => set(name, v)} onRemove={() => remove(name)} />
            </li>
          );
        })}
      </ul>
      <div className="flex flex-col gap-1 sm:max-w-xs">
        <label htmlFor={`${id}-add`} className="text-xs text-slate-700">
          Add a filter on
        </label>
        <Select
          id={`${id}-add`}
          value=""
          placeholder="Choose a dimension…"
          groups={dimensionGroups(op, active)}
          onChange={(e) => {
            if (e.target.value) set(e.target.value, []);
          }}
        />
      </div>
    </fieldset>
  );
}

function FilterRow({
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
  return (
    <div role="group" aria-labelledby={`${id}-name`} className="flex flex-col gap-2">
      <div className="flex items-center justify-between gap-2">
        <span id={`${id}-name`} className="text-sm font-medium">
          {d.label}
          <span className="font-normal text-slate-600"> (any of)</span>
        </span>
        <Button size="sm" variant="ghost" onClick={onRemove} aria-label={`Remove the ${d.label} filter`}>
          Remove
        </Button>
      </div>
      {d.values ? (
        <div className="flex flex-wrap gap-x-4 gap-y-1">
          {d.values.map((v) => (
            <label key={v} className="flex items-center gap-1.5 text-sm">
              <input
                type="checkbox"
                className="size-4"
                checked={values.includes(v)}
                onChange={(e) => onChange(e.target.checked ? [...values, v] : values.filter((x) => x !== v))}
              />
              {v}
            </label>
          ))}
        </div>
      ) : (
        <ValueList dimension={d} values={values} onChange={onChange} />
      )}
      {values.length === 0 ? <p className="text-xs text-amber-800">Choose at least one value, or remove this filter.</p> : null}
    </div>
  );
}

function ValueList({ dimension: d, values, onChange }: { dimension: DimensionDef; values: FilterValue[]; onChange: (v: FilterValue[]) => void }) {
  const id = useId();
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const full = values.length >= LIMITS.maxFilterValues;

  const add = () => {
    // Numbers and dates may be pasted as a list; free text is one value (it may contain commas).
    const parts = d.type === "string" ? [text] : text.split(/[\s,;]+/);
    const typed: FilterValue[] = [];
    for (const p of parts) {
      if (p.trim() === "") continue;
      const v = parseFilterValue(d, p);
      if (v === undefined) {
        setError(`“${p.trim()}” is not ${filterValueHint(d)}.`);
        return;
      }
      if (!values.includes(v) && !typed.includes(v)) typed.push(v);
    }
    if (typed.length === 0) return;
    if (values.length + typed.length > LIMITS.maxFilterValues) {
      setError(`At most ${LIMITS.maxFilterValues} values per filter.`);
      return;
    }
    onChange([...values, ...typed]);
    setText("");
    setError(null);
  };

  const type = d.type === "date" ? "date" : d.type === "string" ? "text" : "number";
  return (
    <div className="flex flex-col gap-1.5">
      {values.length > 0 ? (
        <ul aria-label={`${d.label} values`} className="flex flex-wrap gap-1.5">
          {values.map((v) => (
            <li key={String(v)} className="inline-flex items-center rounded-full border border-slate-300 bg-slate-100 pl-2.5 text-sm">
              {formatDimensionValue(d.name, v)}
              <button
                type="button"
                className="ml-0.5 inline-flex size-7 items-center justify-center rounded-full text-slate-700 hover:bg-slate-200"
                aria-label={`Remove ${formatDimensionValue(d.name, v)} from ${d.label}`}
                onClick={() => onChange(values.filter((x) => x !== v))}
              >
                <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="flex gap-2">
        <label htmlFor={`${id}-value`} className="sr-only">
          Add a {d.label} value
        </label>
        <input
          id={`${id}-value`}
          type={type}
          inputMode={d.type === "integer" ? "numeric" : d.type === "decimal" ? "decimal" : undefined}
          step={d.type === "integer" ? 1 : d.type === "decimal" ? "any" : undefined}
          className={inputClass}
          value={text}
          disabled={full}
          placeholder={d.type === "string" ? `${d.label}…` : undefined}
          aria-invalid={error !== null}
          aria-describedby={error ? `${id}-error` : `${id}-hint`}
          onChange={(e) => {
            setText(e.target.value);
            setError(null);
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
      {error ? (
        <p id={`${id}-error`} className="text-xs font-medium text-red-700">
          {error}
        </p>
      ) : (
        <p id={`${id}-hint`} className="text-xs text-slate-600">
          {full ? `At most ${LIMITS.maxFilterValues} values.` : `Enter ${filterValueHint(d)}, then Add (or press Enter).`}
        </p>
      )}
    </div>
  );
}
