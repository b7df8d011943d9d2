"use client";
import dynamic from "next/dynamic";
import { useId } from "react";
import { describeChart } from "@/lib/charts/caption";
import type { ChartData } from "@/lib/charts/shape";
import { ChartLegend } from "@/components/charts/chart-legend";

const ResultsChart = dynamic(() => import("@/components/explore/results-chart"), {
  ssr: false,
  loading: () => <div className="flex h-[270px] items-center justify-center text-sm text-slate-700">Loading the chart…</div>,
});

/**
 * A chart tile's figure, drawn as Explore and the share page draw it (components/share/shared-chart.tsx):
 * the caption names what is drawn, the legend each series. No border of its own: the tile frames it.
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
      <div className="min-h-[270px] min-w-0">
        <ResultsChart chart={chart} />
      </div>
      <ChartLegend chart={chart} small />
    </figure>
  );
}
