"use client";
/**
 * The client parts of a shared or saved report, each loaded only when the page draws it: one share
 * page serves reports, cohort grids, dashboards and Monitors, and a visitor needs the code of one.
 * Each is rendered on the server; only its script waits to be asked for.
 */
import { lazyPart } from "@/components/ui/lazy-part";

/** The chart's drawing (recharts), drawn by the server as a dashboard's chart tile is; its script comes after the page's. */
export const SharedChartDrawing = lazyPart(
  () => import("@/components/report/charts/results-chart").then((m) => m.default),
  <div data-pdf-chart="loading" className="flex h-[270px] items-center justify-center text-sm text-slate-700">Loading the chart…</div>,
);
export const SharedTable = lazyPart(() => import("./shared-table").then((m) => m.SharedTable), null);
export const SharedGridDownloads = lazyPart(() => import("./shared-grid-downloads").then((m) => m.SharedGridDownloads), null);
export const PendingRefresh = lazyPart(() => import("./pending-refresh").then((m) => m.PendingRefresh), null);
