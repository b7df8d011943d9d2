"use client";
import { useState } from "react";
import { cohortQueryString, type CohortState } from "@/lib/report-state/cohort";
import { COHORT_PRESETS } from "@/lib/report-state/range";
import { Button } from "@/components/ui/button";
import { DateRangePicker, rangeError } from "@/components/ui/date-range-picker";
import { FilterEditor } from "@/components/report/filter-editor";

/** What the cohort request is made of (range of initial dates, filters), as a draft until run. */
export function CohortForm({
  applied,
  hasReport,
  today,
  timeZone,
  onRun,
}: {
  applied: CohortState;
  hasReport: boolean;
  today: string;
  timeZone: string;
  onRun: (draft: CohortState) => void;
}) {
  const appliedKey = cohortQueryString(applied);
  const [draft, setDraft] = useState(applied);
  const [seenKey, setSeenKey] = useState(appliedKey);
  if (seenKey !== appliedKey) {
    setSeenKey(appliedKey);
    setDraft(applied);
  }
  const problem = rangeError(draft.range, today);
  const dirty = hasReport && cohortQueryString(draft) !== appliedKey;
  return (
    <form
      aria-label="Cohort settings"
      className="flex flex-col gap-5"
      onSubmit={(e) => {
        e.preventDefault();
        if (problem === null) onRun(draft);
      }}
    >
      <DateRangePicker
        value={draft.range}
        onChange={(range) => setDraft((d) => ({ ...d, range }))}
        presets={COHORT_PRESETS}
        today={today}
        timeZone={timeZone}
      />
      <p className="-mt-3 text-xs text-slate-600">Customers are picked by their initial date (their first order).</p>
      <FilterEditor op="cohort" value={draft.filters} onChange={(filters) => setDraft((d) => ({ ...d, filters }))} />
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" variant="primary" disabled={problem !== null}>
          Run report
        </Button>
        <p className="text-xs text-slate-700" aria-live="polite">
          {dirty ? "You have changes that are not run yet." : ""}
        </p>
      </div>
    </form>
  );
}
