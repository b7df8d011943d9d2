"use client";
/**
 * System / Light / Dark, in the top bar: the pressed button is the choice this browser keeps. Each
 * button shows an icon, and its word from the small breakpoint up (the word stays its name on phones).
 */
import { useSyncExternalStore, type ReactNode } from "react";
import { cn } from "@/components/ui/cn";
import { THEME_CHANGE_EVENT, THEME_CHOICES, THEME_LABELS, appliedThemeChoice, saveThemeChoice, type ThemeChoice } from "@/lib/core/theme/theme";

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

const ICONS: Record<ThemeChoice, ReactNode> = {
  // A screen: whatever the system says.
  system: (
    <>
      <rect x="2.5" y="3.5" width="11" height="7.5" rx="1" />
      <path d="M6 14h4M8 11v3" />
    </>
  ),
  light: (
    <>
      <circle cx="8" cy="8" r="2.75" />
      <path d="M8 1.5v1.75M8 12.75v1.75M1.5 8h1.75M12.75 8h1.75M3.4 3.4l1.25 1.25M11.35 11.35l1.25 1.25M3.4 12.6l1.25-1.25M11.35 4.65l1.25-1.25" />
    </>
  ),
  dark: <path d="M13 9.5A5.5 5.5 0 0 1 6.5 3a5.5 5.5 0 1 0 6.5 6.5z" />,
};

export function ThemeToggle() {
  const choice = useSyncExternalStore<ThemeChoice | null>(subscribe, appliedThemeChoice, unknownOnServer);
  return (
    <div role="group" aria-label="Colour scheme" className="inline-flex shrink-0 overflow-hidden rounded border border-slate-300 text-xs">
      {THEME_CHOICES.map((c) => (
        <button
          key={c}
          type="button"
          aria-pressed={choice === c}
          title={THEME_LABELS[c]}
          onClick={() => saveThemeChoice(c)}
          className={cn(
            "inline-flex min-h-7 items-center gap-1 px-1.5 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-blue-700 sm:px-2",
            c !== "system" && "border-l border-slate-300",
            choice === c ? "bg-slate-800 font-medium text-white" : "bg-white text-slate-800 hover:bg-slate-100",
          )}
        >
          <svg viewBox="0 0 16 16" width="14" height="14" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" aria-hidden="true" focusable="false">
            {ICONS[c]}
          </svg>
          <span className="max-sm:sr-only">{THEME_LABELS[c]}</span>
        </button>
      ))}
    </div>
  );
}
