"use client";
import { cellTip, type TableModel, type TableRow } from "@/lib/report/table/table";
import { DataTable, type DataTableColumn } from "@/components/ui/data-table";
import type { SortSpec } from "@/lib/report/state/explore";

function width(c: TableModel["columns"][number]): number {
  if (c.kind === "dimension") return c.id === "_compared" ? 220 : c.id === "date" ? 156 : 150;
  if (c.kind === "change" || c.kind === "comparison") return 170;
  return c.kind === "kpi" ? 150 : 132;
}

/** The results table: catalog labels as column headers, formatted cells, KPI detail on hover. */
export function ResultsTable({
  model,
  rows,
  sort,
  onSort,
  dimmed,
  label,
}: {
  model: TableModel;
  rows: readonly TableRow[];
  sort: SortSpec | null;
  onSort: (columnId: string) => void;
  dimmed: boolean;
  label: string;
}) {
  const columns: DataTableColumn[] = model.columns.map((c) => ({
    id: c.id,
    header: c.label,
    align: c.kind === "dimension" ? "left" : "right",
    width: width(c),
  }));
  return (
    <DataTable
      label={label}
      columns={columns}
      rows={rows}
      totals={model.totals}
      sort={sort}
      onSort={onSort}
      dimmed={dimmed}
      caption={
        model.columns.some((c) => c.kind === "comparison")
          ? "Derived KPIs are ratios of sums; hover a KPI value to see its numerator and denominator. Changes say in words whether they are better or worse for that measure (green better, red worse); a rate's change is in percentage points (pp). “(none)” marks a line with no rows on that side; “(partial)” a period the range cuts; “(maturing)” a rate whose chargebacks, refunds or alerts are still arriving, and a change it makes, which is not called better or worse."
          : "Derived KPIs are ratios of sums; hover a KPI value to see its numerator and denominator. “(partial)” marks a period the range cuts; “(maturing)” a rate whose chargebacks, refunds or alerts are still arriving (hover it for why)."
      }
      tipFor={(row, ci) => {
        const column = model.columns[ci];
        const cell = (row as TableRow).cells[ci];
        return column && cell ? cellTip(column, cell) : null;
      }}
    />
  );
}
