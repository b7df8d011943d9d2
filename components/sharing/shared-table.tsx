"use client";
import { useEffect, useMemo, useRef, useState } from "react";
import { downloadText, tableSheet, tableToCsv, tableToDataCsv } from "@/lib/report/table/csv";
import { singleTableBook } from "@/lib/report/table/xlsx";
import { formatCount } from "@/lib/report/metrics/format";
import type { SortSpec } from "@/lib/report/state/explore";
import { rowCoverage, sortRows, type TableModel } from "@/lib/report/table/table";
import { coverageLegend } from "@/lib/report/periods/coverage";
import { MATURING_LEGEND } from "@/lib/report/metrics/maturity";
import { Button } from "@/components/ui/button";

/**
 * A shared report's table for a reader without an account: sortable by any column, downloadable as
 * the annotated CSV or the data alone (only what the link shows), and honest on a phone: when it is
 * wider than the screen it says it scrolls sideways, and its first column stays in view so the
 * totals row is never cut off from its label.
 */
export function SharedTable({ table, meta, fileName }: { table: TableModel; meta: [string, string][]; fileName: string }) {
  const [sort, setSort] = useState<SortSpec | null>(null);
  const rows = useMemo(() => sortRows(table, sort), [table, sort]);
  const box = useRef<HTMLDivElement>(null);
  const [overflows, setOverflows] = useState(false);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setOverflows(el.scrollWidth > el.clientWidth + 1);
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const onSort = (key: string, isDimension: boolean) =>
    setSort((s) => (s?.key === key ? { key, dir: s.dir === "asc" ? "desc" : "asc" } : { key, dir: isDimension ? "asc" : "desc" }));
  const align = (kind: string) => (kind === "dimension" ? "text-left" : "text-right");
  // Printed, nothing scrolls: the first column need not stick (and a sticky cell can keep a printed header row from repeating).
  const sticky = (i: number, bg: string) => (i === 0 ? `sticky left-0 z-10 print:static ${bg} border-r border-slate-200` : "");
  const anyMaturing = [...table.rows, table.totals].some((r) => r.cells.some((c) => c.maturing));
  const totalsCoverage = rowCoverage(table.totals);
  const anyCoverage = totalsCoverage !== "" || table.rows.some((r) => rowCoverage(r) !== "");

  return (
    <section aria-label="Results" className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-slate-700" aria-live="polite">
          {formatCount(rows.length, "row")}{sort ? `, sorted by ${table.columns.find((c) => c.id === sort.key)?.label ?? sort.key} (${sort.dir === "asc" ? "ascending" : "descending"})` : ""}
        </p>
        <div className="flex flex-wrap gap-2 print:hidden">
          <Button size="sm" onClick={() => downloadText(`${fileName}.csv`, tableToCsv(table, rows, { lines: meta }))}>
            Download CSV
          </Button>
          <Button size="sm" onClick={() => downloadText(`${fileName}_data.csv`, tableToDataCsv(table, rows))} title="Header row first, no notes or totals">
            Data only CSV
          </Button>
          <Button
            size="sm"
            onClick={() => void import("@/lib/report/table/xlsx-download").then((m) => m.downloadWorkbook(`${fileName}.xlsx`, singleTableBook("Report", tableSheet(table, rows, { lines: meta }))))}
          >
            Download Excel
          </Button>
        </div>
      </div>
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
      {overflows ? (
        <p data-testid="scroll-hint" className="text-xs font-medium text-slate-700 print:hidden">
          <span aria-hidden="true">⇆ </span>The table is wider than the screen: scroll sideways to see every column.
        </p>
      ) : null}
      <div ref={box} tabIndex={0} role="region" aria-label="Results table (scrolls sideways)" className="overflow-x-auto rounded border border-slate-200 bg-white print:overflow-visible">
        <table className="w-max min-w-full text-sm">
          <thead className="bg-slate-100">
            <tr>
              {table.columns.map((c, i) => {
                const dir = sort?.key === c.id ? sort.dir : null;
                return (
                  <th
                    key={c.id}
                    scope="col"
                    aria-sort={dir === "asc" ? "ascending" : dir === "desc" ? "descending" : undefined}
                    className={`p-0 font-medium whitespace-nowrap ${align(c.kind)} ${sticky(i, "bg-slate-100")}`}
                  >
                    <button type="button" className={`w-full px-3 py-2 hover:bg-slate-200 ${align(c.kind)}`} onClick={() => onSort(c.id, c.kind === "dimension")}>
                      {c.label}
                      <span aria-hidden="true" className="ml-1 inline-block w-3 text-xs text-slate-700">
                        {dir === "asc" ? "▲" : dir === "desc" ? "▼" : ""}
                      </span>
                    </button>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key} className="border-t border-slate-100">
                {r.cells.map((cell, i) => (
                  <td key={i} title={cell.note} className={`px-3 py-1.5 whitespace-nowrap tabular-nums ${align(table.columns[i]?.kind ?? "metric")} ${sticky(i, "bg-white")}`}>
                    {cell.text}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
          <tfoot className="border-t-2 border-slate-300 bg-slate-50 font-semibold print:table-row-group">
            <tr aria-label="Totals">
              {table.totals.cells.map((cell, i) => (
                <td key={i} title={cell.note} className={`px-3 py-2 whitespace-nowrap tabular-nums ${align(table.columns[i]?.kind ?? "metric")} ${sticky(i, "bg-slate-50")}`}>
                  {cell.text}
                </td>
              ))}
            </tr>
          </tfoot>
        </table>
      </div>
    </section>
  );
}
