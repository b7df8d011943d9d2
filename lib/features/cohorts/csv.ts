/**
 * The retention grid as CSV, for the Cohorts page and shared cohort reports alike: with the
 * report's meta lines and the summary row (annotated), or the header row first and one row per
 * cohort (data only). Masked cells (cycles not reached yet) are empty, never 0. A cohort is named as
 * shown, "2026-10 (partial)" included, so a text filter on "(partial)" keeps or drops the cut weeks
 * and months, and the columns are the same whatever the range; the annotated file also names the
 * days each partial row holds.
 */
import { sheetToCsv, toCsv, valueKind, type CsvCell, type CsvMeta, type ExportSheet } from "@/lib/report/table/csv";
import { DISPLAY_CURRENCY, exportValue } from "@/lib/report/metrics/format";
import type { CohortGrid, GridRow } from "./grid";

/** The unit a cell's number is in, for headers: " (%)", " (USD)" or "". */
export function gridUnit(grid: Pick<CohortGrid, "format">): string {
  return grid.format === "percent" ? " (%)" : grid.format === "currency" ? ` (${DISPLAY_CURRENCY})` : "";
}

export function gridToCsv(grid: CohortGrid, meta: CsvMeta | null): string {
  if (!meta) {
    const sheet = gridSheet(grid, { lines: [] }, gridUnit(grid));
    return toCsv([sheet.header, ...sheet.rows]);
  }
  return sheetToCsv(gridSheet(grid, meta));
}

/**
 * The grid as a sheet: its lines, then the days a partial row holds (which its label only
 * abbreviates, as the screen's hover note says); one row per cohort; the summary row as its totals.
 */
export function gridSheet(grid: CohortGrid, meta: CsvMeta, unit = ""): ExportSheet {
  const header: CsvCell[] = ["Cohort", "Customers", ...Array.from({ length: grid.cycles + 1 }, (_, k) => `Cycle ${k}${unit}`)];
  const row = (r: GridRow): CsvCell[] => [r.label, r.customers, ...r.cells.map((c) => (c.masked ? null : exportValue(c.value, grid.format)))];
  const notes = grid.rows.flatMap((r) => (r.note ? [["Note", `${r.label}: ${r.note}`] as const] : []));
  return {
    lines: [...meta.lines, ...notes],
    header,
    kinds: ["text", "count", ...Array.from({ length: grid.cycles + 1 }, () => valueKind(grid.format, false))],
    rows: grid.rows.map(row),
    totals: row(grid.summary),
  };
}
