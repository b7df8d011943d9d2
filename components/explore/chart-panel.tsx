"use client";
import { lazy, Suspense, useId, useMemo, type ComponentProps, type ReactNode } from "react";
import type { Operation } from "@/lib/contract/operation-ids";
import type { Measure } from "@/lib/metrics/kpis";
import type { ReportView } from "@/lib/periods/view";
import { CHART_KINDS, type ChartKind } from "@/lib/report-state/explore-view";
import { Select } from "@/components/ui/select";
import { Spinner } from "@/components/ui/spinner";

/** The figure's frame: the caption, the box the chart (or what stands for it) sits in, the legend's row. */
export function ChartFrame({ id, title, notes = [], drawn, dimmed, legend = null, children }: { id: string; title: string; notes?: readonly string[]; drawn: boolean; dimmed: boolean; legend?: ReactNode; children: ReactNode }) {
  return (
    <figure aria-labelledby={`${id}-caption`} className="m-0 flex flex-col gap-2" data-testid="results-chart">
      <figcaption id={`${id}-caption`} className="flex flex-col gap-0.5">
        <span className="text-sm font-medium text-slate-900">{title}</span>
        {notes.length > 0 ? <span className="text-xs text-slate-700">{notes.join(" ")}</span> : null}
      </figcaption>
      <div className={`rounded-md border border-slate-300 bg-white p-2 transition-opacity ${drawn ? "min-h-72 sm:min-h-80" : "h-72 sm:h-80"} ${dimmed ? "opacity-50" : ""}`}>{children}</div>
      {legend ?? <div className="min-h-6" />}
    </figure>
  );
}

// The chart's data, caption, legend and drawing: loaded when there is a report to draw (and fetched
// beside its answer, see preloadResults in explore-report.tsx), in the frame the figure keeps. React's
// own lazy: the server never draws the chart (it has no answer), so next/dynamic's preloading would
// only add its code to the page.
export const loadChartFigure = () => import("./chart-figure");
const LazyChartFigure = lazy(() => loadChartFigure().then((m) => ({ default: m.ChartFigure })));
function ChartFigure(props: ComponentProps<typeof LazyChartFigure>) {
  return (
    <Suspense
      fallback={
        <ChartFrame id="chart-loading" title="Chart" drawn dimmed={false}>
          <div className="flex h-[270px] items-center justify-center gap-2 text-sm text-slate-700">
            <Spinner /> Loading the chart…
          </div>
        </ChartFrame>
      }
    >
      <LazyChartFigure {...props} />
    </Suspense>
  );
}

const CHART_LABELS: Record<ChartKind, string> = { auto: "Automatic", line: "Lines", bar: "Bars", none: "Off" };

export interface ChartPanelChange {
  chart?: ChartKind;
  chartMeasure?: string | null;
  chartMeasure2?: string | null;
}

/**
 * Chart controls and the chart of the report's view (its rows at the report's grain, beside the
 * comparison when there is one). The box keeps its size while there is nothing to draw; the figure's
 * caption names what is drawn; the legend lists every series by name.
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
}: {
  view: ReportView | null;
  /** Metric names and KPI ids that can be plotted (shown and fetched), in the user's order. */
  measures: readonly string[];
  /**
   * The KPI registry's lookup, which comes with the results' code (./results-model.ts) rather than
   * with the page (issue 21); null before then, when there are no measures to plot either.
   */
  measureFor: ((id: string, op: Operation) => Measure | undefined) | null;
  chartKind: ChartKind;
  measureId: string | null;
  /** A second measure, drawn on its own right-hand axis; null: none. */
  measure2Id: string | null;
  onChange: (p: ChartPanelChange) => void;
  /** What to show instead of a chart when there is no data (loading, failure, not run). */
  placeholder: React.ReactNode;
  dimmed: boolean;
}) {
  const id = useId();
  const op = view?.op ?? "orders";
  const plotted = measureId && measures.includes(measureId) ? measureId : (measures[0] ?? null);
  const second = measure2Id && measure2Id !== plotted && measures.includes(measure2Id) ? measure2Id : null;
  const measure = useMemo(() => (plotted && measureFor ? measureFor(plotted, op) : undefined), [plotted, op, measureFor]);
  const measure2 = useMemo(() => (second && measureFor ? (measureFor(second, op) ?? null) : null), [second, op, measureFor]);

  const label = (m: string) => measureFor?.(m, op)?.label ?? m;

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
      {view && measure ? (
        <ChartFigure view={view} measure={measure} measure2={measure2} chartKind={chartKind} dimmed={dimmed} />
      ) : (
        <ChartFrame id={id} title="Chart" drawn={false} dimmed={dimmed}>
          {placeholder}
        </ChartFrame>
      )}
    </div>
  );
}
