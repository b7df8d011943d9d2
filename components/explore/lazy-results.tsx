"use client";
/**
 * Explore's results, loaded when there are results to show: the virtualized table, the pivot and the
 * chart are most of the page's code, and a page opens with a form and empty panels. The container
 * asks for them as soon as a report is requested (preloadResults), so they arrive while its answer is
 * fetched; if they are still on their way, the panel keeps its size and says so.
 */
import dynamic from "next/dynamic";
import { Spinner } from "@/components/ui/spinner";
import { loadChartFigure } from "./chart-panel";

function Loading() {
  return (
    <div className="flex h-[480px] items-center justify-center gap-2 text-sm text-slate-700">
      <Spinner /> Loading the table…
    </div>
  );
}

// Each loader names its module in place: next/dynamic reads it there to preload what the server drew.
export const ResultsTable = dynamic(() => import("./results-table").then((m) => m.ResultsTable), { loading: Loading });
export const PivotTable = dynamic(() => import("./pivot-table").then((m) => m.PivotTable), { loading: Loading });

export function preloadResults(): void {
  void import("./results-table");
  void import("./pivot-table");
  void loadChartFigure();
}
