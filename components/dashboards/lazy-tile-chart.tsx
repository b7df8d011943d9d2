"use client";
import { lazyPart } from "@/components/ui/lazy-part";

/**
 * A chart tile's figure, its script (and the chart library with it) loaded only where a chart is
 * drawn: a shared report, a Monitor or a dashboard without a chart tile never loads it. The dashboard
 * page asks for it as soon as it has a chart tile (preloadTileChart), while the tile's answer is
 * still on its way. A chart the server drew stays as its HTML drew it until its code has come, then
 * hydrates. The placeholder is the figure's own box, the drawing's as ResultsChart holds it before it
 * has measured its width.
 */
export const TileChart = lazyPart(
  () => import("./tile-chart").then((m) => m.TileChart),
  <div className="flex min-w-0 flex-col gap-2" aria-hidden="true" data-pdf-chart="loading">
    <div className="h-5" />
    <div className="h-[270px] w-full" />
    <div className="min-h-6" />
  </div>,
);

export const preloadTileChart = TileChart.preload;
