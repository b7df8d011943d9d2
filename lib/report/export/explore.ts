/**
 * What an Explore export says about itself, the same in the browser (the CSV, a small table's
 * workbook) and on the server (a long table's workbook, ./explore-xlsx.ts): its file name and the
 * question's lines (report, range, timezone, grouping, periods, filters, maturing, data, when).
 */
import { getDimension } from "@/lib/contract/dimensions";
import { OPERATION_TABLE } from "@/lib/contract/operations";
import type { ReportQuery } from "@/lib/contract/schemas";
import type { ReportData } from "@/lib/report/client/queries";
import { formatInstant } from "@/lib/report/metrics/format";
import { describeStatus } from "@/lib/report/client/status";
import { buildReportView, describePeriods, type ReportView } from "@/lib/report/periods/view";
import { coverageDays } from "@/lib/report/periods/coverage";
import { measureFor, measureMetrics } from "@/lib/report/metrics/kpis";
import { buildViewTable, type TableModel } from "@/lib/report/table/table";
import { describeFilters } from "@/lib/report/state/describe-filters";
import { visibleMeasures, type ExploreState } from "@/lib/report/state/explore";
import type { Filters } from "@/lib/report/state/filters";
import { presetLabel, resolveRange } from "@/lib/report/state/range";

/**
 * Explore's rows table goes to a workbook written on the server (streamed, nothing held but the
 * table) past this many rows; up to it the browser writes it, with no round trip and no wait. The
 * browser's in-memory writer costs about 8 KiB a row of nine columns (docs/benchmarks.md), so 5,000
 * rows cost a tab about 40 MiB, and 100,000 rows would cost it 800 MiB.
 */
export const SERVER_WORKBOOK_ROWS = 5_000;

/** Measures of the state that can be computed from what a report fetched. */
export function computable(state: ExploreState, data: ReportData): string[] {
  const fetched = new Set(data.request.metrics ?? []);
  return visibleMeasures(state).filter((id) => {
    const m = measureFor(id, data.op);
    return m !== undefined && measureMetrics(m).every((x) => fetched.has(x));
  });
}

/** `covData`: the answer of the comparison's coverage request, when it has one (lib/report/periods/coverage.ts). */
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

function asFilters(f: ReportQuery["filters"]): Filters {
  const out: Filters = {};
  for (const [k, v] of Object.entries(f ?? {})) {
    if (v === undefined) continue;
    out[k] = (Array.isArray(v) ? v : [v]).filter((x): x is string | number => x !== null);
  }
  return out;
}

/** The export's file name without extension: operation, range, grain, compared range. */
export function exploreFileName(data: ReportData, view: ReportView | null): string {
  const { start_date: start, end_date: end } = data.request;
  return `${data.op === "orders" ? "order-summary" : "cohort-summary"}_${start}_${end}${view && view.grain !== "day" ? `_by-${view.grain}` : ""}${view?.comparison ? `_vs_${view.comparison.range.start}_${view.comparison.range.end}` : ""}`;
}

/** The question's lines of an export of what is shown, written at `now`. */
export function exploreExportLines(
  { state, data, view, model, today, timeZone }: { state: ExploreState; data: ReportData; view: ReportView | null; model: TableModel; today: string; timeZone: string },
  now: Date = new Date(),
): [string, string][] {
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
  return [
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
    ["Exported at", formatInstant(now.toISOString(), timeZone)],
  ];
}
