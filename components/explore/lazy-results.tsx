"use client";
/**
 * Explore's results, loaded when there are results to show: the virtualized table, the pivot and the
 * chart with its controls are most of the page's code, and a page opens with a form and empty panels. The container
 * asks for them as soon as a report is requested (preloadResults), so they arrive while its answer is
 * fetched; if they are still on their way, the panel keeps its size and says so.
 */
import { Button } from "@/components/ui/button";
import { lazyPart } from "@/components/ui/lazy-part";
import { Spinner } from "@/components/ui/spinner";
import { ChartPlaceholder } from "./chart-placeholder";

const loading = (
  <div className="flex h-[480px] items-center justify-center gap-2 text-sm text-slate-700">
    <Spinner /> Loading the table…
  </div>
);

export const ResultsTable = lazyPart(() => import("./results-table").then((m) => m.ResultsTable), loading);

export const PivotTable = lazyPart(() => import("./pivot-table").then((m) => m.PivotTable), loading);

/** The chart's controls and figure, once there is a view to chart; until their code has come, the placeholder says so. */
export const ChartPanel = lazyPart(
  () => import("./chart-panel").then((m) => m.ChartPanel),
  (props) => (
    <ChartPlaceholder chartKind={props.chartKind}>
      <div className="flex h-full items-center justify-center gap-2 text-sm text-slate-700">
        <Spinner /> Loading the chart…
      </div>
    </ChartPlaceholder>
  ),
);

const disabledSave = <Button disabled>Save report</Button>;
const LazySaveReportButton = lazyPart(() => import("@/components/saved-reports/save-report-button").then((m) => m.SaveReportButton), disabledSave);

/** "Save report": there is something to save once there are results; until then (and until its code has come) the button is drawn disabled. */
export function SaveReportButton({ enabled }: { enabled: boolean }) {
  return enabled ? <LazySaveReportButton page="explore" /> : disabledSave;
}

export function preloadResults(): void {
  ResultsTable.preload();
  PivotTable.preload();
  ChartPanel.preload();
  LazySaveReportButton.preload();
}
