/**
 * Explore's results from an answer: the view at the report's grain (beside its comparison), the
 * table's model and sorted rows, and the CSV export. Loaded with the results' code when a report
 * is first requested (preloadResults), not with the page: a page opens with a form and empty panels.
 */
import { getDimension } from "@/lib/contract/dimensions";
import { OPERATION_TABLE } from "@/lib/contract/operations";
import { downloadText, tableSheet, tableToCsv, tableToDataCsv } from "@/lib/report/table/csv";
import { singleTableBook } from "@/lib/report/table/xlsx";
import { formatInstant } from "@/lib/report/metrics/format";
import { measureFor, measureMetrics } from "@/lib/report/metrics/kpis";
import { buildViewTable, sortRows, type TableModel, type TableRow } from "@/lib/report/table/table";
import { EVENT_DATED_EXPLANATION, EVENT_DATED_KPIS, measureMaturity, swapKpis, withAttemptDatedKpis, withEventDatedKpis } from "@/lib/report/metrics/maturity";
import { buildReportView, describePeriods, type ReportView } from "@/lib/report/periods/view";
import type { ReportData } from "@/lib/report/client/queries";
import { describeStatus } from "@/lib/report/client/status";
import { effectiveSort, visibleMeasures, type ExploreState, type SortSpec } from "@/lib/report/state/explore";
import { describeFilters } from "@/lib/report/state/describe-filters";
import type { Filters } from "@/lib/report/state/filters";
import { presetLabel, resolveRange } from "@/lib/report/state/range";
import { coverageDays } from "@/lib/report/periods/coverage";

// The chart panel's lookup of a measure's label and terms, which comes with the results.
export { measureFor };

/** Measures of the state that can be computed from what a report fetched. */
export function computable(state: ExploreState, data: ReportData): string[] {
  const fetched = new Set(data.request.metrics ?? []);
  return visibleMeasures(state).filter((id) => {
    const m = measureFor(id, data.op);
    return m !== undefined && measureMetrics(m).every((x) => fetched.has(x));
  });
}

/** `covData`: the answer of the comparison's coverage request, when it has one (lib/periods/coverage.ts). */
export function reportView({ grain, compare }: Pick<ExploreState, "grain" | "compare">, data: ReportData, cmpData: ReportData | null, covData: ReportData | null = null): ReportView {
  const range = { start: data.request.start_date, end: data.request.end_date };
  const groupBy = data.request.group_by ?? [];
  return buildReportView({
    op: data.op,
    groupBy,
    metrics: data.request.metrics ?? [],
    grain: groupBy.includes("date") ? grain : "day",
    range,
    records: data.result.data,
    comparison:
      cmpData && compare.kind !== "none"
        ? {
            compare,
            range: { start: cmpData.request.start_date, end: cmpData.request.end_date },
            records: cmpData.result.data,
            dataDays: covData ? coverageDays(covData.result.data, { start: cmpData.request.start_date, end: cmpData.request.end_date }) : null,
          }
        : null,
  });
}

/** `today` in the reporting time zone: the table marks the rates still maturing. */
export function tableModel(view: ReportView, measures: string[], today: string): TableModel {
  return buildViewTable({ op: view.op, groupBy: view.groupBy, measures }, view, { today });
}

export { effectiveSort, sortRows };

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

/** What a click on a column's header sorts by next. */
export function nextSort(sort: SortSpec | null, key: string): SortSpec {
  const isDimension = getDimension(key) !== undefined || key === "_rows";
  return sort?.key === key ? { key, dir: sort.dir === "asc" ? "desc" : "asc" } : { key, dir: isDimension ? "asc" : "desc" };
}

function asFilters(f: ReportData["request"]["filters"]): Filters {
  const out: Filters = {};
  for (const [k, v] of Object.entries(f ?? {})) {
    if (v === undefined) continue;
    out[k] = (Array.isArray(v) ? v : [v]).filter((x): x is string | number => x !== null);
  }
  return out;
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
async function exportParts({ state, data, view, model, pivotMeasure, today, timeZone }: ExportInput) {
  const { start_date: start, end_date: end } = data.request;
  const preset = "preset" in state.range ? state.range.preset : null;
  const presetMatches =
    preset !== null &&
    (() => {
      const r = resolveRange({ preset }, today);
      return r.start === start && r.end === end;
    })();
  const periods = view ? describePeriods(view) : null;
  const groupBy = (data.request.group_by ?? []).map((d) => getDimension(d)?.label ?? d).join(" > ") || "none";
  const status = describeStatus({ kind: "done", result: data.result }, timeZone);
  const name = `${data.op === "orders" ? "order-summary" : "cohort-summary"}_${start}_${end}${view && view.grain !== "day" ? `_by-${view.grain}` : ""}${view?.comparison ? `_vs_${view.comparison.range.start}_${view.comparison.range.end}` : ""}`;
  // The pivot's code is loaded already when the pivot is on screen.
  const pivots = view && pivotMeasure ? await import("@/lib/report/table/pivot") : null;
  const built = pivots && view && pivotMeasure ? pivots.buildPivot(view, pivotMeasure, { today }) : null;
  const pivot = pivots && built && !pivots.isPivotError(built) ? { lib: pivots, model: built } : null;
  const lines: [string, string][] = [
    ["Report", OPERATION_TABLE[data.op].label],
    ["Range", `${start} to ${end}${presetMatches && preset ? ` (${presetLabel(preset)})` : ""}`],
    ["Timezone", timeZone],
    ["Group by", groupBy],
    ...(periods ? [["Periods", periods] as [string, string]] : []),
    ["Filters", describeFilters(asFilters(data.request.filters))],
    ...([...model.rows, model.totals].some((r) => r.cells.some((c) => c.maturing))
      ? [["Maturing", "Values whose sales are too recent for all their chargebacks, refunds or alerts to have arrived (named per row in the Maturing column); they are not final, and their changes are not called better or worse."] as [string, string]]
      : []),
    ["Data", `${status.title}: ${status.detail}`],
    ["Exported at", formatInstant(new Date().toISOString(), timeZone)],
  ];
  return { name, lines, pivot };
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

/** The same as a workbook: the question sheet (the CSV's lines), then the pivot or the rows with their totals. */
export async function exportXlsx(input: ExportInput): Promise<void> {
  const { name, lines, pivot } = await exportParts(input);
  const { downloadWorkbook } = await import("@/lib/report/table/xlsx-download");
  if (pivot) return downloadWorkbook(`${name}_pivot.xlsx`, singleTableBook("Pivot", pivot.lib.pivotSheet(pivot.model, { lines })));
  return downloadWorkbook(`${name}.xlsx`, singleTableBook(OPERATION_TABLE[input.data.op].label, tableSheet(input.model, input.rows, { lines })));
}
