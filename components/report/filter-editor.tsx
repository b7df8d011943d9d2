"use client";
import dynamic from "next/dynamic";
import { useId } from "react";
import { dimensionsFor, type Operation } from "@/lib/contract/catalog";
import type { FilterValue, Filters } from "@/lib/report-state/filters";
import { Select, type SelectGroup } from "@/components/ui/select";

// One filter's editor (values, checkboxes, pasting, suggestions) is loaded with the first filter;
// a filter in the page's link is drawn on the server and its code comes with the page.
const FilterRow = dynamic(() => import("./filter-row").then((m) => m.FilterRowWithClient), {
  loading: () => <div className="min-h-28 text-sm text-slate-700">Loading the filter…</div>,
});

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

