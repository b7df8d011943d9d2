"use client";
import dynamic from "next/dynamic";

/**
 * A chart tile's figure, its script loaded only where a chart is drawn: a shared report, a Monitor or
 * a dashboard without a chart tile never loads it. A page drawing a chart on the server preloads it
 * with the HTML; the dashboard page asks for it as soon as it has a chart tile (preloadTileChart),
 * while the tile's answer is still on its way. The placeholder is the figure's own box.
 */
export const TileChart = dynamic(() => import("./tile-chart").then((m) => m.TileChart), {
  loading: () => (
    <div className="flex min-w-0 flex-col gap-2" aria-hidden="true">
      <div className="h-5" />
      <div className="h-[260px] w-full" />
      <div className="min-h-6" />
    </div>
  ),
});

export function preloadTileChart(): void {
  void import("./tile-chart");
}
