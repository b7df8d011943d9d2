/**
 * The results table as data: columns (group-by dimensions, then metrics, then KPIs), one row per
 * record with every value already formatted, and a totals row where metrics are sums and KPIs are
 * ratios of the sums. The table, its sort and the CSV export all read this one model, so the export
 * is exactly what the table shows.
 */
import { getDimension, getMetric, type Operation } from "@/lib/contract/catalog";
import type { ReportRecord } from "@/lib/contract/schemas";
import { formatDimensionValue, formatValue, type ValueFormat } from "./format";
import { describeTerms, evaluate, measureFor, measureMetrics, sumRecords, units, type Measure, type Sums } from "./kpis";

export interface TableColumn {
  id: string;
  label: string;
  kind: "dimension" | "metric" | "kpi";
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

export const TOTALS_LABEL = "Totals";

/** With no group-by, one row holds everything; this column names it (and the totals row). */
export const ALL_ROWS_COLUMN = "_rows";
export const ALL_ROWS_TEXT = "All records";

export function tableColumns(spec: TableSpec): TableColumn[] {
  const columns: TableColumn[] =
    spec.groupBy.length === 0
      ? [{ id: ALL_ROWS_COLUMN, label: "Rows", kind: "dimension", format: null, measure: null }]
      : spec.groupBy.map((d) => ({
          id: d,
          label: getDimension(d)?.label ?? d,
          kind: "dimension",
          format: null,
          measure: null,
        }));
  for (const id of spec.measures) {
    const m = measureFor(id, spec.op);
    if (m) columns.push({ id, label: m.label, kind: m.kind, format: m.format, measure: m });
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

export function buildTable(spec: TableSpec, records: readonly ReportRecord[]): TableModel {
  const columns = tableColumns(spec);
  const measures = columns.flatMap((c) => (c.measure ? [c.measure] : []));
  const metrics = [...new Set(measures.flatMap(measureMetrics))];

  const rows: TableRow[] = records.map((r, i) => {
    const sums: Sums = new Map();
    for (const m of metrics) sums.set(m, units(r, m));
    return {
      key: String(i),
      cells: columns.map((c): TableCell => {
        if (c.measure) return measureCell(c.measure, sums);
        if (c.id === ALL_ROWS_COLUMN) return { value: ALL_ROWS_TEXT, text: ALL_ROWS_TEXT };
        const v = r[c.id] ?? null;
        return { value: v, text: formatDimensionValue(c.id, v) };
      }),
    };
  });

  const totalSums = sumRecords(records, metrics);
  const totals: TableRow = {
    key: "totals",
    cells: columns.map((c, i): TableCell => {
      if (c.measure) return measureCell(c.measure, totalSums);
      return { value: null, text: i === 0 ? TOTALS_LABEL : "" };
    }),
  };
  return { columns, rows, totals };
}

export interface SortSpec {
  key: string;
  dir: "asc" | "desc";
}

function compare(a: string | number | null, b: string | number | null): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/**
 * The sort a table is shown in: the user's, else by date when the rows are grouped by date (the
 * API orders by the group-by dimensions in the order given, which puts date second after a
 * product, say), else the API's order.
 */
export function effectiveSort(groupBy: readonly string[], sort: SortSpec | null): SortSpec | null {
  if (sort) return sort;
  return groupBy.includes("date") ? { key: "date", dir: "asc" } : null;
}

/**
 * The user's sort after the grouping changes from `before` to `after`: a measure's values mean
 * something else under another grouping, and a dimension no longer grouped by is gone, so only a
 * sort on a dimension still grouped by survives.
 */
export function sortAfterRegroup(sort: SortSpec | null, before: readonly string[], after: readonly string[]): SortSpec | null {
  if (!sort) return null;
  const same = before.length === after.length && before.every((d, i) => after[i] === d);
  if (same) return sort;
  return after.includes(sort.key) ? sort : null;
}

/** Rows sorted by one column; empty values (null, no denominator) always last; ties keep API order. */
export function sortRows(model: TableModel, sort: SortSpec | null): TableRow[] {
  if (!sort) return model.rows;
  const i = model.columns.findIndex((c) => c.id === sort.key);
  if (i < 0) return model.rows;
  const sign = sort.dir === "asc" ? 1 : -1;
  return [...model.rows].sort((x, y) => {
    const a = x.cells[i]?.value ?? null;
    const b = y.cells[i]?.value ?? null;
    if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
    return sign * compare(a, b);
  });
}

/** What hovering a KPI cell tells: the numerator and the denominator behind the ratio. */
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
