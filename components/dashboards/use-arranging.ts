/**
 * A change to the dashboard written to the URL, with a note for screen readers and, after arranging,
 * focus on the same control at the tile's new place (or its Edit button).
 */
import { useEffect, useRef } from "react";
import type { DashboardState } from "@/lib/report/state/dashboard";
import type { StateLib } from "./use-dashboard-look";

/** Where focus goes after a change: the control by its label, else the fallback's. */
export interface FocusTarget {
  label: string;
  fallback: string;
}

export type Change = (l: StateLib, next: DashboardState, note?: string, focus?: FocusTarget) => void;

export function useArranging(write: (search: string, how: "push" | "replace") => void, params: string | null, answered: unknown) {
  const announce = useRef<HTMLParagraphElement>(null);
  const focusTarget = useRef<FocusTarget | null>(null);
  const change: Change = (l, next, note, focus) => {
    write(l.serializeDashboard(next), "push");
    if (note && announce.current) announce.current.textContent = note;
    focusTarget.current = focus ?? null;
  };
  useEffect(() => {
    const target = focusTarget.current;
    if (!target) return;
    const find = (label: string) => document.querySelector<HTMLButtonElement>(`button[aria-label="${label}"]:not([disabled])`);
    const el = find(target.label) ?? find(target.fallback);
    if (el) {
      el.focus();
      focusTarget.current = null;
    }
  }, [params, answered]);
  return { change, announce };
}
