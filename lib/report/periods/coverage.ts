/**
 * What a comparison's data covers. A compared period can reach back before the data begins (a year
 * to date against last year, on data that starts in November), or hold days with nothing to count:
 * its sums are then over fewer days than the report's, and a change between them says more about the
 * data than about the business. So every surface says how many of the compared days hold data, and a
 * change over a partly covered comparison is never called better or worse.
 *
 * Coverage is read from the comparison's own answer, with no call of its own: when it is grouped by
 * date (every KPI, every trend, any report by date), a compared day holds data when the answer has a
 * record on it. The service leaves out a record whose asked metrics are all 0 (SPEC.md §2.1), so a
 * missing day means "no sales" only when the answer asks for a measure every day with sales has:
 * attempts, approvals or revenue (a KPI's denominator mostly is one). An answer of chargebacks alone
 * misses every day without a chargeback, and one not by date cannot tell at all: for those, the
 * compared days' attempts by date are asked beside them (`coverageRequest`), and their coverage read
 * from that answer instead.
 */
import type { ReportQuery, ReportRecord } from "@/lib/contract/schemas";
import { dayCount, type DayRange } from "./grain";

export interface Coverage {
  /** Days of the compared period (or of the compared days beside one row). */
  days: number;
  /** Those of them on which the answer has data. */
  covered: number;
}

/** Measures that every day with sales has non-zero (SPEC.md §2.3): a day missing from an answer asking for one had none. */
const SALES_METRICS: ReadonlySet<string> = new Set(["attempts", "approvals", "net_approvals", "revenue"]);

/**
 * The days of `range` on which the comparison's answer has data, sorted; null when the answer is not
 * by date or asks for no sales measure (its coverage cannot be known from it). A view may total an answer by date (a KPI's
 * number is the sum of its trend's days), so the records' dates are read, whatever the view groups by.
 */
export function daysWithData(records: readonly ReportRecord[], range: DayRange, groupBy: readonly string[], metrics: readonly string[]): string[] | null {
  if (!metrics.some((m) => SALES_METRICS.has(m))) return null;
  if (!groupBy.includes("date") && !records.some((r) => typeof r.date === "string")) return null;
  const days = new Set<string>();
  for (const r of records) {
    const d = r.date;
    if (typeof d === "string" && d >= range.start && d <= range.end) days.add(d);
  }
  return [...days].sort();
}

/** The metric a coverage request asks for: every day with sales has attempts. */
const COVERAGE_METRIC = "attempts";

/**
 * The request that says which compared days hold data when the comparison's own answer cannot (it
 * is not by date, or asks for no sales measure: a breakdown by BIN, chargebacks alone): the
 * compared days' attempts by date under the same filters, one record a day, one call per 101 days,
 * and usually none, since a dashboard's planner derives it from a KPI or trend over the same days
 * and the day store keeps it. Null when the comparison's answer tells its coverage itself, or for a
 * cohort summary (its comparisons are not over order days).
 */
export function coverageRequest(op: string, comparison: ReportQuery): ReportQuery | null {
  if (op !== "orders") return null;
  const groupBy = comparison.group_by ?? [];
  const metrics = comparison.metrics ?? [];
  if (groupBy.includes("date") && metrics.some((m) => SALES_METRICS.has(m))) return null;
  return {
    start_date: comparison.start_date,
    end_date: comparison.end_date,
    group_by: ["date"],
    metrics: [COVERAGE_METRIC],
    ...(comparison.filters ? { filters: comparison.filters } : {}),
  };
}

/** The compared days with data, from the answer of a `coverageRequest`. */
export function coverageDays(records: readonly ReportRecord[], range: DayRange): string[] {
  return daysWithData(records, range, ["date"], [COVERAGE_METRIC]) ?? [];
}

/** How many of `span`'s days are among `withData` (sorted, as daysWithData returns them). */
export function coverageOf(span: DayRange, withData: readonly string[]): Coverage {
  let covered = 0;
  for (const d of withData) if (d >= span.start && d <= span.end) covered++;
  return { days: dayCount(span), covered };
}

/** Whether some compared days hold no data (false when coverage is not known). */
export const partlyCovered = (c: Coverage | null | undefined): c is Coverage => !!c && c.covered < c.days;

const dayWord = (n: number) => (n === 1 ? "day" : "days");

/** "data on 67 of 333 days". */
export const coverageWords = (c: Coverage): string => `data on ${c.covered} of ${c.days} ${dayWord(c.days)}`;

/** "compared period: data on 67 of 333 days": what a KPI, a chart, a share page and an e-mail say beside the comparison. */
export const comparedCoverageText = (c: Coverage): string => `compared period: ${coverageWords(c)}`;

/** The words a change over a partly covered comparison carries instead of better or worse. */
export const coverageVerdictWord = (c: Coverage): string => (c.covered === 0 ? "no compared data" : "partly covered");

/** Why a change over a partly covered comparison has no better or worse (a hover note, an e-mail's footnote). */
export function partlyCoveredNote(c: Coverage): string {
  const missing = c.days - c.covered;
  return (
    `No better or worse: the compared period has ${coverageWords(c)}; on the other ${missing} there is no data ` +
    `(before the data begins, or no sales that day), so its sums are over fewer days than it names.`
  );
}

/**
 * What a report or an e-mail says once under numbers compared with partly covered days; `totals` is
 * the whole comparison's coverage in words ("data on 67 of 333 days"), "" when only some rows' are.
 */
export function coverageLegend(totals: string): string {
  const what = totals ? `The compared period has ${totals}` : "Some compared days hold no data";
  return `${what} (before the data begins, or no sales): a compared value over such days says how many hold data, and its change is not called better or worse.`;
}

/** Whether a text carries a compared value's coverage words or a change's (an e-mail's numbers). */
export const saysCoverage = (text: string) => /\((data on \d+ of \d+ days?|partly covered|no compared data)\)/.test(text);
