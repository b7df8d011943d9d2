"use client";
import { useId, useRef, type ReactNode } from "react";
import { cn } from "./cn";

export interface TabDef {
  id: string;
  label: string;
  content: ReactNode;
}

/** WAI-ARIA tabs: arrow keys, Home and End move between tabs; only the selected tab is in the tab order. */
export function Tabs({ label, tabs, value, onChange }: { label: string; tabs: readonly TabDef[]; value: string; onChange: (id: string) => void }) {
  const base = useId();
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const index = Math.max(0, tabs.findIndex((t) => t.id === value));
  const focus = (i: number) => {
    const t = tabs[(i + tabs.length) % tabs.length]!;
    onChange(t.id);
    refs.current[(i + tabs.length) % tabs.length]?.focus();
  };
  return (
    <div className="flex flex-col gap-4">
      <div role="tablist" aria-label={label} className="flex gap-1 border-b border-slate-300">
        {tabs.map((t, i) => {
          const selected = i === index;
          return (
            <button
              key={t.id}
              ref={(el) => {
                refs.current[i] = el;
              }}
              type="button"
              role="tab"
              id={`${base}-tab-${t.id}`}
              aria-selected={selected}
              aria-controls={`${base}-panel-${t.id}`}
              tabIndex={selected ? 0 : -1}
              className={cn(
                "-mb-px min-h-10 rounded-t-md border px-4 text-sm font-medium",
                selected ? "border-slate-300 border-b-white bg-white text-slate-900" : "border-transparent text-slate-700 hover:text-slate-900",
              )}
              onClick={() => onChange(t.id)}
              onKeyDown={(e) => {
                if (e.key === "ArrowRight") focus(i + 1);
                else if (e.key === "ArrowLeft") focus(i - 1);
                else if (e.key === "Home") focus(0);
                else if (e.key === "End") focus(tabs.length - 1);
                else return;
                e.preventDefault();
              }}
            >
              {t.label}
            </button>
          );
        })}
      </div>
      {tabs.map((t, i) => (
        <div
          key={t.id}
          role="tabpanel"
          id={`${base}-panel-${t.id}`}
          aria-labelledby={`${base}-tab-${t.id}`}
          hidden={i !== index}
          tabIndex={0}
        >
          {t.content}
        </div>
      ))}
    </div>
  );
}
