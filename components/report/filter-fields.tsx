"use client";
import { useId } from "react";
import type { DimensionDef } from "@/lib/contract/dimensions";
import type { FilterValue, Filters } from "@/lib/report/state/filters";
import { Select, type SelectGroup } from "@/components/ui/select";
import { lazyPart } from "@/components/ui/lazy-part";

// One filter's editor (values, checkboxes, pasting, suggestions) is loaded with the first filter. A
// filter in the page's link is drawn on the server, and its row hydrates when its code has come,
// fetched as soon as the form hydrates.
const FilterRow = lazyPart(
  () => import("./filter-row").then((m) => m.FilterRowWithClient),
  <div className="min-h-28 text-sm text-slate-700">Loading the filter…</div>,
);

/** Dimensions as select groups (the catalog's own display groups, in catalog order). */
export function groupsOf(dimensions: readonly DimensionDef[], exclude: readonly string[] = []): SelectGroup[] {
  const groups = new Map<string, SelectGroup>();
  for (const d of dimensions) {
    if (exclude.includes(d.name)) continue;
    let g = groups.get(d.group);
    if (!g) groups.set(d.group, (g = { label: d.group, options: [] }));
    g.options.push({ value: d.name, label: d.label });
  }
  return [...groups.values()];
}

/**
 * Filters on any of `dimensions` (an operation's, from the catalog), typed by the catalog: a checkbox
 * per value for the enumerated ones, number, date or text entries (several values each) for the
 * rest. The dimensions come as a prop so that a page can pass them from its server render instead of
 * loading the catalog (./filter-editor.tsx passes the catalog's).
 */
export function FilterFields({
  dimensions: dims,
  value,
  onChange,
}: {
  dimensions: readonly DimensionDef[];
  value: Filters;
  onChange: (f: Filters) => void;
}) {
  const id = useId();
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
          groups={groupsOf(dims, active)}
          onChange={(e) => {
            if (e.target.value) set(e.target.value, []);
          }}
        />
      </div>
    </fieldset>
  );
}

