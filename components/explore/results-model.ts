/**
 * Explore's results from an answer: the view at the report's grain (beside its comparison), the
 * table's model and sorted rows, and the CSV export. Loaded with the results' code when a report
 * is first requested (preloadResults), not with the page: a page opens with a form and empty panels.
 */
import { OPERATION_TABLE } from "@/lib/contract/operations";
import { tableSheet, tableToCsv, tableToDataCsv } from "@/lib/report/table/csv";
import { downloadText } from "@/lib/report/table/browser-download";
import { singleTableBook } from "@/lib/report/table/xlsx";
import { measureFor } from "@/lib/report/metrics/kpis";
import { type TableModel, type TableRow } from "@/lib/report/table/table";
import { nextSort, sortRows } from "@/lib/report/table/sort";
import { EVENT_DATED_EXPLANATION, EVENT_DATED_KPIS, measureMaturity, swapKpis, withAttemptDatedKpis, withEventDatedKpis } from "@/lib/report/metrics/maturity";
import type { ReportView } from "@/lib/report/periods/view";
import type { ReportData } from "@/lib/report/client/queries";
import { effectiveSort, serializeExplore, type ExploreState } from "@/lib/report/state/explore";
import { computable, exploreExportLines, exploreFileName, reportView, SERVER_WORKBOOK_ROWS, tableModel } from "@/lib/report/export/explore";

// The chart panel's lookup of a measure's label and terms, which comes with the results.
export { measureFor };

// What turns an answer into the table: shared with the server's workbook of a long table.
export { computable, reportView, tableModel };

export { effectiveSort, nextSort, sortRows };

/** What Explore says beside rates that are still maturing, or beside the event-dated rates shown instead. */
export type MaturityNotice =
  | { kind: "maturing"; text: string; next: ExploreState; action: string }
  | { kind: "event-dated"; text: string; next: ExploreState; action: string };

export function maturityNotice(state: ExploreState, model: TableModel): MaturityNotice | null {
  if (state.op !== "orders") return null;
  const anyMaturing = [...model.rows, model.totals].some((r) => r.cells.some((c) => c.maturing));
  const swappable = state.kpis.filter((id) => EVENT_DATED_KPIS[id] !== undefined);
  if (anyMaturing && swappable.length > 0) {
    const labels = swappable.map((id) => measureFor(id, state.op)?.label ?? id);
    const windows = [...new Set(swappable.map((id) => measureMaturity(measureFor(id, state.op)!)?.window ?? 0))].sort((a, b) => a - b);
    const compared = state.compare.kind !== "none" ? " A change between periods of different maturity is shown with its sign but not called better or worse." : "";
    return {
      kind: "maturing",
      text: `${labels.join(", ")} ${labels.length === 1 ? "is" : "are"} still maturing for sales under ${windows.join(" or ")} days old, marked “(maturing)”: their chargebacks, refunds or alerts are still arriving, so those values are not final.${compared} ${EVENT_DATED_EXPLANATION}`,
      next: swapKpis(state, withEventDatedKpis),
      action: "Use event-dated rates",
    };
  }
  const eventDated = state.kpis.filter((id) => Object.values(EVENT_DATED_KPIS).includes(id));
  if (eventDated.length > 0) {
    const labels = eventDated.map((id) => measureFor(id, state.op)?.label ?? id);
    return {
      kind: "event-dated",
      text: `${labels.join(", ")}: event-dated. ${EVENT_DATED_EXPLANATION}`,
      next: swapKpis(state, withAttemptDatedKpis),
      action: "Show attempt-dated rates",
    };
  }
  return null;
}

interface ExportInput {
  state: ExploreState;
  data: ReportData;
  view: ReportView | null;
  model: TableModel;
  rows: TableRow[];
  /** The pivot's measure when the pivot is on screen; null: the rows table. */
  pivotMeasure: string | null;
  today: string;
  timeZone: string;
}

/** What an export of what is shown says and holds: its file name, its lines, the pivot when it is on screen. */
async function exportParts(input: ExportInput) {
  const { view, pivotMeasure, today } = input;
  const name = exploreFileName(input.data, view);
  // The pivot's code is loaded already when the pivot is on screen.
  const pivots = view && pivotMeasure ? await import("@/lib/report/table/pivot") : null;
  const built = pivots && view && pivotMeasure ? pivots.buildPivot(view, pivotMeasure, { today }) : null;
  const pivot = pivots && built && !pivots.isPivotError(built) ? { lib: pivots, model: built } : null;
  return { name, lines: exploreExportLines(input), pivot };
}

/** Downloads what is shown: the pivot when the pivot is on screen, the rows otherwise. */
export async function exportCsv(input: ExportInput & { dataOnly: boolean }): Promise<void> {
  const { name, lines, pivot } = await exportParts(input);
  const { model, rows, dataOnly } = input;
  if (pivot) {
    return dataOnly ? downloadText(`${name}_pivot_data.csv`, pivot.lib.pivotToCsv(pivot.model)) : downloadText(`${name}_pivot.csv`, pivot.lib.pivotToCsv(pivot.model, { lines }));
  }
  if (dataOnly) return downloadText(`${name}_data.csv`, tableToDataCsv(model, rows));
  downloadText(`${name}.csv`, tableToCsv(model, rows, { lines }));
}

/**
 * The same as a workbook: the question sheet (the CSV's lines), then the pivot or the rows with
 * their totals. A rows table longer than SERVER_WORKBOOK_ROWS is written by the server from the
 * same question (the page's URL state) and streamed; the browser only saves the file.
 */
export async function exportXlsx(input: ExportInput): Promise<void> {
  const { name, lines, pivot } = await exportParts(input);
  if (!pivot && input.rows.length > SERVER_WORKBOOK_ROWS) {
    const { downloadExploreWorkbook } = await import("@/lib/report/export/explore-download");
    return downloadExploreWorkbook(serializeExplore(input.state), `${name}.xlsx`);
  }
  const { downloadWorkbook } = await import("@/lib/report/table/xlsx-download");
  if (pivot) return downloadWorkbook(`${name}_pivot.xlsx`, singleTableBook("Pivot", pivot.lib.pivotSheet(pivot.model, { lines })));
  return downloadWorkbook(`${name}.xlsx`, singleTableBook(OPERATION_TABLE[input.data.op].label, tableSheet(input.model, input.rows, { lines })));
}
