/**
 * The settings form's draft (date range, grain, comparison, filters for every tile): it follows the
 * URL when the URL moves (back, forward, a link), and an edit asks for the state code so that
 * "Apply to every tile" finds it there.
 */
import { useState } from "react";
import { isValidCustomRange, resolveRange } from "@/lib/report/state/range";
import type { DashboardSettings } from "@/lib/report/state/dashboard";
import { fitGrain } from "@/lib/report/state/grain-fit";
import type { StateLib } from "./use-dashboard-look";

export function useSettingsDraft(state: DashboardSettings, stateKey: string, today: string, lib: StateLib | null, withLib: (f: (l: StateLib) => void) => void) {
  const [draft, setDraft] = useState<DashboardSettings>(state);
  const [draftKey, setDraftKey] = useState(stateKey);
  // Date rows of a range shorter than one period of the grain are read finer (lib/report/state/grain-fit.ts).
  const grainNote = "preset" in draft.range || isValidCustomRange(draft.range.start, draft.range.end) ? fitGrain(resolveRange(draft.range, today), draft.grain).note : null;
  if (draftKey !== stateKey) {
    // The URL moved (back, forward, a link): the form shows what is on screen.
    setDraftKey(stateKey);
    setDraft(state);
  }
  const edit = (p: Partial<DashboardSettings>) => {
    if (lib === null) withLib(() => undefined);
    setDraft({ ...draft, ...p });
  };
  return { draft, grainNote, edit };
}
