"use client";
import { useEffect, useRef, useState } from "react";
import type { SortSpec } from "@/lib/report/state/explore";
import { TOTALS_LABEL } from "@/lib/report/metrics/labels";
import { MATURING_LEGEND } from "@/lib/report/metrics/maturity";
import { coverageLegend } from "@/lib/report/periods/coverage";
import { rowCoverage, type TableCell, type TableModel, type TableRow } from "@/lib/report/table/table";
import { cn } from "@/components/ui/cn";

const align = (kind: string | undefined) => (kind === "dimension" ? "text-left" : "text-right tabular-nums");

/** A change's verdict as colour; the text says it in words too ("(better)", "(worse)"). */
const tone = (cell: TableCell) => (cell.tone === "good" ? "text-emerald-800" : cell.tone === "bad" ? "text-red-800" : undefined);

/**
 * The one drawing of a report's table model as an HTML table, for a dashboard's table tile and a
 * shared or saved report's page: the catalog's headers, every value whole (cells never cut their
 * text; the box scrolls sideways instead, its first column staying in view so the totals row keeps
 * its label), a change's verdict in colour beside its words, and a totals row named "Totals" for
 * assistive tech. With `onSort`, each header is a button and the sorted one carries `aria-sort`;
 * rows come sorted (the caller's CSV downloads them in that order). A tile is `compact`; a page
 * shows the maturing and coverage legends (`legends`) and says when it is wider than the screen
 * (`scrollHint`). Printed, nothing scrolls and nothing sticks.
 */
export function ReportTable({
  table,
  rows = table.rows,
  label,
  sort = null,
  onSort,
  compact = false,
  legends = false,
  scrollHint = false,
}: {
  table: TableModel;
  /** The rows in the order shown (the table's own order by default). */
  rows?: readonly TableRow[];
  /** What the table is (e.g. the tile's title): names its scrolling region. */
  label: string;
  sort?: SortSpec | null;
  onSort?: (columnId: string) => void;
  compact?: boolean;
  legends?: boolean;
  scrollHint?: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [overflows, setOverflows] = useState(false);
  useEffect(() => {
    const el = box.current;
    if (!scrollHint || !el || typeof ResizeObserver === "undefined") return;
    const measure = () => setOverflows(el.scrollWidth > el.clientWidth + 1);
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [scrollHint]);

  const pad = compact ? "px-2" : "px-3";
  // Printed, nothing scrolls: the first column need not stick (and a sticky cell can keep a printed header row from repeating).
  const sticky = (i: number, bg: string) => (i === 0 ? `sticky left-0 z-10 print:static ${bg} border-r border-slate-200` : "");
  const kind = (i: number) => table.columns[i]?.kind;
  const anyMaturing = legends && [...table.rows, table.totals].some((r) => r.cells.some((c) => c.maturing));
  const totalsCoverage = rowCoverage(table.totals);
  const anyCoverage = legends && (totalsCoverage !== "" || table.rows.some((r) => rowCoverage(r) !== ""));

  return (
    <>
      {anyMaturing ? (
        <p className="rounded border border-amber-400 bg-amber-50 p-2 text-xs text-slate-900" data-testid="maturing-legend">
          {MATURING_LEGEND}
        </p>
      ) : null}
      {anyCoverage ? (
        <p className="rounded border border-amber-400 bg-amber-50 p-2 text-xs text-slate-900" data-testid="coverage-legend">
          {coverageLegend(totalsCoverage)}
        </p>
      ) : null}
      {scrollHint && overflows ? (
        <p data-testid="scroll-hint" className="text-xs font-medium text-slate-700 print:hidden">
          <span aria-hidden="true">⇆ </span>The table is wider than the screen: scroll sideways to see every column.
        </p>
      ) : null}
      <div
        ref={box}
        tabIndex={0}
        role="region"
        aria-label={`${label} (scrolls sideways)`}
        className="overflow-x-auto rounded-md border border-slate-200 bg-white print:overflow-visible"
      >
        <table className="w-max min-w-full text-sm">
          <thead className="bg-slate-100">
            <tr>
              {table.columns.map((c, i) => {
                const dir = sort?.key === c.id ? sort.dir : null;
                return (
                  <th
                    key={c.id}
                    scope="col"
                    aria-sort={onSort ? (dir === "asc" ? "ascending" : dir === "desc" ? "descending" : undefined) : undefined}
                    className={cn("font-medium whitespace-nowrap", align(c.kind), sticky(i, "bg-slate-100"), onSort ? "p-0" : `${pad} py-1.5`)}
                  >
                    {onSort ? (
                      <button type="button" className={cn("w-full hover:bg-slate-200", pad, compact ? "py-1.5" : "py-2", align(c.kind))} onClick={() => onSort(c.id)}>
                        {c.label}
                        <span aria-hidden="true" className="ml-1 inline-block w-3 text-xs text-slate-700">
                          {dir === "asc" ? "▲" : dir === "desc" ? "▼" : ""}
                        </span>
                      </button>
                    ) : (
                      c.label
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key} className="border-t border-slate-100">
                {r.cells.map((cell, i) => (
                  <td key={i} title={cell.note} data-column={table.columns[i]?.id} className={cn(pad, "py-1.5 whitespace-nowrap", align(kind(i)), tone(cell), sticky(i, "bg-white"))}>
                    {cell.text}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
          <tfoot className="border-t-2 border-slate-300 bg-slate-50 font-semibold print:table-row-group">
            <tr aria-label={TOTALS_LABEL}>
              {table.totals.cells.map((cell, i) => (
                <td
                  key={i}
                  role={i === 0 ? "rowheader" : undefined}
                  title={cell.note}
                  data-column={table.columns[i]?.id}
                  className={cn(pad, compact ? "py-1.5" : "py-2", "whitespace-nowrap", align(kind(i)), tone(cell), sticky(i, "bg-slate-50"))}
                >
                  {i === 0 ? cell.text || TOTALS_LABEL : cell.text}
                </td>
              ))}
            </tr>
          </tfoot>
        </table>
      </div>
    </>
  );
}
