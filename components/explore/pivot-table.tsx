"use client";
import { useCallback, useId, useMemo, useState } from "react";
import { measureFor } from "@/lib/report/metrics/kpis";
import { buildPivot, isPivotError, TOTAL_LABEL, type PivotCell, type PivotModel } from "@/lib/report/table/pivot";
import { TOTALS_LABEL } from "@/lib/report/table/table";
import type { ReportView } from "@/lib/report/periods/view";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/empty-state";
import { Field } from "@/components/ui/field";
import { Select } from "@/components/ui/select";

/** Widths of the row-dimension columns, in px: they stay in place, so each sits at the sum of those before it. */
const dimWidth = (id: string) => (id === "date" ? 168 : 160);

const NUMBER = "px-3 py-2 text-right tabular-nums whitespace-nowrap";
const HEAD = "border-b border-slate-300 bg-slate-100 px-3 py-2 font-medium whitespace-nowrap";
/** The Total column: set off by a rule and a tint (backgrounds are given per row). */
const TOTAL_COLUMN = "border-l-2 border-l-slate-300";

function ValueCell({ cell, className }: { cell: PivotCell; className?: string }) {
  return (
    <td className={cn(NUMBER, cell.empty && "text-slate-600 italic", className)} title={cell.note} data-empty={cell.empty || undefined}>
      {cell.empty ? (
        <>
          <span aria-hidden="true">{cell.text}</span>
          <span className="sr-only">no records</span>
        </>
      ) : (
        cell.text
      )}
    </td>
  );
}

function caption(model: PivotModel, label: string, rate: boolean): string {
  const rows = model.rowDimensions.map((d) => d.label).join(" and ");
  return [
    `${label}: ${model.measure.label} by ${rows} (rows) and ${model.columnDimension.label} (columns), with a total for each row and column.`,
    `Every cell and total is the measure on the summed records in it${rate ? " (a rate is a ratio of sums, never an average of rates)" : ""}; a cell with no records is marked “no records”.`,
    ...model.notes,
  ].join(" ");
}

/**
 * The pivot layout of Explore: the last grouped dimension as columns, for one measure, with row and
 * column totals. The row dimensions and the header stay in view while the grid scrolls.
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
  const pivot = useMemo(() => buildPivot(view, measureId, { today }), [view, measureId, today]);
  const options = useMemo(
    () =>
      measures.flatMap((m) => {
        const measure = measureFor(m, view.op);
        return measure ? [{ value: m, label: measure.label }] : [];
      }),
    [measures, view.op],
  );

  // Whether the grid is wider than its box: then the hint to scroll sideways shows at any width.
  const [overflows, setOverflows] = useState(false);
  const observe = useCallback((el: HTMLDivElement | null) => {
    if (!el || typeof ResizeObserver === "undefined") return;
    const check = () => setOverflows(el.scrollWidth > el.clientWidth + 1);
    const ro = new ResizeObserver(check);
    ro.observe(el);
    if (el.firstElementChild) ro.observe(el.firstElementChild);
    return () => ro.disconnect();
  }, []);

  const model = isPivotError(pivot) ? null : pivot;
  const offsets = model ? model.rowDimensions.map((_, i) => model.rowDimensions.slice(0, i).reduce((s, d) => s + dimWidth(d.id), 0)) : [];
  // Only the first row dimension stays in place on a narrow screen; all of them from `sm` up.
  const stick = (i: number) => (i === 0 ? "sticky" : "sm:sticky");
  const dimStyle = (i: number) => {
    const d = model?.rowDimensions[i];
    const w = d ? dimWidth(d.id) : 160;
    return { left: offsets[i] ?? 0, width: w, minWidth: w, maxWidth: w };
  };
  const lastDim = (model?.rowDimensions.length ?? 1) - 1;

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
      {!model ? (
        <div className="h-[480px]">
          <EmptyState title="No pivot">{isPivotError(pivot) ? pivot.error : null}</EmptyState>
        </div>
      ) : model.rows.length === 0 ? (
        <div className="h-[480px]">
          <EmptyState title="No records">Nothing in this range matches these filters. Widen the range or remove a filter.</EmptyState>
        </div>
      ) : (
        <>
          {model.notes.length > 0 ? (
            // The caption says the same to assistive tech.
            <p aria-hidden="true" className="text-sm text-slate-700">
              {model.notes.join(" ")}
            </p>
          ) : null}
          <p id={`${id}-hint`} className={cn("text-xs text-slate-700", !overflows && "sm:hidden")}>
            Scroll sideways to see every column; the row labels stay in place.
          </p>
          <div
            ref={observe}
            role="region"
            aria-label={`${label}: pivot (scrollable)`}
            aria-describedby={`${id}-hint`}
            tabIndex={0}
            className={cn("relative max-h-[480px] overflow-auto rounded-md border border-slate-300 bg-white transition-opacity", dimmed && "opacity-50")}
            data-testid="pivot-table"
          >
            <table className="w-max min-w-full border-separate border-spacing-0 text-sm" aria-busy={dimmed}>
              <caption className="sr-only">{caption(model, label, Boolean(measureFor(model.measure.id, view.op)?.denominator))}</caption>
              <thead className="sticky top-0 z-20">
                <tr>
                  {model.rowDimensions.map((d, i) => (
                    <th
                      key={d.id}
                      scope="col"
                      rowSpan={2}
                      className={cn(HEAD, stick(i), "z-30 truncate text-left align-bottom", i === lastDim && "border-r border-r-slate-300")}
                      style={dimStyle(i)}
                    >
                      {d.label}
                    </th>
                  ))}
                  <th scope="colgroup" colSpan={model.columns.length} className={cn(HEAD, "text-left text-slate-700")}>
                    {model.columnDimension.label}
                  </th>
                  <th scope="col" rowSpan={2} className={cn(HEAD, TOTAL_COLUMN, "text-right align-bottom")}>
                    {TOTAL_LABEL}
                  </th>
                </tr>
                <tr>
                  {model.columns.map((c) => (
                    <th
                      key={c.key}
                      scope="col"
                      className={cn(HEAD, "text-right", c.isOther && "italic", c.title && "cursor-help underline decoration-slate-400 decoration-dotted underline-offset-4")}
                      title={c.title}
                    >
                      {c.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {model.rows.map((r, ri) => {
                  const bg = ri % 2 === 1 ? "bg-slate-50" : "bg-white";
                  return (
                    <tr key={r.key} className={bg}>
                      {r.dims.map((d, i) => (
                        <th
                          key={i}
                          scope="row"
                          className={cn(
                            bg,
                            stick(i),
                            "z-10 truncate border-b border-b-slate-100 px-3 py-2 text-left font-medium",
                            i === lastDim && "border-r border-r-slate-300",
                            d.title && "cursor-help",
                          )}
                          style={dimStyle(i)}
                          title={d.title ?? d.text}
                        >
                          {d.text}
                        </th>
                      ))}
                      {r.cells.map((c, ci) => (
                        <ValueCell key={model.columns[ci]?.key ?? ci} cell={c} className="border-b border-slate-100" />
                      ))}
                      <ValueCell cell={r.total} className={cn("border-b border-b-slate-200 bg-slate-100 font-semibold", TOTAL_COLUMN)} />
                    </tr>
                  );
                })}
              </tbody>
              <tfoot className="sticky bottom-0 z-20 font-semibold">
                <tr>
                  <th
                    scope="row"
                    colSpan={model.rowDimensions.length}
                    className="sticky left-0 z-30 border-t-2 border-r border-t-slate-400 border-r-slate-300 bg-slate-100 px-3 py-2 text-left"
                  >
                    {TOTALS_LABEL}
                  </th>
                  {model.columnTotals.map((c, ci) => (
                    <ValueCell key={model.columns[ci]?.key ?? ci} cell={c} className="border-t-2 border-slate-400 bg-slate-100" />
                  ))}
                  <ValueCell cell={model.grandTotal} className={cn(TOTAL_COLUMN, "border-t-2 border-t-slate-400 bg-slate-200")} />
                </tr>
              </tfoot>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
