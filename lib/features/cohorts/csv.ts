/**
 * The retention grid as CSV, for the Cohorts page and shared cohort reports alike: with the
 * report's meta lines and the summary row (annotated), or the header row first and one row per
 * cohort (data only). Masked cells (cycles not reached yet) are empty, never 0. A cohort is named as
 * shown, "2026-10 (partial)" included, so a text filter on "(partial)" keeps or drops the cut weeks
 * and months, and the columns are the same whatever the range; the annotated file also names the
 * days each partial row holds.
 */
import { toCsv, type CsvCell, type CsvMeta } from "@/lib/report/table/csv";
import { DISPLAY_CURRENCY, exportValue } from "@/lib/report/metrics/format";
import type { CohortGrid, GridRow } from "./grid";

/** The unit a cell's number is in, for headers: " (%)", " (USD)" or "". */
export function gridUnit(grid: Pick<CohortGrid, "format">): string {
  return grid.format === "percent" ? " (%)" : grid.format === "currency" ? ` (${DISPLAY_CURRENCY})` : "";
}

export function gridToCsv(grid: CohortGrid, meta: CsvMeta | null): string {
  const header: CsvCell[] = ["Cohort", "Customers", ...Array.from({ length: grid.cycles + 1 }, (_, k) => `Cycle ${k}${meta ? "" : gridUnit(grid)}`)];
  const row = (r: GridRow): CsvCell[] => [r.label, r.customers, ...r.cells.map((c) => (c.masked ? null : exportValue(c.value, grid.format)))];
  if (!meta) return toCsv([header, ...grid.rows.map(row)]);
  // The days a partial row holds, which its label only abbreviates, as the screen's hover note says.
  const notes = grid.rows.flatMap((r) => (r.note ? [["Note", `${r.label}: ${r.note}`]] : []));
  return toCsv([...meta.lines.map(([k, v]) => [k, v]), ...notes, [], header, ...[...grid.rows, grid.summary].map(row)]);
}
