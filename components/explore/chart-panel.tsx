"use client";
import { useId, useMemo } from "react";
import type { Operation } from "@/lib/contract/operations";
import type { Measure } from "@/lib/report/metrics/kpis";
import type { ReportView } from "@/lib/report/periods/view";
import { CHART_KINDS, CHART_LABELS, type ChartKind } from "@/lib/report/state/explore";
import { Select } from "@/components/ui/select";
import { ChartFigure } from "./chart-figure";
import { ChartFrame } from "./chart-frame";

export interface ChartPanelChange {
  chart?: ChartKind;
  chartMeasure?: string | null;
  chartMeasure2?: string | null;
}

/**
 * Chart controls and the chart of the report's view (its rows at the report's grain, beside the
 * comparison when there is one), once there is a view: before that the page draws
 * ./chart-placeholder.tsx, and this module comes with the results' code (./lazy-results.tsx). The figure's caption names what is drawn; the legend lists every series by name.
 */
export function ChartPanel({
  view,
  measures,
  measureFor,
  chartKind,
  measureId,
  measure2Id,
  onChange,
  placeholder,
  dimmed,
  today,
}: {
  view: ReportView;
  /** Metric names and KPI ids that can be plotted (shown and fetched), in the user's order. */
  measures: readonly string[];
  /** The KPI registry's lookup, from the results' code (./results-model.ts) rather than the page's. */
  measureFor: (id: string, op: Operation) => Measure | undefined;
  chartKind: ChartKind;
  measureId: string | null;
  /** A second measure, drawn on its own right-hand axis; null: none. */
  measure2Id: string | null;
  onChange: (p: ChartPanelChange) => void;
  /** What to show instead of a chart when nothing can be plotted. */
  placeholder: React.ReactNode;
  dimmed: boolean;
  /** Today in the reporting time zone: points of a rate still maturing are marked. */
  today: string;
}) {
  const id = useId();
  const { op } = view;
  const plotted = measureId && measures.includes(measureId) ? measureId : (measures[0] ?? null);
  const second = measure2Id && measure2Id !== plotted && measures.includes(measure2Id) ? measure2Id : null;
  const measure = useMemo(() => (plotted ? measureFor(plotted, op) : undefined), [plotted, op, measureFor]);
  const measure2 = useMemo(() => (second ? (measureFor(second, op) ?? null) : null), [second, op, measureFor]);

  const label = (m: string) => measureFor(m, op)?.label ?? m;

  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-end gap-3">
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-kind`} className="text-xs text-slate-700">
            Chart
          </label>
          <Select
            id={`${id}-kind`}
            className="w-36"
            value={chartKind}
            onChange={(e) => onChange({ chart: e.target.value as ChartKind })}
            options={CHART_KINDS.map((k) => ({ value: k, label: CHART_LABELS[k] }))}
          />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-measure`} className="text-xs text-slate-700">
            Plot
          </label>
          <Select
            id={`${id}-measure`}
            className="w-60"
            value={plotted ?? ""}
            disabled={measures.length === 0}
            onChange={(e) => {
              const next = e.target.value;
              // The second measure cannot be the first one too.
              onChange(next === second ? { chartMeasure: next, chartMeasure2: null } : { chartMeasure: next });
            }}
            options={measures.map((m) => ({ value: m, label: label(m) }))}
          />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-measure2`} className="text-xs text-slate-700">
            and (right axis)
          </label>
          <Select
            id={`${id}-measure2`}
            className="w-60"
            value={second ?? ""}
            disabled={measures.length < 2}
            onChange={(e) => onChange({ chartMeasure2: e.target.value === "" ? null : e.target.value })}
            options={[{ value: "", label: "None" }, ...measures.filter((m) => m !== plotted).map((m) => ({ value: m, label: label(m) }))]}
          />
        </div>
      </div>
      {measure ? (
        <ChartFigure view={view} measure={measure} measure2={measure2} chartKind={chartKind} dimmed={dimmed} today={today} />
      ) : (
        <ChartFrame id={id} title="Chart" drawn={false} dimmed={dimmed}>
          {placeholder}
        </ChartFrame>
      )}
    </div>
  );
}
