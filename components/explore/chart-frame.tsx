import type { ReactNode } from "react";

/** The figure's frame: the caption, the box the chart (or what stands for it) sits in, the legend's row. */
export function ChartFrame({ id, title, notes = [], drawn, dimmed, legend = null, children }: { id: string; title: string; notes?: readonly string[]; drawn: boolean; dimmed: boolean; legend?: ReactNode; children: ReactNode }) {
  return (
    <figure aria-labelledby={`${id}-caption`} className="m-0 flex flex-col gap-2" data-testid="results-chart">
      <figcaption id={`${id}-caption`} className="flex flex-col gap-0.5">
        <span className="text-sm font-medium text-slate-900">{title}</span>
        {notes.length > 0 ? <span className="text-xs text-slate-700">{notes.join(" ")}</span> : null}
      </figcaption>
      <div className={`rounded-md border border-slate-300 bg-white p-2 transition-opacity ${drawn ? "min-h-72 sm:min-h-80" : "h-72 sm:h-80"} ${dimmed ? "opacity-50" : ""}`}>{children}</div>
      {legend ?? <div className="min-h-6" />}
    </figure>
  );
}
