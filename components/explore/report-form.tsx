"use client";
import { useId } from "react";
import { dimensionsFor } from "@/lib/contract/dimensions";
import { OPERATION_ROWS, type Operation } from "@/lib/contract/operations";
import { type ExploreState, defaultColumns, exploreQueryString } from "@/lib/report/state/explore";
import { useUrlDraft } from "@/components/report/use-url-look";
import { EXPLORE_PRESETS } from "@/lib/report/state/range";
import { DateRangePicker, rangeError } from "@/components/ui/date-range-picker";
import { Select } from "@/components/ui/select";
import { FilterEditor } from "@/components/report/filter-editor";
import { RunReportBar } from "@/components/report/run-report-bar";
import { ColumnsPicker, type ColumnOptions } from "./columns-picker";
import { GroupByPicker } from "./group-by-picker";
import { compareError, PeriodControls } from "./period-controls";


/**
 * The report's settings as a draft: edits stay here until "Run report" writes them to the URL. When
 * the URL changes underneath (back, forward, a link), the draft follows it.
 *
 * `appliedKey` is the applied state's form parameters (the page's look gives them), which say
 * whether there are changes not run yet.
 */
export function ReportForm({
  applied,
  appliedKey,
  hasReport,
  today,
  timeZone,
  columns,
  onRun,
}: {
  applied: ExploreState;
  appliedKey: string;
  hasReport: boolean;
  today: string;
  timeZone: string;
  columns: ColumnOptions;
  onRun: (draft: ExploreState) => void;
}) {
  const id = useId();
  const [draft, setDraft] = useUrlDraft(applied, appliedKey);

  const patch = (p: Partial<ExploreState>) => {
    setDraft((d) => ({ ...d, ...p }));
  };
  const switchOp = (op: Operation) => {
    setDraft((d) => {
      const dims = new Set(dimensionsFor(op).map((x) => x.name));
      return {
        ...d,
        op,
        groupBy: d.groupBy.filter((g) => dims.has(g)),
        ...defaultColumns(op),
        filters: Object.fromEntries(Object.entries(d.filters).filter(([k]) => dims.has(k))),
        sort: null,
        chartMeasure: null,
        chartMeasure2: null,
        pivotMeasure: null,
      };
    });
  };

  const rangeProblem = rangeError(draft.range, today);
  const noColumns = draft.metrics.length + draft.kpis.length === 0;
  const comparisonProblem = compareError(draft, today, rangeProblem === null);
  const canRun = rangeProblem === null && !noColumns && comparisonProblem === null;
  // The draft as the URL had it has no changes (nothing to compute); an edited one is compared once the
  // state code has come, a moment after the first edit.
  const dirty = hasReport && draft !== applied && exploreQueryString(draft) !== appliedKey;

  return (
    <form
      aria-label="Report settings"
      className="flex flex-col gap-5"
      onSubmit={(e) => {
        e.preventDefault();
        if (canRun) onRun(draft);
      }}
    >
      <div className="flex flex-col gap-1">
        <label htmlFor={`${id}-op`} className="text-sm font-medium text-slate-900">
          Report
        </label>
        <Select
          id={`${id}-op`}
          value={draft.op}
          onChange={(e) => switchOp(e.target.value as Operation)}
          options={OPERATION_ROWS.map((o) => ({ value: o.op, label: o.label }))}
        />
      </div>
      <DateRangePicker value={draft.range} onChange={(range) => patch({ range })} presets={EXPLORE_PRESETS} today={today} timeZone={timeZone} />
      <GroupByPicker op={draft.op} value={draft.groupBy} onChange={(groupBy) => patch({ groupBy, ...(groupBy.includes("date") ? {} : { grain: "day" as const }) })} />
      <PeriodControls draft={draft} today={today} rangeOk={rangeProblem === null} onChange={(p) => patch(p)} />
      <div className="flex flex-col gap-1">
        <ColumnsPicker options={columns} op={draft.op} metrics={draft.metrics} kpis={draft.kpis} onChange={(c) => patch(c)} />
        {noColumns ? <p className="text-xs font-medium text-red-700">Choose at least one metric.</p> : null}
      </div>
      <FilterEditor op={draft.op} value={draft.filters} onChange={(filters) => patch({ filters })} />
      <RunReportBar disabled={!canRun} dirty={dirty} />
    </form>
  );
}
