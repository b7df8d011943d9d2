"use client";
import { useMemo, useState } from "react";
import { tableSheet, tableToCsv, tableToDataCsv } from "@/lib/report/table/csv";
import { downloadText } from "@/lib/report/table/browser-download";
import { singleTableBook } from "@/lib/report/table/xlsx";
import { formatCount } from "@/lib/report/metrics/format";
import type { SortSpec } from "@/lib/report/state/explore";
import { rowCoverage, type TableModel } from "@/lib/report/table/table";
import { nextSort, sortRows } from "@/lib/report/table/sort";
import { coverageLegend } from "@/lib/report/periods/coverage";
import { MATURING_LEGEND } from "@/lib/report/metrics/maturity";
import { ReportTable } from "@/components/report/report-table";
import { useOverflows } from "@/components/report/use-overflows";
import { Button } from "@/components/ui/button";

/**
 * A shared report's table for a reader without an account: sortable by any column, downloadable as
 * the annotated CSV or the data alone (only what the link shows, in the order shown), drawn by the
 * one table renderer under the legends of its maturing and partly covered values and, on a phone,
 * with the words that it scrolls sideways.
 */
export function SharedTable({ table, meta, fileName }: { table: TableModel; meta: [string, string][]; fileName: string }) {
  const [sort, setSort] = useState<SortSpec | null>(null);
  const rows = useMemo(() => sortRows(table, sort), [table, sort]);
  const [box, overflows] = useOverflows();
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
      <ReportTable table={table} rows={rows} label="Results table" sort={sort} onSort={(key) => setSort((s) => nextSort(table, s, key))} boxRef={box} overflows={overflows} />
    </section>
  );
}
