import { useId, type ReactNode } from "react";
import { CHART_LABELS, type ChartKind } from "@/lib/report/state/explore";
import { Select } from "@/components/ui/select";
import { ChartFrame } from "./chart-frame";

/**
 * The chart panel before there is anything to chart (not run, running, failed), or while its code
 * comes: the controls, disabled (there is nothing to plot yet; the kind asked for is shown), and the
 * box saying why, at the size the chart will have. The working panel (./chart-panel.tsx) comes with
 * the results' code.
 */
export function ChartPlaceholder({ chartKind, children }: { chartKind: ChartKind; children: ReactNode }) {
  const controls: [string, string, string][] = [
    ["Chart", "w-36", CHART_LABELS[chartKind]],
    ["Plot", "w-60", "—"],
    ["and (right axis)", "w-60", "None"],
  ];
  const id = useId();
  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-end gap-3">
        {controls.map(([label, width, shown]) => (
          <label key={label} className="flex flex-col gap-1 text-xs text-slate-700">
            {label}
            <Select className={width} disabled value={shown} onChange={() => undefined} options={[{ value: shown, label: shown }]} />
          </label>
        ))}
      </div>
      <ChartFrame id={id} title="Chart" drawn={false} dimmed={false}>
        {children}
      </ChartFrame>
    </div>
  );
}
