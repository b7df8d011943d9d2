/**
 * The results table as data: columns (group-by dimensions, then metrics, then KPIs), one row per
 * record with every value already formatted, and a totals row where metrics are sums and KPIs are
 * ratios of the sums. The table, its sort and the CSV export all read this one model, so the export
 * is exactly what the table shows.
 */
import { getDimension, getMetric, type Operation } from "@/lib/contract/catalog";
import type { ReportRecord } from "@/lib/contract/schemas";
import { comparisonName } from "@/lib/report/periods/compare";
import { GRAIN_LABELS } from "@/lib/report/periods/grain";
import { partialNote } from "@/lib/report/periods/periods";
import { coverageWords, partlyCovered, partlyCoveredNote, type Coverage } from "@/lib/report/periods/coverage";
import { comparisonCoverage, type ReportView, type ViewRow } from "@/lib/report/periods/view";
import { comparedId } from "@/lib/report/metrics/compared";
import { TOTALS_LABEL } from "@/lib/report/metrics/labels";
import { formatValue, type ValueFormat, formatDimensionValue } from "@/lib/report/metrics/format";
import { describeTerms, evaluate, measureFor, measureMetrics, type Measure } from "@/lib/report/metrics/kpis";
import { sumRecords, units, type Sums } from "@/lib/report/metrics/sums";
import { isMaturing, MATURING_WORD, maturingNote, measureMaturity, type Maturity } from "@/lib/report/metrics/maturity";
import { changeCells, changesInPoints } from "./change";
export { MATURING_COLUMN } from "@/lib/report/metrics/maturity";

export interface TableColumn {
  id: string;
  label: string;
  /** comparison: the measure over the compared days; change: the difference (or % change) between them. */
  kind: "dimension" | "metric" | "kpi" | "comparison" | "change";
  /** null for dimensions. */
  format: ValueFormat | null;
  measure: Measure | null;
}

export interface TableCell {
  /** The raw value the cell sorts and exports by (a KPI's ratio, not its percent). */
  value: string | number | null;
  text: string;
  /** Present on KPI cells: the sums the ratio came from. */
  numerator?: number;
  denominator?: number | null;
  /** A change's verdict for its measure: up is good for revenue, bad for chargebacks. */
  tone?: "good" | "bad";
  /** What the cell's text abbreviates (a partial period's days, a side with no rows, a maturing rate). */
  note?: string;
  /** A rate whose late events (chargebacks, refunds, alerts) are still arriving for this period. */
  maturing?: true;
  /** A compared value, or a change, whose compared days hold data on only some of them (how many: `coverage`). */
  coverage?: Coverage;
}

export interface TableRow {
  key: string;
  cells: TableCell[];
}

export interface TableModel {
  columns: TableColumn[];
  rows: TableRow[];
  totals: TableRow;
}

export interface TableSpec {
  op: Operation;
  groupBy: readonly string[];
  /** Metric names and KPI ids to show, in column order. */
  measures: readonly string[];
}

export { TOTALS_LABEL } from "@/lib/report/metrics/labels";

/** With no group-by, one row holds everything; this column names it (and the totals row). */
export const ALL_ROWS_COLUMN = "_rows";
export const ALL_ROWS_TEXT = "All records";

export { comparedId } from "@/lib/report/metrics/compared";


export function tableColumns(spec: TableSpec, view?: Pick<ReportView, "grain" | "comparison">): TableColumn[] {
  const grain = view?.grain ?? "day";
  const columns: TableColumn[] =
    spec.groupBy.length === 0
      ? [{ id: ALL_ROWS_COLUMN, label: "Rows", kind: "dimension", format: null, measure: null }]
      : spec.groupBy.map((d) => ({
          id: d,
          label: d === "date" && grain !== "day" ? GRAIN_LABELS[grain].split(" ")[0]! : (getDimension(d)?.label ?? d),
          kind: "dimension",
          format: null,
          measure: null,
        }));
  const compared = view?.comparison ? comparisonName(view.comparison.compare, view.comparison.range) : null;
  if (compared && spec.groupBy.includes("date")) columns.push({ id: "_compared", label: "Compared with", kind: "dimension", format: null, measure: null });
  for (const id of spec.measures) {
    const m = measureFor(id, spec.op);
    if (!m) continue;
    columns.push({ id, label: m.label, kind: m.kind, format: m.format, measure: m });
    if (!compared) continue;
    columns.push({ id: comparedId(id, "cmp"), label: `${m.label} (${compared})`, kind: "comparison", format: m.format, measure: m });
    if (changesInPoints(m)) {
      columns.push({ id: comparedId(id, "chg"), label: `${m.label} change`, kind: "change", format: "points", measure: m });
    } else {
      columns.push({ id: comparedId(id, "chg"), label: `${m.label} change`, kind: "change", format: m.format, measure: m });
      columns.push({ id: comparedId(id, "pct"), label: `${m.label} % change`, kind: "change", format: "percent", measure: m });
    }
  }
  return columns;
}

function measureCell(m: Measure, sums: Sums): TableCell {
  const e = evaluate(m, sums);
  const cell: TableCell = { value: e.value, text: formatValue(e.value, m.format) };
  if (m.kind === "kpi") {
    cell.numerator = e.numerator;
    cell.denominator = e.denominator;
  }
  return cell;
}

const sumsOf = (record: ReportRecord, metrics: readonly string[]): Sums => new Map(metrics.map((m) => [m, units(record, m)]));

function dimensionCell(id: string, row: ViewRow): TableCell {
  if (id === ALL_ROWS_COLUMN) return { value: ALL_ROWS_TEXT, text: ALL_ROWS_TEXT };
  const c = row.compared;
  const span = c ? (c.start === c.end ? c.start : `${c.start} to ${c.end}`) : null;
  // With a comparison, the date cell's hover names the compared days (or that none stands beside it).
  const comparedNote = span ? `Compared with ${span}.` : row.comparison ? "No compared day stands beside these days (the compared month is shorter)." : null;
  if (id === "_compared") return c && span ? { value: c.start, text: span } : { value: null, text: row.comparison ? "none" : "", ...(comparedNote ? { note: comparedNote } : {}) };
  const v = row.record[id] ?? null;
  if (id === "date" && row.unaligned) return { value: row.unaligned, text: `${row.unaligned} (last year only)`, note: "A day with no twin in the report's year." };
  if (id === "date" && row.period) {
    const p = row.period;
    const notes = [p.partial ? partialNote(p) : null, comparedNote].filter((x) => x !== null);
    const note = notes.length ? { note: notes.join(" ") } : {};
    return { value: p.start, text: p.partial ? `${p.label} (partial)` : p.label, ...note };
  }
  return { value: v, text: formatDimensionValue(id, v) };
}

/** A side with no rows shows its sums as zero, marked, never as a silent 0. */
function markAbsent(cell: TableCell, absent: boolean): TableCell {
  if (!absent || cell.value === null) return cell;
  return { ...cell, text: `${cell.text} (none)`, note: "No rows for this line on this side of the comparison." };
}

/**
 * The last day of each side of a row (the period's last day in the range, else the range's) and the
 * day maturity is judged on; null when no day is known (a table built without one).
 */
interface LastDays {
  today: string | null;
  now: string | null;
  before: string | null;
  /** How much of the compared days beside these hold data; null when not known. */
  coverage: Coverage | null;
}

/** A compared value over days partly without data says how many hold it (a side with no rows says "(none)" already). */
function markCoverage(cell: TableCell, coverage: Coverage | null, absent: boolean): TableCell {
  if (!partlyCovered(coverage) || cell.value === null) return cell;
  const note = partlyCoveredNote(coverage).replace(/^No better or worse: t/, "T");
  return absent
    ? { ...cell, coverage }
    : { ...cell, text: `${cell.text} (${coverageWords(coverage)})`, note: cell.note ? `${cell.note} ${note}` : note, coverage };
}

/** A value whose late events are still arriving says so beside it, and why on hover. */
function markMaturing(cell: TableCell, maturity: Maturity | null, lastDay: string | null, today: string | null): TableCell {
  if (cell.value === null || !maturity || !lastDay || !today || !isMaturing(maturity, lastDay, today)) return cell;
  const note = maturingNote(maturity, lastDay, today);
  return { ...cell, text: `${cell.text} (${MATURING_WORD})`, note: cell.note ? `${cell.note} ${note}` : note, maturing: true };
}

function rowCells(columns: readonly TableColumn[], row: ViewRow, metrics: readonly string[], days: LastDays, view: Pick<ReportView, "comparison">): TableCell[] {
  const now = sumsOf(row.record, metrics);
  const before = row.comparison ? sumsOf(row.comparison, metrics) : null;
  // A date row's coverage is its own compared days'; a row of no date holds every compared day.
  const coverage = row.compared ? comparisonCoverage(view, row.compared) : row.period ? null : days.coverage;
  const rowDays: LastDays = { today: days.today, now: row.period?.to ?? days.now, before: row.compared?.end ?? days.before, coverage };
  return cellsFor(columns, now, before, row.presence, (c) => dimensionCell(c.id, row), rowDays);
}

function cellsFor(
  columns: readonly TableColumn[],
  now: Sums,
  before: Sums | null,
  presence: ViewRow["presence"],
  dimension: (c: TableColumn) => TableCell,
  days: LastDays,
): TableCell[] {
  const cells: TableCell[] = [];
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i]!;
    if (!c.measure) {
      cells.push(dimension(c));
      continue;
    }
    const maturity = measureMaturity(c.measure);
    if (c.kind === "metric" || c.kind === "kpi") {
      cells.push(markMaturing(markAbsent(measureCell(c.measure, now), presence === "comparison"), maturity, days.now, days.today));
    } else if (c.kind === "comparison" && before) {
      const compared = markCoverage(markAbsent(measureCell(c.measure, before), presence === "current"), days.coverage, presence === "current");
      cells.push(markMaturing(compared, maturity, days.before, days.today));
      const sides = { now: isMaturing(maturity, days.now, days.today), before: isMaturing(maturity, days.before, days.today) };
      const changes = changeCells(c.measure, evaluate(c.measure, now).value, evaluate(c.measure, before).value, sides, days.coverage);
      cells.push(...changes);
      i += changes.length;
    }
  }
  return cells;
}

export function buildTable(spec: TableSpec, records: readonly ReportRecord[], options: TableOptions = {}): TableModel {
  return buildViewTable(spec, { grain: "day", comparison: null, rows: records.map((record) => ({ record, period: null })), ...(options.range ? { range: options.range } : {}) }, options);
}

export interface TableOptions {
  /**
   * Today in the reporting time zone: with it, a rate whose late events are still arriving is marked
   * maturing (./maturity.ts) and its changes are not judged. Without it nothing is marked.
   */
  today?: string;
  /** The days of a table built from records alone (buildTable): the maturity of its rows and totals. */
  range?: { start: string; end: string };
}

/** The table of a report view: rows at its grain, and each measure beside its comparison when there is one. */
export function buildViewTable(
  spec: TableSpec,
  view: Pick<ReportView, "grain" | "comparison" | "rows"> & { range?: { start: string; end: string } },
  options: TableOptions = {},
): TableModel {
  const columns = tableColumns(spec, view);
  const measures = columns.flatMap((c) => (c.measure && c.kind !== "comparison" && c.kind !== "change" ? [c.measure] : []));
  const metrics = [...new Set(measures.flatMap(measureMetrics))];
  // Every row and the totals end no later than the range; a period row ends on its own last day.
  const days: LastDays = { today: options.today ?? null, now: view.range?.end ?? null, before: view.comparison?.range.end ?? null, coverage: comparisonCoverage(view) };
  const rows: TableRow[] = view.rows.map((r, i) => ({ key: String(i), cells: rowCells(columns, r, metrics, days, view) }));
  const totalNow = sumRecords(
    view.rows.map((r) => r.record),
    metrics,
  );
  const totalBefore = view.comparison ? sumRecords(view.rows.flatMap((r) => (r.comparison ? [r.comparison] : [])), metrics) : null;
  const totals: TableRow = {
    key: "totals",
    cells: cellsFor(columns, totalNow, totalBefore, "both", (c) => ({ value: null, text: c === columns[0] ? TOTALS_LABEL : "" }), days),
  };
  return { columns, rows, totals };
}

/** What hovering a KPI cell tells beside its note: the numerator and the denominator behind the ratio. */
export function cellTip(column: TableColumn, cell: TableCell): string | null {
  const m = column.measure;
  if (!m || m.kind !== "kpi" || cell.numerator === undefined) return null;
  const numFormat: ValueFormat = m.numerator.some((t) => isCurrencyMetric(t.metric)) ? "currency" : "count";
  const num = `${describeTerms(m.numerator)} = ${formatValue(cell.numerator, numFormat)}`;
  if (!m.denominator) return num;
  const denFormat: ValueFormat = m.denominator.some((t) => isCurrencyMetric(t.metric)) ? "currency" : "count";
  const den = `${describeTerms(m.denominator)} = ${formatValue(cell.denominator ?? 0, denFormat)}`;
  return `${num} ÷ ${den}`;
}

function isCurrencyMetric(metric: string): boolean {
  return getMetric(metric)?.unit === "currency";
}

/**
 * Per row, which of its values are still maturing, by column label ("" when none): a column, so a
 * spreadsheet's filter or sort keeps the mark with its row. null when no shown measure can mature.
 */
export function maturingColumn(model: Pick<TableModel, "columns">): ((row: TableRow) => string) | null {
  if (!model.columns.some((c) => c.measure && (c.kind === "kpi" || c.kind === "metric") && measureMaturity(c.measure))) return null;
  return (row) => model.columns.flatMap((c, i) => (row.cells[i]?.maturing && c.kind !== "change" ? [c.label] : [])).join("; ");
}

/** The export's column saying, per row, how much of its compared days hold data: present when some row's are partly covered. */
export const COVERAGE_COLUMN = "Compared period coverage";

/** A row's compared coverage in words ("data on 67 of 333 days"), "" when its compared days all hold data or it is not known. */
export function rowCoverage(row: TableRow): string {
  const c = row.cells.find((cell) => cell.coverage)?.coverage;
  return c ? coverageWords(c) : "";
}
