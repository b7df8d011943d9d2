/**
 * The Cohorts page's grid from an answer, and its CSV: loaded when a report is first requested
 * (beside the grid's code), not with the page, which opens with a form and an empty grid.
 */
import { gridSheet, gridToCsv, gridUnit } from "@/lib/features/cohorts/csv";
import { CELL_DEFINITIONS, buildCohortGrid, type CohortGrid } from "@/lib/features/cohorts/grid";
import { downloadText } from "@/lib/report/table/browser-download";
import { singleTableBook } from "@/lib/report/table/xlsx";
import { formatInstant } from "@/lib/report/metrics/format";
import type { ReportData } from "@/lib/report/client/queries";
import type { CohortState } from "@/lib/report/state/cohort";
import { describeFilters } from "@/lib/report/state/describe-filters";

export function cohortGrid(data: ReportData, today: string, s: Pick<CohortState, "rows" | "cell" | "cycles" | "trialDays" | "periodDays">): CohortGrid {
  return buildCohortGrid({
    records: data.result.data,
    range: { start: data.request.start_date, end: data.request.end_date },
    today,
    rows: s.rows,
    cell: s.cell,
    cycles: s.cycles,
    trialDays: s.trialDays,
    periodDays: s.periodDays,
  });
}

function exportLines(grid: CohortGrid, data: ReportData, state: CohortState, timeZone: string): [string, string][] {
  return [
    ["Report", "Cohort retention (by initial date)"],
    ["Range", `${data.request.start_date} to ${data.request.end_date}`],
    ["Timezone", timeZone],
    ["Filters", describeFilters(state.filters)],
    ["Cells", `${CELL_DEFINITIONS[state.cell].label}${gridUnit(grid)}`],
    ["Billing schedule", `cycle 1 due ${state.trialDays} days after the initial date, then every ${state.periodDays} days`],
    ["Masked", "cycles a cohort has not reached yet are left empty"],
    ["Exported at", formatInstant(new Date().toISOString(), timeZone)],
  ];
}

const fileOf = (data: ReportData) => `cohorts_${data.request.start_date}_${data.request.end_date}`;

export function exportCohortCsv(grid: CohortGrid, data: ReportData, state: CohortState, timeZone: string, dataOnly: boolean): void {
  if (dataOnly) return downloadText(`${fileOf(data)}_data.csv`, gridToCsv(grid, null));
  downloadText(`${fileOf(data)}.csv`, gridToCsv(grid, { lines: exportLines(grid, data, state, timeZone) }));
}

/** The grid as a workbook: the CSV's lines on the question sheet, the grid with its summary as the totals row. */
export async function exportCohortXlsx(grid: CohortGrid, data: ReportData, state: CohortState, timeZone: string): Promise<void> {
  const { downloadWorkbook } = await import("@/lib/report/table/xlsx-download");
  await downloadWorkbook(`${fileOf(data)}.xlsx`, singleTableBook("Cohorts", gridSheet(grid, { lines: exportLines(grid, data, state, timeZone) })));
}
