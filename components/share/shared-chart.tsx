"use client";
import dynamic from "next/dynamic";
import type { ChartData } from "@/lib/charts/shape";
import { seriesColor } from "@/components/explore/series-colors";

const ResultsChart = dynamic(() => import("@/components/explore/results-chart"), {
  ssr: false,
  loading: () => <div className="flex h-full items-center justify-center text-sm text-slate-700">Loading the chart…</div>,
});

/** The shared report's chart: data computed on the server, drawn here; a legend names each series. */
export function SharedChart({ chart }: { chart: ChartData }) {
  return (
    <figure aria-label={`Chart of ${chart.measure.label} by ${chart.xLabel}`} className="rounded border border-slate-200 bg-white p-3">
      <div className="h-64 sm:h-80">
        <ResultsChart chart={chart} />
      </div>
      <figcaption className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-700">
        {chart.series.map((s, i) => (
          <span key={s.key} className="inline-flex items-center gap-1" data-series={s.name}>
            <span aria-hidden className="inline-block h-2 w-3 rounded-sm" style={{ background: seriesColor(i, s.isOther) }} />
            {s.name}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
