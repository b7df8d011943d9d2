"use client";
/**
 * The client parts of a shared or saved report, each loaded only when the page draws it: one share
 * page serves reports, cohort grids, dashboards and Monitors, and a visitor needs the code of one.
 * Each is rendered on the server as before (but the chart's drawing); only its script waits to be
 * asked for.
 */
import dynamic from "next/dynamic";

/** The chart's drawing (recharts): after the page, in the box the server drew. */
export const SharedChartDrawing = dynamic(() => import("@/components/charts/results-chart"), {
  ssr: false,
  loading: () => <div data-pdf-chart="loading" className="flex h-[270px] items-center justify-center text-sm text-slate-700">Loading the chart…</div>,
});
export const SharedTable = dynamic(() => import("./shared-table").then((m) => m.SharedTable));
export const SharedGridDownloads = dynamic(() => import("./shared-grid-downloads").then((m) => m.SharedGridDownloads));
export const PendingRefresh = dynamic(() => import("./pending-refresh").then((m) => m.PendingRefresh));
