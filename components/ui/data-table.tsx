"use client";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useId, useMemo, useRef, useState, type ReactNode } from "react";
import { fitColumnWidth } from "@/lib/report/table/fit";
import { cn } from "./cn";

export interface DataTableColumn {
  id: string;
  header: string;
  align: "left" | "right";
  /** Minimum width in px; wider when a value needs it; columns share any extra space. */
  width: number;
}

export interface DataTableCell {
  text: string;
  /** Good or bad news (a change's verdict): coloured, and the text says it in words too. */
  tone?: "good" | "bad";
  /** What the text abbreviates, on hover and to assistive tech. */
  note?: string;
}

export interface DataTableRow {
  key: string;
  cells: readonly DataTableCell[];
}

export interface DataTableSort {
  key: string;
  dir: "asc" | "desc";
}

const ROW_HEIGHT = 36;

/**
 * A virtualized, sortable table (ARIA table semantics on divs, so that only the rows in view exist
 * in the DOM: 10,000 rows scroll as smoothly as 10). The header and the totals row stay in view.
 * Rows must already be sorted; the table only reports clicks on a header.
 */
export function DataTable({
  label,
  columns,
  rows,
  totals,
  totalsLabel = "Totals",
  sort,
  onSort,
  tipFor,
  maxHeight = 480,
  dimmed = false,
  caption,
}: {
  label: string;
  columns: readonly DataTableColumn[];
  rows: readonly DataTableRow[];
  totals?: DataTableRow | null;
  totalsLabel?: string;
  sort: DataTableSort | null;
  onSort?: (columnId: string) => void;
  /** Extra detail for a cell, shown on hover (e.g. a KPI's numerator and denominator). */
  tipFor?: (row: DataTableRow, columnIndex: number) => string | null;
  /** The table scrolls past this height; fewer rows make it shorter, with no empty space under them. */
  maxHeight?: number;
  /** While newer data loads, the shown rows are older: say so visually and to assistive tech. */
  dimmed?: boolean;
  caption?: ReactNode;
}) {
  const id = useId();
  const scroller = useRef<HTMLDivElement>(null);
  const [tip, setTip] = useState<{ text: string; x: number; y: number } | null>(null);

  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read during render by design
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });

  // A column is at least as wide as its widest value (totals included): a number is never cut.
  // The table scrolls sideways when the columns need more than its box; headers wrap.
  // Keyed by the minimums' text: the caller's columns array is new on every render, its widths are not.
  const mins = columns.map((c) => c.width).join(",");
  const widths = useMemo(
    () =>
      mins
        .split(",")
        .filter((m) => m !== "")
        .map((m, ci) => fitColumnWidth(Number(m), [...rows.map((r) => r.cells[ci]?.text ?? ""), totals?.cells[ci]?.text ?? ""])),
    [mins, rows, totals],
  );
  const template = widths.map((w) => `minmax(${w}px, 1fr)`).join(" ");
  const minWidth = widths.reduce((s, w) => s + w, 0);
  const rowStyle = { gridTemplateColumns: template, minWidth } as const;
  const totalRows = rows.length + 1 + (totals ? 1 : 0);

  const showTip = (e: React.MouseEvent, row: DataTableRow, ci: number) => {
    const text = tipFor?.(row, ci) ?? null;
    if (!text) return setTip(null);
    const r = (e.currentTarget as HTMLElement).getBoundingClientRect();
    setTip({ text, x: r.right, y: r.top });
  };

  const renderCells = (row: DataTableRow, header?: boolean) =>
    columns.map((c, ci) => {
      const cell = row.cells[ci];
      const text = cell?.text ?? "";
      const hasTip = tipFor !== undefined && tipFor(row, ci) !== null;
      return (
        <div
          key={c.id}
          role={header && ci === 0 ? "rowheader" : "cell"}
          className={cn(
            "truncate px-3 leading-9",
            c.align === "right" ? "text-right tabular-nums" : "text-left",
            hasTip && "cursor-help underline decoration-slate-400 decoration-dotted underline-offset-4",
            cell?.tone === "good" && "text-emerald-800",
            cell?.tone === "bad" && "text-red-800",
          )}
          title={cell?.note}
          data-column={c.id}
          aria-describedby={hasTip && tip ? `${id}-tip` : undefined}
          onMouseEnter={hasTip ? (e) => showTip(e, row, ci) : undefined}
          onMouseLeave={hasTip ? () => setTip(null) : undefined}
        >
          {text}
        </div>
      );
    });

  return (
    <div className="relative">
      {caption ? (
        <p id={`${id}-caption`} className="sr-only">
          {caption}
        </p>
      ) : null}
      <div
        ref={scroller}
        role="table"
        aria-label={label}
        aria-describedby={caption ? `${id}-caption` : undefined}
        aria-rowcount={totalRows}
        aria-colcount={columns.length}
        aria-busy={dimmed}
        tabIndex={0}
        className="relative overflow-auto rounded-md border border-slate-300 bg-white text-sm"
        style={{ maxHeight }}
        onScroll={() => tip && setTip(null)}
      >
        <div role="rowgroup" className="sticky top-0 z-20 border-b border-slate-300 bg-slate-100 font-medium">
          <div role="row" aria-rowindex={1} className="grid" style={rowStyle}>
            {columns.map((c) => {
              const sorted = sort?.key === c.id ? sort.dir : null;
              return (
                <div
                  key={c.id}
                  role="columnheader"
                  aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}
                  className={cn("flex items-center", c.align === "right" ? "justify-end" : "justify-start")}
                >
                  {onSort ? (
                    <button
                      type="button"
                      className={cn(
                        "flex h-full w-full items-center gap-1 px-3 py-2 hover:bg-slate-200",
                        c.align === "right" ? "justify-end text-right" : "justify-start text-left",
                      )}
                      onClick={() => onSort(c.id)}
                    >
                      <span className="leading-tight">{c.header}</span>
                      <span aria-hidden="true" className="w-3 shrink-0 text-xs text-slate-700">
                        {sorted === "asc" ? "▲" : sorted === "desc" ? "▼" : ""}
                      </span>
                    </button>
                  ) : (
                    <span className="px-3 py-2 leading-tight">{c.header}</span>
                  )}
                </div>
              );
            })}
          </div>
        </div>
        <div
          role="rowgroup"
          className={cn("relative transition-opacity", dimmed && "opacity-50")}
          style={{ height: virtualizer.getTotalSize(), minWidth }}
        >
          {virtualizer.getVirtualItems().map((v) => {
            const row = rows[v.index]!;
            return (
              <div
                key={row.key}
                role="row"
                aria-rowindex={v.index + 2}
                className={cn("absolute top-0 left-0 grid w-full border-b border-slate-100", v.index % 2 === 1 && "bg-slate-50")}
                style={{ ...rowStyle, height: ROW_HEIGHT, transform: `translateY(${v.start}px)` }}
              >
                {renderCells(row)}
              </div>
            );
          })}
        </div>
        {totals ? (
          <div role="rowgroup" className="sticky bottom-0 z-20 border-t-2 border-slate-400 bg-slate-100 font-semibold">
            <div role="row" aria-label={totalsLabel} aria-rowindex={totalRows} className="grid" style={rowStyle}>
              {renderCells(totals, true)}
            </div>
          </div>
        ) : null}
      </div>
      {tip ? (
        <div
          id={`${id}-tip`}
          role="tooltip"
          className="pointer-events-none fixed z-50 max-w-sm -translate-x-full -translate-y-full rounded bg-slate-900 px-2 py-1 text-xs text-white shadow"
          style={{ left: tip.x, top: tip.y - 4 }}
        >
          {tip.text}
        </div>
      ) : null}
    </div>
  );
}
