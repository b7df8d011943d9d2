"use client";
import { useId, useState } from "react";
import { Button } from "./button";
import { inputClass } from "./field";
import { Popover } from "./popover";

export interface MultiSelectOption {
  value: string;
  label: string;
  group: string;
  description?: string;
}

/**
 * A searchable, grouped multi-select: the chosen values as removable chips, and a popover with a
 * search box and one checkbox per option, in groups. Everything is a native control.
 */
export function MultiSelect({
  label,
  options,
  selected,
  onChange,
  actions,
}: {
  label: string;
  options: readonly MultiSelectOption[];
  selected: readonly string[];
  onChange: (values: string[]) => void;
  /** Extra buttons in the panel (e.g. "Reset to defaults"). */
  actions?: (close: () => void) => React.ReactNode;
}) {
  const id = useId();
  const [query, setQuery] = useState("");
  const chosen = new Set(selected);
  const q = query.trim().toLowerCase();
  const visible = options.filter(
    (o) => q === "" || o.label.toLowerCase().includes(q) || o.value.toLowerCase().includes(q) || o.description?.toLowerCase().includes(q),
  );
  const groups = [...new Set(options.map((o) => o.group))];
  const toggle = (v: string) => onChange(chosen.has(v) ? selected.filter((s) => s !== v) : [...selected, v]);
  const labelOf = new Map(options.map((o) => [o.value, o.label]));

  return (
    <div className="relative flex flex-col gap-1.5">
      <span id={`${id}-label`} className="text-sm font-medium text-slate-900">
        {label}
      </span>
      <ul aria-labelledby={`${id}-label`} className="flex flex-wrap gap-1.5">
        {selected.map((v) => (
          <li key={v} className="inline-flex items-center rounded-full border border-slate-300 bg-slate-100 pl-2.5 text-sm">
            {labelOf.get(v) ?? v}
            <button
              type="button"
              className="ml-0.5 inline-flex size-7 items-center justify-center rounded-full text-slate-700 hover:bg-slate-200"
              aria-label={`Remove ${labelOf.get(v) ?? v}`}
              onClick={() => toggle(v)}
            >
              <span aria-hidden="true">×</span>
            </button>
          </li>
        ))}
        <li>
          <Popover
            title={`Choose ${label.toLowerCase()}`}
            trigger={<>Choose {label.toLowerCase()}…</>}
            buttonProps={{ size: "sm" }}
            className="static"
            panelClassName="max-h-[70vh] overflow-y-auto"
          >
            {(close) => (
              <div className="flex flex-col gap-3">
                <div className="flex flex-col gap-1">
                  <label htmlFor={`${id}-search`} className="text-sm font-medium">
                    Search {label.toLowerCase()}
                  </label>
                  <input
                    id={`${id}-search`}
                    type="search"
                    className={inputClass}
                    value={query}
                    onChange={(e) => setQuery(e.target.value)}
                    autoFocus
                    autoComplete="off"
                  />
                </div>
                {visible.length === 0 ? <p className="text-sm text-slate-700">Nothing matches “{query}”.</p> : null}
                {groups.map((g) => {
                  const items = visible.filter((o) => o.group === g);
                  if (items.length === 0) return null;
                  return (
                    <fieldset key={g} className="flex flex-col gap-1">
                      <legend className="mb-1 text-xs font-semibold tracking-wide text-slate-700 uppercase">{g}</legend>
                      {items.map((o) => (
                        <label key={o.value} className="flex items-start gap-2 rounded px-1 py-1 text-sm hover:bg-slate-50">
                          <input type="checkbox" className="mt-0.5 size-4" checked={chosen.has(o.value)} onChange={() => toggle(o.value)} />
                          <span>
                            {o.label}
                            {o.description ? <span className="block text-xs text-slate-600">{o.description}</span> : null}
                          </span>
                        </label>
                      ))}
                    </fieldset>
                  );
                })}
                <div className="flex flex-wrap justify-end gap-2 border-t border-slate-200 pt-2">
                  {actions?.(close)}
                  <Button size="sm" variant="primary" onClick={close}>
                    Done
                  </Button>
                </div>
              </div>
            )}
          </Popover>
        </li>
      </ul>
    </div>
  );
}
