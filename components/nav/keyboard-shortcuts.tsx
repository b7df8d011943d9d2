"use client";
/**
 * The page-wide keyboard shortcuts (lib/core/nav/shortcuts.ts) and their help, a native modal dialog (it
 * traps focus, closes on Escape and gives focus back). Targets are found by what the user sees: the
 * fieldset whose legend is "Filters", and the form the focus is in (else the page's Run or Apply
 * button), so pages need no wiring of their own.
 */
import { useEffect, useRef } from "react";
import { SHORTCUTS, shortcutFor } from "@/lib/core/nav/shortcuts";
import { Button } from "@/components/ui/button";

const FOCUSABLE = "input:not([disabled]), select:not([disabled]), textarea:not([disabled]), button:not([disabled])";

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !["checkbox", "radio", "button", "submit", "reset"].includes(target.type);
}

function focusFilters(): boolean {
  const legend = [...document.querySelectorAll("fieldset > legend")].find((l) => l.textContent?.trim() === "Filters");
  const field = legend?.parentElement?.querySelector<HTMLElement>(FOCUSABLE);
  field?.focus();
  return field !== undefined && field !== null;
}

/** The report form's run button on the page: a submit button that runs or applies, outside any dialog. */
const isRunButton = (b: HTMLButtonElement) => !b.disabled && /^(Run|Apply)\b/.test(b.textContent?.trim() ?? "") && !b.closest("dialog");

function runReport(from: EventTarget | null): boolean {
  // In a form, the shortcut submits that form, as Enter in a field would; elsewhere only a report's
  // own Run (or Apply) button is pressed, never another form's Save.
  const own = from instanceof Element ? from.closest("form") : null;
  const button = own && !own.closest("dialog") ? own.querySelector<HTMLButtonElement>('button[type="submit"]:not([disabled])') : [...document.querySelectorAll<HTMLButtonElement>('form button[type="submit"]')].find(isRunButton);
  if (!button) return false;
  button.form?.requestSubmit(button);
  return true;
}

export function KeyboardShortcuts() {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.isComposing || dialog.current?.open) return;
      const action = shortcutFor({ key: e.key, ctrlKey: e.ctrlKey, metaKey: e.metaKey, altKey: e.altKey, typing: isTyping(e.target) });
      const done = action === "help" ? (dialog.current?.showModal(), true) : action === "filters" ? focusFilters() : action === "run" ? runReport(e.target) : false;
      if (done) e.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="shortcuts-title" className="m-auto max-w-md rounded-lg border border-slate-300 bg-white p-5 text-slate-900 shadow-xl backdrop:bg-slate-900/40">
      <h2 id="shortcuts-title" className="text-lg font-semibold">
        Keyboard shortcuts
      </h2>
      <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
        {SHORTCUTS.map((s) => (
          <div key={s.action} className="contents">
            <dt>
              <kbd className="rounded border border-slate-300 bg-slate-50 px-1.5 py-0.5 font-mono text-xs">{s.keys}</kbd>
            </dt>
            <dd>{s.does}</dd>
          </div>
        ))}
      </dl>
      <form method="dialog" className="mt-4 flex justify-end">
        <Button type="submit">Close</Button>
      </form>
    </dialog>
  );
}
