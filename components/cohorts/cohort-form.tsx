"use client";
import { cohortQueryString, type CohortState } from "@/lib/report/state/cohort";
import { COHORT_PRESETS } from "@/lib/report/state/range";
import { DateRangePicker, rangeError } from "@/components/ui/date-range-picker";
import { FilterEditor } from "@/components/report/filter-editor";
import { RunReportBar } from "@/components/report/run-report-bar";
import { useUrlDraft } from "@/components/report/use-url-look";

/**
 * What the cohort request is made of (range of initial dates, filters), as a draft until run.
 * `appliedKey` is the applied state's form parameters (the page's look gives them).
 */
export function CohortForm({
  applied,
  appliedKey,
  hasReport,
  today,
  timeZone,
  onRun,
}: {
  applied: CohortState;
  appliedKey: string;
  hasReport: boolean;
  today: string;
  timeZone: string;
  onRun: (draft: CohortState) => void;
}) {
  const [draft, setDraft] = useUrlDraft(applied, appliedKey);
  const problem = rangeError(draft.range, today);
  // The draft as the URL had it has no changes (nothing to compute).
  const dirty = hasReport && draft !== applied && cohortQueryString(draft) !== appliedKey;
  const edit = (p: Partial<CohortState>) => {
    setDraft((d) => ({ ...d, ...p }));
  };
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
        onChange={(range) => edit({ range })}
        presets={COHORT_PRESETS}
        today={today}
        timeZone={timeZone}
      />
      <p className="-mt-3 text-xs text-slate-600">Customers are picked by their initial date (their first order).</p>
      <FilterEditor op="cohort" value={draft.filters} onChange={(filters) => edit({ filters })} />
      <RunReportBar disabled={problem !== null} dirty={dirty} />
    </form>
  );
}
