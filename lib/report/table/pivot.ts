/**
 * The pivot as data: the last grouped dimension becomes columns (month × card brand, say) for one
 * measure, with a total per row, a total per column and a grand total. Every cell, total included,
 * is the measure evaluated on the integer sums of the records in it, so a KPI total is the ratio of
 * the sums across the pivot, never an average of ratios. Like the rows table, it reads the report
 * view, so the two layouts cannot disagree about a period or a partial mark.
 *
 * With a comparison the pivot shows the report's own days only (the rows layout shows both sides):
 * a line found only in the comparison has no records here.
 */
import { getDimension, getMetric } from "@/lib/contract/catalog";
import { csvHeader, sheetToCsv, toCsv, valueKind, type CsvCell, type CsvMeta, type ExportSheet } from "./csv";
import { GRAIN_LABELS, type TimeGrain } from "@/lib/report/periods/grain";
import { partialNote } from "@/lib/report/periods/periods";
import type { ReportView, ViewRow } from "@/lib/report/periods/view";
import { exportValue, formatValue, type ValueFormat, formatDimensionValue } from "@/lib/report/metrics/format";
import { describeTerms, evaluate, measureFor, measureMetrics, type Measure } from "@/lib/report/metrics/kpis";
import { addInto, mergeSums, type Sums } from "@/lib/report/metrics/sums";
import { TOTAL_LABEL, TOTALS_LABEL } from "@/lib/report/metrics/labels";
import { isMaturing, likelyMove, MATURING_COLUMN, MATURING_WORD, maturingNote, measureMaturity } from "@/lib/report/metrics/maturity";

/** At most this many columns of values; beyond it the smallest are summed into one "Other". */
export const PIVOT_MAX_COLUMNS = 24;
export const OTHER_LABEL = "Other";
/** The Other column's key: not JSON, so no value's key (always JSON) can equal it. */
export const OTHER_KEY = "~other";
export { TOTAL_LABEL } from "@/lib/report/metrics/labels";
/** What an empty cell (no records) tells assistive tech and a hover, beside its "—" or 0. */
export const EMPTY_CELL_NOTE = "No records";

export interface PivotDimension {
  id: string;
  label: string;
}

export interface PivotColumn {
  key: string;
  label: string;
  isOther: boolean;
  /** What the label abbreviates: a partial period's days, the values folded into Other. */
  title?: string;
}

export interface PivotCell {
  /** The measure's value (a KPI's ratio, not its percent); null for a rate of nothing. */
  value: number | null;
  text: string;
  /** No records fall in this cell: its "—" or 0 is not a measured zero. */
  empty: boolean;
  /** On hover: a KPI's numerator and denominator, or that the cell has no records. */
  note?: string;
  /** A rate whose late events are still arriving for this cell's days. */
  maturing?: true;
}

export interface PivotDimensionCell {
  text: string;
  /** A partial period's days. */
  title?: string;
}

export interface PivotRow {
  key: string;
  dims: PivotDimensionCell[];
  cells: PivotCell[];
  total: PivotCell;
}

export interface PivotModel {
  rowDimensions: PivotDimension[];
  columnDimension: PivotDimension;
  columns: PivotColumn[];
  rows: PivotRow[];
  /** One per column, in column order. */
  columnTotals: PivotCell[];
  grandTotal: PivotCell;
  measure: { id: string; label: string; format: ValueFormat };
  /** How many values of the column dimension were summed into Other (0: no Other column). */
  folded: number;
  /** The report has a comparison, which the pivot leaves out (the rows layout shows it). */
  comparison: boolean;
  /** What the caption adds, in sentences: the folding, the comparison left out, maturing cells. */
  notes: string[];
  /** The measure is a rate that can mature: the CSV carries a Maturing column whatever today is. */
  canMature: boolean;
}

export interface PivotOptions {
  /** Columns of values at most, Other included (default 24; at least 2). */
  maxColumns?: number;
  /** Today in the reporting time zone: with it, cells of a rate still maturing are marked (./maturity.ts). */
  today?: string;
}

/** The label of a grouped dimension: the date reads as its grain ("Month"), as in the rows table. */
export function dimensionLabel(id: string, grain: TimeGrain): string {
  if (id === "date" && grain !== "day") return GRAIN_LABELS[grain].split(" ")[0]!;
  return getDimension(id)?.label ?? id;
}

/** A dimension's value in a row: what orders it, what identifies it, what it reads. */
interface DimValue {
  sort: string | number | null;
  key: string;
  text: string;
  title?: string;
}

function dimValue(id: string, row: ViewRow): DimValue {
  if (id === "date" && row.period) {
    const p = row.period;
    return p.partial
      ? { sort: p.start, key: JSON.stringify(p.start), text: `${p.label} (partial)`, title: partialNote(p) }
      : { sort: p.start, key: JSON.stringify(p.start), text: p.label };
  }
  const v = row.record[id] ?? null;
  return { sort: v, key: JSON.stringify(v), text: formatDimensionValue(id, v) };
}

/** Ascending; numbers as numbers, text by locale with digits as numbers, nothing last. */
function compareValues(a: string | number | null, b: string | number | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b), "en-US", { numeric: true });
}

/** A cell's evaluation: the measure on its sums; an empty cell's is the measure on nothing. */
function cellOf(m: Measure, sums: Sums | undefined): PivotCell {
  const e = evaluate(m, sums ?? new Map<string, number>());
  const cell: PivotCell = { value: e.value, text: formatValue(e.value, m.format), empty: sums === undefined };
  if (!sums) cell.note = EMPTY_CELL_NOTE;
  else if (m.denominator) cell.note = ratioNote(m, e.numerator, e.denominator ?? 0);
  return cell;
}

/** A side of a ratio reads as money when it adds amounts. */
const sideFormat = (terms: Measure["numerator"]): ValueFormat => (terms.some((t) => getMetric(t.metric)?.unit === "currency") ? "currency" : "count");

function ratioNote(m: Measure, numerator: number, denominator: number): string {
  const den = m.denominator ?? [];
  return `${describeTerms(m.numerator)} = ${formatValue(numerator, sideFormat(m.numerator))} ÷ ${describeTerms(den)} = ${formatValue(denominator, sideFormat(den))}`;
}

/** How heavy a column is: a rate's denominator, a sum's value. */
function weightOf(m: Measure, sums: Sums): number {
  const e = evaluate(m, sums);
  return m.denominator ? (e.denominator ?? 0) : (e.value ?? 0);
}

interface ColumnBucket {
  key: string;
  value: DimValue;
  sums: Sums;
  /** The last day of the column's days (its period's, or the range's). */
  lastDay: string;
}

/**
 * The pivot of a report view for one measure (a catalog metric or a KPI of the view's operation),
 * or why there is none.
 */
export function buildPivot(view: ReportView, measureId: string, opts: PivotOptions = {}): PivotModel | { error: string } {
  if (view.groupBy.length < 2) {
    return { error: "A pivot needs at least two grouped dimensions: the last one becomes the columns. Group by one more dimension." };
  }
  const m = measureFor(measureId, view.op);
  if (!m) return { error: `“${measureId}” is not a metric or KPI of this report.` };
  const metrics = measureMetrics(m);
  const missing = metrics.filter((x) => !view.metrics.includes(x));
  if (missing.length > 0) return { error: `${m.label} needs ${missing.join(", ")}, which this report did not fetch. Add it and run the report again.` };

  const rowIds = view.groupBy.slice(0, -1);
  const colId = view.groupBy[view.groupBy.length - 1]!;
  const maxColumns = Math.max(2, Math.floor(opts.maxColumns ?? PIVOT_MAX_COLUMNS));

  // Rows found only in the comparison carry zeros for the report's own days: they hold no records.
  const current = view.rows.filter((r) => r.presence !== "comparison");

  // A cell's days end on its period's last day when the date is one of its dimensions, else the range's.
  const maturity = measureMaturity(m);
  const lastOf = (r: ViewRow, dateHere: boolean) => (dateHere && r.period ? r.period.to : view.range.end);
  const mark = (cell: PivotCell, lastDay: string): PivotCell =>
    opts.today && cell.value !== null && maturity && isMaturing(maturity, lastDay, opts.today)
      ? { ...cell, text: `${cell.text} (${MATURING_WORD})`, note: `${cell.note ? `${cell.note} ` : ""}${maturingNote(maturity, lastDay, opts.today)}`, maturing: true }
      : cell;
  const earlier = (a: string, b: string) => (a < b ? a : b);
  const rowBuckets = new Map<string, { values: DimValue[]; cells: Map<string, Sums>; lastDay: string }>();
  const colBuckets = new Map<string, ColumnBucket>();
  const grand: Sums = new Map(metrics.map((x) => [x, 0]));
  for (const r of current) {
    const values = rowIds.map((d) => dimValue(d, r));
    const rowKey = JSON.stringify(values.map((v) => v.key));
    const col = dimValue(colId, r);
    let rb = rowBuckets.get(rowKey);
    if (!rb) rowBuckets.set(rowKey, (rb = { values, cells: new Map(), lastDay: lastOf(r, rowIds.includes("date")) }));
    let cb = colBuckets.get(col.key);
    if (!cb) colBuckets.set(col.key, (cb = { key: col.key, value: col, sums: new Map(metrics.map((x) => [x, 0])), lastDay: lastOf(r, colId === "date") }));
    let cell = rb.cells.get(col.key);
    if (!cell) rb.cells.set(col.key, (cell = new Map(metrics.map((x) => [x, 0]))));
    addInto(cell, r.record, metrics);
    addInto(cb.sums, r.record, metrics);
    addInto(grand, r.record, metrics);
  }

  // Columns by weight, heaviest first, ties by name; the smallest beyond the limit fold into Other.
  const byWeight = [...colBuckets.values()]
    .map((c) => ({ c, w: weightOf(m, c.sums) }))
    .sort((a, b) => b.w - a.w || compareValues(a.c.value.text, b.c.value.text))
    .map((x) => x.c);
  const fold = byWeight.length > maxColumns;
  const kept = fold ? byWeight.slice(0, maxColumns - 1) : byWeight;
  const folded = fold ? byWeight.slice(maxColumns - 1) : [];
  // Periods read in time order whatever their weight.
  if (colId === "date") kept.sort((a, b) => compareValues(a.value.sort, b.value.sort));
  const foldedKeys = new Set(folded.map((c) => c.key));

  const columns: PivotColumn[] = kept.map((c) => ({
    key: c.key,
    label: c.value.text,
    isOther: false,
    ...(c.value.title ? { title: c.value.title } : {}),
  }));
  if (fold) {
    const names = folded.map((c) => c.value.text);
    const shown = names.slice(0, 20).join(", ") + (names.length > 20 ? `, and ${names.length - 20} more` : "");
    columns.push({ key: OTHER_KEY, label: OTHER_LABEL, isOther: true, title: `${folded.length} smaller values summed: ${shown}` });
  }
  const columnTotals: PivotCell[] = kept.map((c) => mark(cellOf(m, c.sums), c.lastDay));
  // Other's days end on the latest of its columns'.
  const otherLast = folded.reduce((d, c) => (c.lastDay > d ? c.lastDay : d), "");
  if (fold) {
    const other: Sums = new Map(metrics.map((x) => [x, 0]));
    for (const c of folded) mergeSums(other, c.sums);
    columnTotals.push(mark(cellOf(m, other), otherLast));
  }

  const rows: PivotRow[] = [...rowBuckets.entries()]
    .sort(([, a], [, b]) => {
      for (let i = 0; i < a.values.length; i++) {
        const d = compareValues(a.values[i]!.sort, b.values[i]!.sort);
        if (d !== 0) return d;
      }
      return 0;
    })
    .map(([key, rb]) => {
      const cells = kept.map((c) => mark(cellOf(m, rb.cells.get(c.key)), earlier(rb.lastDay, c.lastDay)));
      const total: Sums = new Map(metrics.map((x) => [x, 0]));
      for (const s of rb.cells.values()) mergeSums(total, s);
      if (fold) {
        let other: Sums | undefined;
        for (const [k, s] of rb.cells) {
          if (!foldedKeys.has(k)) continue;
          other ??= new Map(metrics.map((x) => [x, 0]));
          mergeSums(other, s);
        }
        cells.push(mark(cellOf(m, other), earlier(rb.lastDay, otherLast)));
      }
      return {
        key,
        dims: rb.values.map((v) => (v.title ? { text: v.text, title: v.title } : { text: v.text })),
        cells,
        total: mark(cellOf(m, total), rb.lastDay),
      };
    });

  const notes: string[] = [];
  if (fold) notes.push(`${folded.length} smaller values folded into ${OTHER_LABEL}.`);
  if (view.comparison) notes.push("The pivot shows the report's own period only; the comparison is shown in the rows layout.");
  if (maturity && opts.today && isMaturing(maturity, view.range.end, opts.today)) {
    notes.push(`“(${MATURING_WORD})” marks values whose sales are under ${maturity.window} days old: their late events are still arriving, so the value ${likelyMove(maturity)}.`);
  }

  return {
    rowDimensions: rowIds.map((id) => ({ id, label: dimensionLabel(id, view.grain) })),
    columnDimension: { id: colId, label: dimensionLabel(colId, view.grain) },
    columns,
    rows,
    columnTotals,
    grandTotal: mark(cellOf(m, current.length > 0 ? grand : undefined), view.range.end),
    measure: { id: m.id, label: m.label, format: m.format },
    folded: folded.length,
    comparison: view.comparison !== null,
    notes,
    canMature: maturity !== null,
  };
}

export function isPivotError(p: PivotModel | { error: string }): p is { error: string } {
  return "error" in p;
}

const exportCell = (c: PivotCell, f: ValueFormat): CsvCell => exportValue(c.value, f);

/**
 * The pivot as a CSV: a header row (the row dimensions, each column's value, Total), one line per
 * row as shown, and a Totals line. Dimensions are written as shown ("2026-11 (partial)"); numbers
 * as the rows table's CSV writes them (percents in percent units, amounts with 2 decimals), an empty
 * cell as what it shows (0 for a sum, nothing for a rate). With `meta`, its lines, the pivot's own
 * description and a blank line come first, as in the rows table's CSV.
 */
export function pivotToCsv(model: PivotModel, meta?: CsvMeta): string {
  const sheet = pivotSheet(model, meta ?? { lines: [] });
  return meta ? sheetToCsv(sheet) : toCsv([sheet.header, ...sheet.rows, ...(sheet.totals ? [sheet.totals] : [])]);
}

/** The pivot as a sheet: its lines (with the pivot's own description and notes), header, rows and Totals line. */
export function pivotSheet(model: PivotModel, meta: CsvMeta): ExportSheet {
  const f = model.measure.format;
  const lines: [string, string][] = [
    ...meta.lines.map(([k, v]) => [k, v] as [string, string]),
    ["Pivot", `${model.measure.label}: ${model.rowDimensions.map((d) => d.label).join(" > ")} by ${model.columnDimension.label}`],
    ...model.notes.map((n) => ["Note", n] as [string, string]),
  ];
  // A row dimension's header cell can never be empty (there is at least one), so the header is a header.
  // A rate that can mature gets a last column naming, per line, the columns still maturing there.
  const maturingOf = (cells: readonly PivotCell[], total: PivotCell): CsvCell[] =>
    model.canMature ? [[...cells.flatMap((c, i) => (c.maturing ? [model.columns[i]?.label ?? ""] : [])), ...(total.maturing ? [TOTAL_LABEL] : [])].join("; ")] : [];
  const valueKinds = [...model.columns.map(() => valueKind(f, false)), valueKind(f, false)];
  return {
    lines,
    header: [...model.rowDimensions.map((d) => d.label), ...model.columns.map((c) => csvHeader(c.label, f)), csvHeader(TOTAL_LABEL, f), ...(model.canMature ? [MATURING_COLUMN] : [])],
    kinds: [...model.rowDimensions.map((d) => (d.id === "date" ? ("date" as const) : ("text" as const))), ...valueKinds, ...(model.canMature ? ["text" as const] : [])],
    rows: model.rows.map((r) => [...r.dims.map((d) => d.text), ...r.cells.map((c) => exportCell(c, f)), exportCell(r.total, f), ...maturingOf(r.cells, r.total)]),
    totals: [
      TOTALS_LABEL,
      ...model.rowDimensions.slice(1).map(() => ""),
      ...model.columnTotals.map((c) => exportCell(c, f)),
      exportCell(model.grandTotal, f),
      ...maturingOf(model.columnTotals, model.grandTotal),
    ],
  };
}
