"use client";
/** System / Light / Dark, in the top bar: the pressed button is the choice this browser keeps. */
import { useSyncExternalStore } from "react";
import { cn } from "@/components/ui/cn";
import { THEME_CHANGE_EVENT, THEME_CHOICES, THEME_LABELS, appliedThemeChoice, saveThemeChoice, type ThemeChoice } from "@/lib/theme/theme";

function subscribe(onChange: () => void): () => void {
  window.addEventListener(THEME_CHANGE_EVENT, onChange);
  window.addEventListener("storage", onChange);
  return () => {
    window.removeEventListener(THEME_CHANGE_EVENT, onChange);
    window.removeEventListener("storage", onChange);
  };
}

// The server cannot know the choice: nothing is pressed in its HTML, and the browser's render follows.
const unknownOnServer = (): ThemeChoice | null => null;

export function ThemeToggle() {
  const choice = useSyncExternalStore<ThemeChoice | null>(subscribe, appliedThemeChoice, unknownOnServer);
  return (
    <div role="group" aria-label="Colour scheme" className="inline-flex overflow-hidden rounded border border-slate-300 text-xs">
      {THEME_CHOICES.map((c) => (
        <button
          key={c}
          type="button"
          aria-pressed={choice === c}
          onClick={() => saveThemeChoice(c)}
          className={cn(
            "px-2 py-1 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-blue-700",
            c !== "system" && "border-l border-slate-300",
            choice === c ? "bg-slate-800 font-medium text-white" : "bg-white text-slate-800 hover:bg-slate-100",
          )}
        >
          {THEME_LABELS[c]}
        </button>
      ))}
    </div>
  );
}
