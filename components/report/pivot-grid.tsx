import { useId, type Ref } from "react";
import type { PivotCell, PivotModel } from "@/lib/report/table/pivot";
import { TOTAL_LABEL, TOTALS_LABEL } from "@/lib/report/metrics/labels";
import { cn } from "@/components/ui/cn";

/** Widths of the row-dimension columns, in px: they stay in place, so each sits at the sum of those before it. */
const dimWidth = (id: string) => (id === "date" ? 168 : 160);

/** The Total column: set off by a rule and a tint (backgrounds are given per row). */
const TOTAL_COLUMN = "border-l-2 border-l-slate-300";

function ValueCell({ cell, className }: { cell: PivotCell; className: string }) {
  return (
    <td className={cn("text-right whitespace-nowrap tabular-nums", cell.empty && "text-slate-700 italic", className)} title={cell.note} data-empty={cell.empty || undefined}>
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

/** What the pivot holds, for assistive tech: its measure, its rows and columns, how a cell is summed, its notes. */
function caption(model: PivotModel, label: string): string {
  const rows = model.rowDimensions.map((d) => d.label).join(" and ");
  const rate = model.measure.format === "percent";
  return [
    `${label}: ${model.measure.label} by ${rows} (rows) and ${model.columnDimension.label} (columns), with a total for each row and column.`,
    `Every cell and total is the measure on the summed records in it${rate ? " (a rate is a ratio of sums, never an average of rates)" : ""}; a cell with no records is marked “no records”.`,
    ...model.notes,
  ].join(" ");
}

/**
 * The one pivot: a report's last grouped dimension as columns for one measure, with row and column
 * totals, drawn the same in Explore and in a dashboard's tile (on the dashboard, its shared page and
 * its PDF). One header row, as its CSV's header: the caption and the line above name the column
 * dimension. The row labels and the header stay in view while the grid scrolls; printed, nothing
 * scrolls or sticks. A tile is `compact`: denser cells, a shorter box. No state of its own, so a
 * server page draws it with no script (a dashboard's tiles); a caller that measures the box says
 * whether it overflows.
 */
export function PivotGrid({
  model,
  label,
  dimmed = false,
  compact = false,
  boxRef,
  overflows = false,
}: {
  model: PivotModel;
  /** What the grid is of (the report's or the tile's title): names its scrolling region and opens its caption. */
  label: string;
  /** While newer data loads, the shown values are older: say so visually and to assistive tech. */
  dimmed?: boolean;
  compact?: boolean;
  /** The scrolling box, for a caller that measures it (useOverflows). */
  boxRef?: Ref<HTMLDivElement>;
  /** The grid is wider than its box: the hint to scroll sideways shows at any width (on a phone, always). */
  overflows?: boolean;
}) {
  const hintId = `${useId()}-hint`;
  const pad = compact ? "px-2 py-1.5" : "px-3 py-2";
  const head = cn("border-b border-slate-300 bg-slate-100 font-medium whitespace-nowrap", pad);
  const offsets = model.rowDimensions.map((_, i) => model.rowDimensions.slice(0, i).reduce((s, d) => s + dimWidth(d.id), 0));
  // Only the first row dimension stays in place on a narrow screen; all of them from `sm` up.
  const stick = (i: number) => cn(i === 0 ? "sticky" : "sm:sticky", "print:static");
  const dimStyle = (i: number) => {
    const d = model.rowDimensions[i];
    const w = d ? dimWidth(d.id) : 160;
    return { left: offsets[i] ?? 0, width: w, minWidth: w, maxWidth: w };
  };
  const lastDim = model.rowDimensions.length - 1;
  const summary = `${model.measure.label} by ${model.rowDimensions.map((d) => d.label).join(" and ")} (rows) and ${model.columnDimension.label} (columns).`;

  return (
    <div className="flex flex-col gap-1">
      {/* The caption says the same to assistive tech. */}
      <p aria-hidden="true" className={cn("text-slate-700", compact ? "text-xs" : "text-sm")}>
        {[summary, ...model.notes].join(" ")}
      </p>
      <p id={hintId} className={cn("text-xs text-slate-700 print:hidden", !overflows && "sm:hidden")}>
        Scroll sideways to see every column; the row labels stay in place.
      </p>
      <div
        ref={boxRef}
        role="region"
        aria-label={`${label}: pivot (scrollable)`}
        aria-describedby={hintId}
        tabIndex={0}
        className={cn(
          "relative overflow-auto rounded-md border border-slate-300 bg-white transition-opacity print:max-h-none print:overflow-visible",
          compact ? "max-h-[28rem]" : "max-h-[480px]",
          dimmed && "opacity-50",
        )}
        data-testid="pivot-table"
      >
        <table className="w-max min-w-full border-separate border-spacing-0 text-sm" aria-busy={dimmed}>
          <caption className="sr-only">{caption(model, label)}</caption>
          <thead className="sticky top-0 z-20 print:static">
            <tr>
              {model.rowDimensions.map((d, i) => (
                <th key={d.id} scope="col" className={cn(head, stick(i), "z-30 truncate text-left", i === lastDim && "border-r border-r-slate-300")} style={dimStyle(i)}>
                  {d.label}
                </th>
              ))}
              {model.columns.map((c) => (
                <th
                  key={c.key}
                  scope="col"
                  className={cn(head, "text-right", c.isOther && "italic", c.title && "cursor-help underline decoration-slate-400 decoration-dotted underline-offset-4")}
                  title={c.title}
                >
                  {c.label}
                </th>
              ))}
              <th scope="col" className={cn(head, TOTAL_COLUMN, "text-right")}>
                {TOTAL_LABEL}
              </th>
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
                        pad,
                        "z-10 truncate border-b border-b-slate-100 text-left font-medium",
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
                    <ValueCell key={model.columns[ci]?.key ?? ci} cell={c} className={cn(pad, "border-b border-slate-100")} />
                  ))}
                  <ValueCell cell={r.total} className={cn(pad, "border-b border-b-slate-200 bg-slate-100 font-semibold", TOTAL_COLUMN)} />
                </tr>
              );
            })}
          </tbody>
          <tfoot className="sticky bottom-0 z-20 font-semibold print:static">
            <tr>
              <th
                scope="row"
                colSpan={model.rowDimensions.length}
                className={cn(pad, "sticky left-0 z-30 border-t-2 border-r border-t-slate-400 border-r-slate-300 bg-slate-100 text-left print:static")}
              >
                {TOTALS_LABEL}
              </th>
              {model.columnTotals.map((c, ci) => (
                <ValueCell key={model.columns[ci]?.key ?? ci} cell={c} className={cn(pad, "border-t-2 border-slate-400 bg-slate-100")} />
              ))}
              <ValueCell cell={model.grandTotal} className={cn(pad, TOTAL_COLUMN, "border-t-2 border-t-slate-400 bg-slate-200")} />
            </tr>
          </tfoot>
        </table>
      </div>
    </div>
  );
}
