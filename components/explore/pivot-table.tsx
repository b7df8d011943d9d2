"use client";
import { useId, useMemo } from "react";
import { measureFor } from "@/lib/report/metrics/kpis";
import { buildPivot, isPivotError } from "@/lib/report/table/pivot";
import type { ReportView } from "@/lib/report/periods/view";
import { PivotGrid } from "@/components/report/pivot-grid";
import { useOverflows } from "@/components/report/use-overflows";
import { EmptyState } from "@/components/ui/empty-state";
import { Field } from "@/components/ui/field";
import { Select } from "@/components/ui/select";

/**
 * Explore's pivot layout: the measure to pivot, chosen here, and the report's pivot for it, drawn by
 * the one pivot renderer (a dashboard's pivot tile draws with it too).
 */
export function PivotTable({
  view,
  measureId,
  measures,
  onMeasure,
  dimmed,
  label,
  today,
}: {
  view: ReportView;
  measureId: string;
  /** Metric names and KPI ids the user can choose, in the user's order. */
  measures: readonly string[];
  onMeasure: (id: string) => void;
  /** While newer data loads, the shown values are older: say so visually and to assistive tech. */
  dimmed: boolean;
  label: string;
  /** Today in the reporting time zone: cells of a rate still maturing are marked. */
  today: string;
}) {
  const id = useId();
  const [box, overflows] = useOverflows();
  const pivot = useMemo(() => buildPivot(view, measureId, { today }), [view, measureId, today]);
  const options = useMemo(
    () =>
      measures.flatMap((m) => {
        const measure = measureFor(m, view.op);
        return measure ? [{ value: m, label: measure.label }] : [];
      }),
    [measures, view.op],
  );

  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-end gap-3">
        <Field id={`${id}-measure`} label="Pivot measure" className="w-60">
          <Select
            id={`${id}-measure`}
            value={measureId}
            disabled={options.length === 0}
            onChange={(e) => onMeasure(e.target.value)}
            options={options.some((o) => o.value === measureId) ? options : [{ value: measureId, label: measureFor(measureId, view.op)?.label ?? measureId }, ...options]}
          />
        </Field>
      </div>
      {isPivotError(pivot) ? (
        <div className="h-[480px]">
          <EmptyState title="No pivot">{pivot.error}</EmptyState>
        </div>
      ) : pivot.rows.length === 0 ? (
        <div className="h-[480px]">
          <EmptyState title="No records">Nothing in this range matches these filters. Widen the range or remove a filter.</EmptyState>
        </div>
      ) : (
        <PivotGrid model={pivot} label={label} dimmed={dimmed} boxRef={box} overflows={overflows} />
      )}
    </div>
  );
}
