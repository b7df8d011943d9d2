"use client";
import { useEffect, useState, type ReactNode, type RefObject } from "react";
import { Button } from "./button";
import { inputClass } from "./field";

export interface MultiSelectOption {
  value: string;
  label: string;
  group: string;
  description?: string;
}

/** MultiSelect's open panel (./multi-select.tsx), loaded when it is first wanted. */
export function MultiSelectPanel({
  id,
  root,
  label,
  options,
  selected,
  onToggle,
  onClose,
  actions,
}: {
  id: string;
  /** What a click may land in without closing the panel: the panel and its button. */
  root: RefObject<HTMLElement | null>;
  label: string;
  options: readonly MultiSelectOption[];
  selected: readonly string[];
  onToggle: (value: string) => void;
  /** Closes the panel, returning focus to its button or not. */
  onClose: (focusButton: boolean) => void;
  actions?: (close: () => void) => ReactNode;
}) {
  const [query, setQuery] = useState("");
  useEffect(() => {
    const onPointer = (e: PointerEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) onClose(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") onClose(true);
    };
    document.addEventListener("pointerdown", onPointer);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("pointerdown", onPointer);
      document.removeEventListener("keydown", onKey);
    };
  }, [root, onClose]);

  const chosen = new Set(selected);
  const q = query.trim().toLowerCase();
  const visible = options.filter(
    (o) => q === "" || o.label.toLowerCase().includes(q) || o.value.toLowerCase().includes(q) || o.description?.toLowerCase().includes(q),
  );
  const groups = [...new Set(options.map((o) => o.group))];
  const done = () => onClose(true);
  return (
    <div
      id={id}
      role="dialog"
      aria-label={`Choose ${label.toLowerCase()}`}
      className="absolute left-0 z-30 mt-1 max-h-[70vh] w-[min(24rem,calc(100vw-4rem))] overflow-y-auto rounded-md border border-slate-300 bg-white p-3 shadow-lg"
    >
      <div className="flex flex-col gap-3">
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-search`} className="text-sm font-medium">
            Search {label.toLowerCase()}
          </label>
          <input id={`${id}-search`} type="search" className={inputClass} value={query} onChange={(e) => setQuery(e.target.value)} autoFocus autoComplete="off" />
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
                  <input type="checkbox" className="mt-0.5 size-4" checked={chosen.has(o.value)} onChange={() => onToggle(o.value)} />
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
          {actions?.(done)}
          <Button size="sm" variant="primary" onClick={done}>
            Done
          </Button>
        </div>
      </div>
    </div>
  );
}
