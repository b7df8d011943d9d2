import { useMemo, type Ref } from "react";
import type { SortSpec } from "@/lib/report/state/explore";
import { TOTALS_LABEL } from "@/lib/report/metrics/labels";
import { fitColumnWidth } from "@/lib/report/table/fit";
import type { TableCell, TableColumn, TableModel, TableRow } from "@/lib/report/table/table";
import { cn } from "@/components/ui/cn";

/** A row's height in a box of fixed height, where only the rows in view are drawn. */
export const ROW_HEIGHT = 36;

/** The rows drawn, `start` to `end` (exclusive), and the heights of the rows left out above and below them. */
export interface RowWindow {
  start: number;
  end: number;
  before: number;
  after: number;
}

const align = (kind: string | undefined) => (kind === "dimension" ? "text-left" : "text-right tabular-nums");

/** A change's verdict as colour; the text says it in words too ("(better)", "(worse)"). */
const tone = (cell: TableCell) => (cell.tone === "good" ? "text-emerald-800" : cell.tone === "bad" ? "text-red-800" : undefined);

/** A column's least width in px, before its values widen it: dates, compared ranges and changes need more than a count. */
function minWidth(c: TableColumn): number {
  if (c.kind === "dimension") return c.id === "_compared" ? 220 : c.id === "date" ? 156 : 150;
  if (c.kind === "change" || c.kind === "comparison") return 170;
  return c.kind === "kpi" ? 150 : 132;
}

/**
 * The one drawing of a report's table model, for Explore, a dashboard's table tile and a shared or
 * saved report's page: the catalog's headers, every value whole (a cell never cuts its text; the box
 * scrolls sideways instead, its first column staying in view so the totals row keeps its label), a
 * change's verdict in colour beside its words, a value's note on hover, and a totals row named
 * "Totals" whose first cell is its row header. With `onSort`, each header is a button and the sorted
 * one carries `aria-sort`; rows come sorted (the caller's CSV downloads them in that order).
 *
 * What differs between the places is a prop: a tile is `compact`; a page that may be read on a
 * phone says when the table is wider than the screen (`overflows`, measured by the caller);
 * Explore's box has a `maxHeight`, past which it scrolls down too, its header and totals staying
 * in view and only the rows in view drawn (`rowWindow`, from Explore's virtualizer: 10,000 rows
 * scroll as smoothly as 10), with columns as wide as their widest value so they keep their width
 * while it scrolls. Printed, nothing scrolls and nothing sticks. No state or effect of its own, so
 * a server page draws it with no script (a dashboard's table tile).
 */
export function ReportTable({
  table,
  rows = table.rows,
  label,
  sort = null,
  onSort,
  compact = false,
  boxRef,
  overflows = false,
  maxHeight,
  rowWindow,
  dimmed = false,
  caption,
  tipFor,
}: {
  table: TableModel;
  /** The rows in the order shown (the table's own order by default). */
  rows?: readonly TableRow[];
  /** What the table is (e.g. the tile's title): names the table and its scrolling region. */
  label: string;
  sort?: SortSpec | null;
  onSort?: (columnId: string) => void;
  compact?: boolean;
  /** The scrolling box, for a caller that measures it (useOverflows) or scrolls it (its row window). */
  boxRef?: Ref<HTMLDivElement>;
  /** The table is wider than its box (as the caller measured): say it scrolls sideways. */
  overflows?: boolean;
  maxHeight?: number;
  /** With `maxHeight`: the rows in view, as the caller's virtualizer finds them (every row without it). */
  rowWindow?: RowWindow;
  /** While newer data loads, the shown rows are older: say so visually and to assistive tech. */
  dimmed?: boolean;
  /** How to read the table, for assistive tech. */
  caption?: string;
  /** What a cell's hover adds after its note (a KPI's numerator and denominator). */
  tipFor?: (column: TableColumn, cell: TableCell) => string | null;
}) {
  const virtual = maxHeight !== undefined;
  const win = virtual && rowWindow ? rowWindow : { start: 0, end: rows.length, before: 0, after: 0 };
  const shown = rows.slice(win.start, win.end).map((row, i) => ({ row, index: win.start + i }));
  // Only some rows are drawn at a time: each column is as wide as its widest value in any row, totals included.
  // Measured once per table and order, not on every scroll (useMemo, like useId, is a hook a server page may use too).
  const widths = useMemo(
    () => (virtual ? table.columns.map((c, ci) => fitColumnWidth(minWidth(c), [...rows.map((r) => r.cells[ci]?.text ?? ""), table.totals.cells[ci]?.text ?? "", c.label])) : null),
    [virtual, table, rows],
  );

  const pad = compact ? "px-2" : "px-3";
  const cellY = compact ? "py-1.5" : "py-2";
  // Printed, nothing scrolls: the first column need not stick (and a sticky cell can keep a printed header row from repeating).
  const arrow = (dir: "asc" | "desc" | null) => (dir === "asc" ? "▲" : dir === "desc" ? "▼" : "");
  const sticky = (i: number, bg: string) => (i === 0 ? `sticky left-0 z-10 print:static ${bg} border-r border-slate-200` : "");

  const cells = (row: TableRow, bg: string, totals: boolean) =>
    row.cells.map((cell, i) => {
      const column = table.columns[i];
      const tip = column && tipFor ? tipFor(column, cell) : null;
      // The note first (a maturing rate's why, a partial period's days), then what the hover adds (a ratio's sums).
      const title = [cell.note, tip].filter(Boolean).join(" ") || undefined;
      return (
        <td
          key={column?.id ?? i}
          role={totals && i === 0 ? "rowheader" : "cell"}
          title={title}
          data-column={column?.id}
          className={cn(
            pad,
            totals ? cellY : "py-1.5",
            "whitespace-nowrap",
            align(column?.kind),
            tone(cell),
            sticky(i, bg),
            tip && "cursor-help underline decoration-slate-400 decoration-dotted underline-offset-4",
          )}
        >
          {totals && i === 0 ? cell.text || TOTALS_LABEL : cell.text}
        </td>
      );
    });

  return (
    <>
      {overflows ? (
        <p data-testid="scroll-hint" className="text-xs font-medium text-slate-700 print:hidden">
          <span aria-hidden="true">⇆ </span>The table is wider than the screen: scroll sideways to see every column.
        </p>
      ) : null}
      <div
        ref={boxRef}
        tabIndex={0}
        role="region"
        aria-label={`${label} (${virtual ? "scrollable" : "scrolls sideways"})`}
        className={cn("overflow-x-auto rounded-md border border-slate-200 bg-white print:max-h-none print:overflow-visible", virtual && "overflow-y-auto")}
        style={virtual ? { maxHeight } : undefined}
      >
        <table
          aria-label={label}
          aria-rowcount={virtual ? rows.length + 2 : undefined}
          aria-busy={dimmed}
          className={cn("w-max min-w-full text-sm", virtual && "border-separate border-spacing-0")}
        >
          {caption ? <caption className="sr-only">{caption}</caption> : null}
          <thead className={cn("bg-slate-100", virtual && "sticky top-0 z-20 print:static")}>
            <tr aria-rowindex={virtual ? 1 : undefined}>
              {table.columns.map((c, i) => {
                const dir = sort?.key === c.id ? sort.dir : null;
                return (
                  <th
                    key={c.id}
                    scope="col"
                    aria-sort={onSort ? (dir === "asc" ? "ascending" : dir === "desc" ? "descending" : undefined) : undefined}
                    className={cn(
                      "font-medium whitespace-nowrap",
                      align(c.kind),
                      sticky(i, "bg-slate-100"),
                      onSort ? "p-0" : `${pad} py-1.5`,
                      virtual && "border-b border-slate-300",
                    )}
                    style={widths ? { minWidth: widths[i] } : undefined}
                  >
                    {onSort ? (
                      <>
                        <button type="button" className={cn("w-full hover:bg-slate-200 print:hidden", pad, cellY, align(c.kind))} onClick={() => onSort(c.id)}>
                          {c.label}
                          <span aria-hidden="true" className="ml-1 inline-block w-3 text-xs text-slate-700">
                            {arrow(dir)}
                          </span>
                        </button>
                        {/* Printed as text: Chromium leaves a button out of the header row it repeats on every page. */}
                        <span className={cn("hidden print:block", pad, cellY)}>
                          {c.label}
                          <span className="ml-1 inline-block w-3 text-xs text-slate-700">{arrow(dir)}</span>
                        </span>
                      </>
                    ) : (
                      c.label
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody className={cn("transition-opacity", dimmed && "opacity-50")}>
            {win.before > 0 ? <tr aria-hidden="true" style={{ height: win.before }} /> : null}
            {shown.map(({ row, index }) => {
              const bg = virtual && index % 2 === 1 ? "bg-slate-50" : "bg-white";
              return (
                <tr
                  key={row.key}
                  aria-rowindex={virtual ? index + 2 : undefined}
                  className={cn(virtual ? `${bg} [&>td]:border-b [&>td]:border-slate-100` : "border-t border-slate-100")}
                  style={virtual ? { height: ROW_HEIGHT } : undefined}
                >
                  {cells(row, bg, false)}
                </tr>
              );
            })}
            {win.after > 0 ? <tr aria-hidden="true" style={{ height: win.after }} /> : null}
          </tbody>
          <tfoot className={cn("border-t-2 border-slate-300 bg-slate-50 font-semibold print:table-row-group", virtual && "sticky bottom-0 z-20 print:static")}>
            <tr aria-label={TOTALS_LABEL} aria-rowindex={virtual ? rows.length + 2 : undefined} className={cn(virtual && "[&>td]:border-t-2 [&>td]:border-slate-400")}>
              {cells(table.totals, "bg-slate-50", true)}
            </tr>
          </tfoot>
        </table>
      </div>
    </>
  );
}
