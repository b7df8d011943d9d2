/**
 * How a report table is sorted. Apart from table.ts (which builds the tables from the catalog and the
 * KPI registry, and re-exports these), so a shared report's table sorts without loading either.
 */
import type { TableModel, TableRow } from "./table";

export interface SortSpec {
  key: string;
  dir: "asc" | "desc";
}

function compare(a: string | number | null, b: string | number | null): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/**
 * The sort a table is shown in: the user's, else by date when the rows are grouped by date (the
 * API orders by the group-by dimensions in the order given, which puts date second after a
 * product, say), else the API's order.
 */
export function effectiveSort(groupBy: readonly string[], sort: SortSpec | null): SortSpec | null {
  if (sort) return sort;
  return groupBy.includes("date") ? { key: "date", dir: "asc" } : null;
}

/**
 * The user's sort after the grouping changes from `before` to `after`: a measure's values mean
 * something else under another grouping, and a dimension no longer grouped by is gone, so only a
 * sort on a dimension still grouped by survives.
 */
export function sortAfterRegroup(sort: SortSpec | null, before: readonly string[], after: readonly string[]): SortSpec | null {
  if (!sort) return null;
  const same = before.length === after.length && before.every((d, i) => after[i] === d);
  if (same) return sort;
  return after.includes(sort.key) ? sort : null;
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
