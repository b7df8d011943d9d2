/**
 * How a report table is sorted, wherever it is drawn (Explore, dashboard tiles, share pages) and
 * exported: by one column, empty values last, ties in the API's order.
 */
import type { SortSpec } from "@/lib/report/state/explore";
import type { TableModel, TableRow } from "./table";

function compare(a: string | number | null, b: string | number | null): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** Rows sorted by one column; empty values (null, no denominator) always last; ties keep API order. */
export function sortRows(model: TableModel, sort: SortSpec | null): TableRow[] {
  if (!sort) return model.rows;
  const i = model.columns.findIndex((c) => c.id === sort.key);
  if (i < 0) return model.rows;
  const sign = sort.dir === "asc" ? 1 : -1;
  return [...model.rows].sort((x, y) => {
    const a = x.cells[i]?.value ?? null;
    const b = y.cells[i]?.value ?? null;
    if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
    return sign * compare(a, b);
  });
}

/**
 * What a click on a column's header sorts by next, wherever the table is drawn: the sorted column
 * turns around; another starts ascending for a dimension (A to Z, oldest first) and descending for
 * a number (the largest first).
 */
export function nextSort(model: Pick<TableModel, "columns">, sort: SortSpec | null, key: string): SortSpec {
  if (sort?.key === key) return { key, dir: sort.dir === "asc" ? "desc" : "asc" };
  return { key, dir: model.columns.find((c) => c.id === key)?.kind === "dimension" ? "asc" : "desc" };
}
