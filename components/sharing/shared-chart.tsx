import { describeChart } from "@/lib/report/charts/caption";
import type { ChartData } from "@/lib/report/charts/shape";
import { ChartLegend } from "@/components/report/charts/chart-legend";
import { SharedChartDrawing } from "./lazy";

/**
 * The shared report's chart, drawn as Explore draws it. The data is computed on the server
 * (lib/features/sharing/view.ts) by the same buildChartData, from the share's records made into a day-grain
 * ReportView with buildReportView (a share carries no comparison); the caption names what is drawn
 * and the legend each series. Caption and legend are drawn on the server; only the drawing is the
 * browser's (recharts, loaded after the page).
 */
export function SharedChart({ chart }: { chart: ChartData }) {
  // One chart on a shared report's page.
  const id = "shared-chart";
  const caption = describeChart(chart);
  return (
    <figure aria-labelledby={`${id}-caption`} className="m-0 flex flex-col gap-2 rounded border border-slate-200 bg-white p-3">
      <figcaption id={`${id}-caption`} className="flex flex-col gap-0.5">
        <span className="text-sm font-medium text-slate-900">{caption.title}</span>
        {caption.notes.length > 0 ? <span className="text-xs text-slate-700">{caption.notes.join(" ")}</span> : null}
      </figcaption>
      <div className="min-h-64 sm:min-h-80">
        <SharedChartDrawing chart={chart} />
      </div>
      <ChartLegend chart={chart} small />
    </figure>
  );
}
