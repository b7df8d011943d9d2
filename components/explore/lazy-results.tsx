"use client";
/**
 * Explore's results, loaded when there are results to show: the virtualized table, the pivot and the
 * chart with its controls are most of the page's code, and a page opens with a form and empty panels. The container
 * asks for them as soon as a report is requested (preloadResults), so they arrive while its answer is
 * fetched; if they are still on their way, the panel keeps its size and says so.
 */
import { lazy, Suspense, type ComponentProps } from "react";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/spinner";
import { ChartPlaceholder } from "./chart-placeholder";

function Loading() {
  return (
    <div className="flex h-[480px] items-center justify-center gap-2 text-sm text-slate-700">
      <Spinner /> Loading the table…
    </div>
  );
}

// React's own lazy, not next/dynamic: the server never
// draws results (the answer is fetched in the browser), so there is nothing to preload with the page.
const LazyResultsTable = lazy(() => import("./results-table").then((m) => ({ default: m.ResultsTable })));
const LazyPivotTable = lazy(() => import("./pivot-table").then((m) => ({ default: m.PivotTable })));
const loadChartPanel = () => import("./chart-panel");
const LazyChartPanel = lazy(() => loadChartPanel().then((m) => ({ default: m.ChartPanel })));
const loadSaveButton = () => import("@/components/saved-reports/save-report-button");
const LazySaveReportButton = lazy(() => loadSaveButton().then((m) => ({ default: m.SaveReportButton })));

export function ResultsTable(props: ComponentProps<typeof LazyResultsTable>) {
  return (
    <Suspense fallback={<Loading />}>
      <LazyResultsTable {...props} />
    </Suspense>
  );
}

export function PivotTable(props: ComponentProps<typeof LazyPivotTable>) {
  return (
    <Suspense fallback={<Loading />}>
      <LazyPivotTable {...props} />
    </Suspense>
  );
}

/** The chart's controls and figure, once there is a view to chart; until their code has come, the placeholder says so. */
export function ChartPanel(props: ComponentProps<typeof LazyChartPanel>) {
  return (
    <Suspense
      fallback={
        <ChartPlaceholder chartKind={props.chartKind}>
          <div className="flex h-full items-center justify-center gap-2 text-sm text-slate-700">
            <Spinner /> Loading the chart…
          </div>
        </ChartPlaceholder>
      }
    >
      <LazyChartPanel {...props} />
    </Suspense>
  );
}

/** "Save report": there is something to save once there are results; until then (and until its code has come) the button is drawn disabled. */
export function SaveReportButton({ enabled }: { enabled: boolean }) {
  const disabled = <Button disabled>Save report</Button>;
  return enabled ? (
    <Suspense fallback={disabled}>
      <LazySaveReportButton page="explore" />
    </Suspense>
  ) : (
    disabled
  );
}

export function preloadResults(): void {
  void import("./results-table");
  void import("./pivot-table");
  void loadChartPanel();
  void loadSaveButton();
}
