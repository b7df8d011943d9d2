"use client";
import { cellTip, type TableModel, type TableRow } from "@/lib/report/table/table";
import type { SortSpec } from "@/lib/report/state/explore";
import { ReportTable } from "@/components/report/report-table";

const CAPTION_COMPARED =
  "Derived KPIs are ratios of sums; hover a KPI value to see its numerator and denominator. Changes say in words whether they are better or worse for that measure (green better, red worse); a rate's change is in percentage points (pp). “(none)” marks a line with no rows on that side; “(partial)” a period the range cuts; “(maturing)” a rate whose chargebacks, refunds or alerts are still arriving, and a change it makes, which is not called better or worse.";
const CAPTION =
  "Derived KPIs are ratios of sums; hover a KPI value to see its numerator and denominator. “(partial)” marks a period the range cuts; “(maturing)” a rate whose chargebacks, refunds or alerts are still arriving (hover it for why).";

/**
 * Explore's results table: the one table renderer in a box 480 px high that scrolls, sorted by a
 * click on a header, a KPI's numerator and denominator on hover.
 */
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
  return (
    <ReportTable
      table={model}
      rows={rows}
      label={label}
      sort={sort}
      onSort={onSort}
      maxHeight={480}
      dimmed={dimmed}
      caption={model.columns.some((c) => c.kind === "comparison") ? CAPTION_COMPARED : CAPTION}
      tipFor={cellTip}
    />
  );
}
