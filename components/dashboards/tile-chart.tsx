"use client";
import { useId } from "react";
import { describeChart } from "@/lib/charts/caption";
import type { ChartData } from "@/lib/charts/shape";
import { ChartLegend } from "@/components/charts/chart-legend";
import { useBoxWidth } from "@/components/charts/use-box-width";

import { LiteChart } from "@/components/charts/lite-chart";

/**
 * A chart tile's figure: the caption names what is drawn, the legend each series, as Explore's. The
 * chart itself is plain SVG (components/charts/lite-chart.tsx), drawn in the frame the tile's answer
 * arrives in: a dashboard paints many tiles at once, and loading and first-rendering the chart library
 * cost ~330 ms here (docs/benchmarks.md). No border of its own: the tile frames it.
 */
export function TileChart({ chart }: { chart: ChartData }) {
  const id = useId();
  const [boxRef, boxWidth] = useBoxWidth<HTMLDivElement>();
  const caption = describeChart(chart);
  return (
    <figure aria-labelledby={`${id}-caption`} className="m-0 flex min-w-0 flex-col gap-2">
      <figcaption id={`${id}-caption`} className="flex flex-col gap-0.5">
        <span className="text-sm font-medium text-slate-900">{caption.title}</span>
        {caption.notes.length > 0 ? <span className="text-xs text-slate-700">{caption.notes.join(" ")}</span> : null}
      </figcaption>
      <div ref={boxRef} className="min-w-0">
        <LiteChart chart={chart} {...(boxWidth ? { width: boxWidth } : {})} />
      </div>
      <ChartLegend chart={chart} small />
    </figure>
  );
}
