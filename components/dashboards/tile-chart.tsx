"use client";
import { useId } from "react";
import { describeChart } from "@/lib/report/charts/caption";
import { hasValues } from "@/lib/report/charts/drawing";
import type { ChartData } from "@/lib/report/charts/shape";
import { ChartLegend } from "@/components/report/charts/chart-legend";
import ResultsChart from "@/components/report/charts/results-chart";

/**
 * A chart tile's figure: the caption names what is drawn, the legend each series, and the drawing is
 * Explore's own chart, so a tile looks, reads and hovers as the report it came from. No border of its
 * own: the tile frames it. The page loads this module lazily (lazy-tile-chart.tsx), and with it the
 * chart library.
 */
export function TileChart({ chart }: { chart: ChartData }) {
  const id = useId();
  const caption = describeChart(chart);
  return (
    <figure aria-labelledby={`${id}-caption`} className="m-0 flex min-w-0 flex-col gap-2">
      <figcaption id={`${id}-caption`} className="flex flex-col gap-0.5">
        <span className="text-sm font-medium text-slate-900">{caption.title}</span>
        {caption.notes.length > 0 ? <span className="text-xs text-slate-700">{caption.notes.join(" ")}</span> : null}
      </figcaption>
      {hasValues(chart) ? (
        <>
          <div className="min-w-0">
            <ResultsChart chart={chart} />
          </div>
          <ChartLegend chart={chart} small />
        </>
      ) : (
        <p className="rounded-md border border-dashed border-slate-300 p-4 text-center text-sm text-slate-700">No data for this range.</p>
      )}
    </figure>
  );
}
