import type { ChartData } from "@/lib/report/charts/shape";
import { chartSeriesColor } from "./series-colors";

/**
 * Every series by name, with its colour; a dashed swatch for a compared series, "(right axis)" for the
 * second measure. A wrapping list, so it stays whole on a phone.
 */
export function ChartLegend({ chart, small = false }: { chart: ChartData; small?: boolean }) {
  return (
    <ul aria-label="Series" className={`flex min-h-6 flex-wrap gap-x-4 gap-y-1 ${small ? "text-xs text-slate-700" : "text-sm"}`}>
      {chart.series.map((s) => {
        const color = chartSeriesColor(s);
        return (
          <li key={s.key} data-series={s.name} data-role={s.role} className="flex items-center gap-1.5">
            <span
              aria-hidden="true"
              className={`inline-block size-3 rounded-sm ${s.dashed ? "border-2 border-dashed" : ""}`}
              style={s.dashed ? { borderColor: color } : { background: color }}
            />
            {s.name}
            {s.axis === "right" ? <span className="text-slate-700">(right axis)</span> : null}
          </li>
        );
      })}
    </ul>
  );
}
