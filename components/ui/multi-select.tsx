"use client";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { Button } from "./button";
import { lazyPart } from "./lazy-part";

import type { MultiSelectOption } from "./multi-select-panel";

export type { MultiSelectOption };

// The panel (its search box, the groups of checkboxes, closing on Escape or a click outside) is not
// in the page's first load: the first paint draws only the chosen values and the button.
// It is asked for once the browser is idle after the page has loaded, and at once when the button is
// pointed at, focused or pressed, so that what is typed just after the press lands in its search box
// (a press before it has come opens it when it comes).
const MultiSelectPanel = lazyPart(() => import("./multi-select-panel").then((m) => m.MultiSelectPanel), null);
const loadPanel = MultiSelectPanel.preload;
function loadPanelWhenIdle(): () => void {
  if (typeof requestIdleCallback === "function") {
    const handle = requestIdleCallback(() => loadPanel(), { timeout: 2_000 });
    return () => cancelIdleCallback(handle);
  }
  const timer = setTimeout(loadPanel, 1_000);
  return () => clearTimeout(timer);
}

/**
 * A searchable, grouped multi-select: the chosen values as removable chips, and a non-modal panel
 * (role="dialog") with a search box and one checkbox per option, in groups. Everything is a native
 * control. Escape or a click outside closes the panel; Escape and Done return focus to the button.
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
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLLIElement>(null);
  useEffect(loadPanelWhenIdle, []);
  const toggle = (v: string) => onChange(selected.includes(v) ? selected.filter((s) => s !== v) : [...selected, v]);
  const labelOf = new Map(options.map((o) => [o.value, o.label]));
  // One function for the panel's life: its document listeners are added once, not on every render.
  const close = useCallback(
    (focusButton: boolean) => {
      setOpen(false);
      if (focusButton) document.getElementById(`${id}-button`)?.focus();
    },
    [id],
  );

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
        <li ref={root}>
          <Button
            id={`${id}-button`}
            size="sm"
            aria-expanded={open}
            aria-controls={open ? `${id}-panel` : undefined}
            aria-haspopup="dialog"
            onPointerEnter={loadPanel}
            onFocus={loadPanel}
            onClick={() => setOpen((o) => !o)}
          >
            Choose {label.toLowerCase()}…
          </Button>
          {open ? (
            <MultiSelectPanel id={`${id}-panel`} root={root} label={label} options={options} selected={selected} onToggle={toggle} onClose={close} actions={actions} />
          ) : null}
        </li>
      </ul>
    </div>
  );
}
