"use client";
import dynamic from "next/dynamic";
import { useId, useMemo } from "react";
import { getDimension } from "@/lib/contract/catalog";
import { buildChartData, chooseChart } from "@/lib/charts/shape";
import { measureFor } from "@/lib/metrics/kpis";
import type { ReportData } from "@/lib/report-client/queries";
import { CHART_KINDS, type ChartKind } from "@/lib/report-state/explore";
import { EmptyState } from "@/components/ui/empty-state";
import { Select } from "@/components/ui/select";
import { Spinner } from "@/components/ui/spinner";
import { seriesColor } from "./series-colors";

const ResultsChart = dynamic(() => import("./results-chart"), {
  ssr: false,
  loading: () => (
    <div className="flex h-full items-center justify-center gap-2 text-sm text-slate-700">
      <Spinner /> Loading the chart…
    </div>
  ),
});

const CHART_LABELS: Record<ChartKind, string> = { auto: "Automatic", line: "Lines", bar: "Bars", none: "Off" };

/**
 * Chart controls and the chart, in a box of fixed height (no jump when data arrives). The figure's
 * caption names what is drawn; the legend lists every series by name.
 */
export function ChartPanel({
  data,
  measures,
  chartKind,
  measureId,
  onChange,
  placeholder,
  dimmed,
}: {
  data: ReportData | null;
  /** Metric names and KPI ids that can be plotted (shown and fetched). */
  measures: readonly string[];
  chartKind: ChartKind;
  measureId: string | null;
  onChange: (p: { chart?: ChartKind; chartMeasure?: string | null }) => void;
  /** What to show instead of a chart when there is no data (loading, failure, not run). */
  placeholder: React.ReactNode;
  dimmed: boolean;
}) {
  const id = useId();
  const op = data?.op ?? "orders";
  const plotted = measureId && measures.includes(measureId) ? measureId : (measures[0] ?? null);
  const measure = plotted ? measureFor(plotted, op) : undefined;

  const chart = useMemo(() => {
    if (!data || !measure) return null;
    const plan = chooseChart(data.request.group_by ?? [], chartKind);
    if (plan.type === "none") return { none: plan.reason };
    if (data.result.data.length === 0) return { none: "No records in this range with these filters." };
    return buildChartData(data.result.data, plan, measure, {
      dateRange: { start: data.request.start_date, end: data.request.end_date },
    });
  }, [data, measure, chartKind]);

  const caption =
    chart && !("none" in chart)
      ? `${chart.measure.label} by ${chart.xLabel.toLowerCase()}` +
        (chart.seriesDimension
          ? `, one ${chart.type === "line" ? "line" : "bar"} per ${(getDimension(chart.seriesDimension)?.label ?? chart.seriesDimension).toLowerCase()}` +
            (chart.foldedSeries > 0 ? " (the 10 largest, the rest as Other)" : "")
          : "") +
        (chart.foldedCategories > 0 ? `; ${chart.foldedCategories} smaller categories summed as Other` : "")
      : "Chart";

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
            onChange={(e) => onChange({ chartMeasure: e.target.value })}
            options={measures.map((m) => ({ value: m, label: measureFor(m, op)?.label ?? m }))}
          />
        </div>
      </div>
      <figure aria-labelledby={`${id}-caption`} className="m-0 flex flex-col gap-2" data-testid="results-chart">
        <figcaption id={`${id}-caption`} className="text-sm font-medium text-slate-900">
          {caption}
        </figcaption>
        <div className={`h-72 rounded-md border border-slate-300 bg-white p-2 transition-opacity sm:h-80 ${dimmed ? "opacity-50" : ""}`}>
          {!chart ? (
            placeholder
          ) : "none" in chart ? (
            <EmptyState title="No chart">{chart.none}</EmptyState>
          ) : (
            <ResultsChart chart={chart} />
          )}
        </div>
        {chart && !("none" in chart) ? (
          <ul aria-label="Series" className="flex min-h-6 flex-wrap gap-x-4 gap-y-1 text-sm">
            {chart.series.map((s, i) => (
              <li key={s.key} data-series={s.name} className="flex items-center gap-1.5">
                <span aria-hidden="true" className="inline-block size-3 rounded-sm" style={{ background: seriesColor(i, s.isOther) }} />
                {s.name}
              </li>
            ))}
          </ul>
        ) : (
          <div className="min-h-6" />
        )}
      </figure>
    </div>
  );
}
