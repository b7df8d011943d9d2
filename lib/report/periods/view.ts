/**
 * What Explore shows, before any drawing: the report's rows at its grain, each beside its comparison
 * when there is one. The table, the pivot, the chart and the CSV all read this one view, so they
 * cannot disagree about a period, a partial mark or a compared value.
 */
import type { Operation } from "@/lib/contract/catalog";
import type { ReportRecord } from "@/lib/contract/schemas";
import { comparisonProblem, describeComparison, type CompareSelection } from "./compare";
import { comparedCoverageText, coverageOf, daysWithData, partlyCovered, type Coverage } from "./coverage";
import { GRAIN_LABELS, type DayRange, type TimeGrain } from "./grain";
import { compareRows, rollUp, type ComparedRow, type PeriodRow } from "./rollup";

/** A row of the view: its record and period, and with a comparison also what it is compared with. */
export type ViewRow = PeriodRow & Partial<Omit<ComparedRow, keyof PeriodRow>>;

export interface ReportView {
  op: Operation;
  groupBy: readonly string[];
  /** Catalog metrics the records carry (what was fetched). */
  metrics: readonly string[];
  grain: TimeGrain;
  range: DayRange;
  /**
   * `dataDays`: the compared days on which the comparison's answer (or, when it cannot tell, its
   * coverage request's) has data (./coverage.ts), sorted; null when neither was there to tell.
   */
  comparison: { compare: CompareSelection; range: DayRange; dataDays?: readonly string[] | null } | null;
  rows: ViewRow[];
}

export interface ViewInput {
  op: Operation;
  groupBy: readonly string[];
  metrics: readonly string[];
  grain: TimeGrain;
  range: DayRange;
  records: readonly ReportRecord[];
  /**
   * `dataDays`: the compared days with data when the comparison's records cannot tell them (read
   * from its coverage request's answer, ./coverage.ts); otherwise they are read from `records`.
   */
  comparison?: { compare: CompareSelection; range: DayRange; records: readonly ReportRecord[]; dataDays?: readonly string[] | null } | null;
}

export function buildReportView(input: ViewInput): ReportView {
  const spec = { groupBy: input.groupBy, metrics: input.metrics, grain: input.grain, range: input.range };
  const c = input.comparison ?? null;
  const rows: ViewRow[] = c
    ? compareRows(input.records, c.records, { ...spec, compare: c.compare, comparisonRange: c.range })
    : rollUp(input.records, spec);
  return {
    op: input.op,
    groupBy: input.groupBy,
    metrics: input.metrics,
    grain: input.grain,
    range: input.range,
    comparison: c ? { compare: c.compare, range: c.range, dataDays: daysWithData(c.records, c.range, input.groupBy, input.metrics) ?? c.dataDays ?? null } : null,
    rows,
  };
}

/**
 * "Rows by month; compared with the previous quarter (previous calendar period), 2026-04-01 to
 * 2026-06-30", or null when neither is set. `asked` is the comparison the report asked for: when the
 * view has none because the range refuses it (a share's visitor chose a range that is not whole
 * months), the reason is said instead of comparing nothing in silence.
 */
export function describePeriods(view: Pick<ReportView, "grain" | "comparison" | "groupBy" | "range">, asked?: CompareSelection): string | null {
  const parts: string[] = [];
  if (view.groupBy.includes("date") && view.grain !== "day") parts.push(`Rows by ${GRAIN_LABELS[view.grain].toLowerCase()}`);
  const c = view.comparison;
  if (c) {
    const coverage = c.dataDays ? coverageOf(c.range, c.dataDays) : null;
    parts.push(`compared with ${describeComparison(view.range, c.compare, c.range)}${partlyCovered(coverage) ? ` (${comparedCoverageText(coverage)})` : ""}`);
  }
  else if (asked && asked.kind !== "none") {
    const problem = comparisonProblem(view.range, asked);
    if (problem) parts.push(`not compared: ${problem}`);
  }
  if (parts.length === 0) return null;
  const text = parts.join("; ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * How much of a view's compared days (or of `span`, the compared days beside one row) hold data;
 * null without a comparison, or when its answer is not grouped by date.
 */
export function comparisonCoverage(view: Pick<ReportView, "comparison">, span?: DayRange | null): Coverage | null {
  const c = view.comparison;
  if (!c?.dataDays) return null;
  return coverageOf(span ?? c.range, c.dataDays);
}
