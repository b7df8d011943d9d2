"use client";
import { lazyPart } from "@/components/ui/lazy-part";

// The dashboard page's parts that come after its first load (README, "Lazy loading").

/**
 * The tiles' bodies and the fetch panel, display only (the arranging buttons appear in edit mode),
 * come with the first answer: asked for (preload) as soon as there are settings, while that answer
 * is on its way. A dashboard the server drew shows them from its HTML and hydrates them when their
 * code has come, after the page's.
 */
export const DashboardGrid = lazyPart(
  () => import("./dashboard-grid").then((m) => m.DashboardGrid),
  <p role="status" className="min-h-24 text-sm text-slate-700">
    Loading the tiles…
  </p>,
);
export const FetchPanel = lazyPart(() => import("./fetch-panel").then((m) => m.FetchPanel), null);

/** A table, pivot or retention tile's CSV download, and the dashboard's workbook (with the writers), come once tiles are drawn. */
export const TileDownload = lazyPart(() => import("./tile-download").then((m) => m.DashboardTileDownload), null);
export const WorkbookDownload = lazyPart(() => import("./tile-download").then((m) => m.DashboardWorkbookDownload), null);

/** A tile's editor, loaded when a tile is first edited (the server never draws it). */
export const TileEditor = lazyPart(
  () => import("./tile-editor").then((m) => m.TileEditor),
  <div className="min-h-64 rounded-md border border-blue-300 bg-blue-50 p-3 text-sm text-slate-700">Loading the tile editor…</div>,
);
