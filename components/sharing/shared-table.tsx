"use client";
import { useMemo, useState } from "react";
import { downloadText, tableSheet, tableToCsv, tableToDataCsv } from "@/lib/report/table/csv";
import { singleTableBook } from "@/lib/report/table/xlsx";
import { formatCount } from "@/lib/report/metrics/format";
import type { SortSpec } from "@/lib/report/state/explore";
import { nextSort, sortRows, type TableModel } from "@/lib/report/table/table";
import { ReportTable } from "@/components/report/report-table";
import { Button } from "@/components/ui/button";

/**
 * A shared report's table for a reader without an account: sortable by any column, downloadable as
 * the annotated CSV or the data alone (only what the link shows, in the order shown), drawn by the
 * one table renderer with its legends and, on a phone, the words that it scrolls sideways.
 */
export function SharedTable({ table, meta, fileName }: { table: TableModel; meta: [string, string][]; fileName: string }) {
  const [sort, setSort] = useState<SortSpec | null>(null);
  const rows = useMemo(() => sortRows(table, sort), [table, sort]);

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
      <ReportTable table={table} rows={rows} label="Results table" sort={sort} onSort={(key) => setSort((s) => nextSort(table, s, key))} legends scrollHint />
    </section>
  );
}
