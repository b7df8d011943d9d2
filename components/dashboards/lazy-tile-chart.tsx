"use client";
import { lazy, Suspense, type ComponentProps } from "react";

/**
 * A chart tile's figure, its script (and the chart library with it) loaded only where a chart is
 * drawn: a shared report, a Monitor or a dashboard without a chart tile never loads it. The dashboard
 * page asks for it as soon as it has a chart tile (preloadTileChart), while the tile's answer is
 * still on its way. A chart the server drew stays as its HTML drew it until its code has come, then
 * hydrates: React's own lazy, where next/dynamic preloaded the figure's code with the page's (more on
 * the first load) and added its own. The placeholder is the figure's own box, the drawing's as
 * ResultsChart holds it before it has measured its width.
 */
const LazyTileChart = lazy(() => import("./tile-chart").then((m) => ({ default: m.TileChart })));

export function TileChart(props: ComponentProps<typeof LazyTileChart>) {
  return (
    <Suspense
      fallback={
        <div className="flex min-w-0 flex-col gap-2" aria-hidden="true" data-pdf-chart="loading">
          <div className="h-5" />
          <div className="h-[270px] w-full" />
          <div className="min-h-6" />
        </div>
      }
    >
      <LazyTileChart {...props} />
    </Suspense>
  );
}

export function preloadTileChart(): void {
  void import("./tile-chart");
}
