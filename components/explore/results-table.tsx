"use client";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useRef } from "react";
import { cellTip, type TableModel, type TableRow } from "@/lib/report/table/table";
import type { SortSpec } from "@/lib/report/state/explore";
import { ReportTable, ROW_HEIGHT, type RowWindow } from "@/components/report/report-table";

const CAPTION_COMPARED =
  "Derived KPIs are ratios of sums; hover a KPI value to see its numerator and denominator. Changes say in words whether they are better or worse for that measure (green better, red worse); a rate's change is in percentage points (pp). “(none)” marks a line with no rows on that side; “(partial)” a period the range cuts; “(maturing)” a rate whose chargebacks, refunds or alerts are still arriving, and a change it makes, which is not called better or worse.";
const CAPTION =
  "Derived KPIs are ratios of sums; hover a KPI value to see its numerator and denominator. “(partial)” marks a period the range cuts; “(maturing)” a rate whose chargebacks, refunds or alerts are still arriving (hover it for why).";

/**
 * Explore's results table: the one table renderer in a box 480 px high that scrolls, drawing only
 * the rows in view (found by the virtualizer, which loads with Explore's results and not with the
 * pages that draw the renderer on the server), sorted by a click on a header, a KPI's numerator
 * and denominator on hover.
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
  const box = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read during render by design
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => box.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const items = virtualizer.getVirtualItems();
  const first = items[0];
  const last = items.at(-1);
  const rowWindow: RowWindow =
    first && last
      ? { start: first.index, end: last.index + 1, before: first.start, after: Math.max(0, virtualizer.getTotalSize() - last.end) }
      : { start: 0, end: 0, before: 0, after: virtualizer.getTotalSize() };
  return (
    <ReportTable
      boxRef={box}
      rowWindow={rowWindow}
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
