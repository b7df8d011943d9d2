"use client";
import { useId, useMemo } from "react";
import { describeChart } from "@/lib/report/charts/caption";
import { buildChartData, chooseChart } from "@/lib/report/charts/shape";
import type { Measure } from "@/lib/report/metrics/kpis";
import type { ReportView } from "@/lib/report/periods/view";
import type { ChartKind } from "@/lib/report/state/explore";
import { ChartLegend } from "@/components/report/charts/chart-legend";
import { EmptyState } from "@/components/ui/empty-state";
import { lazyPart } from "@/components/ui/lazy-part";
import { Spinner } from "@/components/ui/spinner";
import { ChartFrame } from "./chart-frame";

// The figure is drawn only in the browser (it needs an answer, fetched there), so its code comes
// after the page's, as next/dynamic's `ssr: false` would, without next/dynamic's code on the page.
const ResultsChart = lazyPart(
  () => import("@/components/report/charts/results-chart").then((m) => m.default),
  <div className="flex h-[270px] items-center justify-center gap-2 text-sm text-slate-700">
    <Spinner /> Loading the chart…
  </div>,
);

/** The chart of a report's view: its data, the caption naming what is drawn, the drawing and the legend. */
export function ChartFigure({
  view,
  measure,
  measure2,
  chartKind,
  dimmed,
  today,
}: {
  view: ReportView;
  measure: Measure;
  measure2: Measure | null;
  chartKind: ChartKind;
  dimmed: boolean;
  /** Today in the reporting time zone: points of a rate still maturing are marked. */
  today: string;
}) {
  const id = useId();
  const chart = useMemo(() => {
    const plan = chooseChart(view.groupBy, chartKind);
    if (plan.type === "none") return { none: plan.reason };
    if (view.rows.length === 0) return { none: "No records in this range with these filters." };
    return buildChartData(view, plan, measure, { measure2, today });
  }, [view, measure, measure2, chartKind, today]);

  if ("none" in chart) {
    return (
      <ChartFrame id={id} title="Chart" drawn={false} dimmed={dimmed}>
        <EmptyState title="No chart">{chart.none}</EmptyState>
      </ChartFrame>
    );
  }
  const caption = describeChart(chart);
  return (
    <ChartFrame id={id} title={caption.title} notes={caption.notes} drawn dimmed={dimmed} legend={<ChartLegend chart={chart} />}>
      <ResultsChart chart={chart} />
    </ChartFrame>
  );
}
