/**
 * CSV export (RFC 4180: CRLF line ends, fields with `"`, `,`, CR or LF quoted, quotes doubled).
 *
 * Text that a spreadsheet would run as a formula (starting with = + - @, or a tab or carriage return
 * that some spreadsheets skip before one) gets a leading `'`. Only text is guarded: numbers are
 * written as numbers, so a negative net revenue stays a number.
 */
import { COVERAGE_COLUMN, MATURING_COLUMN, maturingColumn, rowCoverage, type TableColumn, type TableModel, type TableRow } from "./table";
import { DISPLAY_CURRENCY, exportValue, type ValueFormat } from "@/lib/report/metrics/format";

export type CsvCell = string | number | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

export function guardFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

export function escapeCsvCell(cell: CsvCell): string {
  if (cell === null || cell === undefined) return "";
  if (typeof cell === "number") return Number.isFinite(cell) ? String(cell) : "";
  const text = guardFormula(cell);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(rows: readonly (readonly CsvCell[])[]): string {
  return rows.map((r) => r.map(escapeCsvCell).join(",")).join("\r\n") + "\r\n";
}

export interface CsvMeta {
  /** Label/value lines written above the table, e.g. ["Range", "2025-07-01 to 2025-07-30"]. */
  lines: readonly (readonly [string, string])[];
}

/**
 * What a column's numbers are, for a workbook's cell formats (./xlsx.ts): a plain value of the
 * measure's unit, a signed change in it, a day, or text. The CSV writes every kind the same way.
 */
export type ColumnKind = "text" | "date" | ValueFormat | `signed-${Exclude<ValueFormat, "points">}`;

/**
 * One exported table before it is written: the lines saying what it is, the header row, each
 * column's kind, the rows as shown and the totals row (none: the file has no totals). The CSV and the
 * workbook are both written from this, so they hold the same values.
 */
export interface ExportSheet {
  lines: readonly (readonly [string, string])[];
  header: CsvCell[];
  kinds: ColumnKind[];
  rows: CsvCell[][];
  totals: CsvCell[] | null;
}

/** The annotated CSV of a sheet: its lines, a blank line, the header, the rows, the totals. */
export function sheetToCsv(sheet: ExportSheet): string {
  return toCsv([...sheet.lines.map(([k, v]) => [k, v]), [], sheet.header, ...sheet.rows, ...(sheet.totals ? [sheet.totals] : [])]);
}

/** The kind of a value of `format`; a change is signed (points are always a signed difference). */
export function valueKind(format: ValueFormat, signed: boolean): ColumnKind {
  return signed && format !== "points" ? `signed-${format}` : format;
}

function columnKind(c: TableColumn): ColumnKind {
  if (c.format === null) return c.id === "date" ? "date" : "text";
  return valueKind(c.format, c.kind === "change");
}

function rowCells(model: TableModel, row: TableRow, coverage: boolean): CsvCell[] {
  const cells: CsvCell[] = model.columns.map((c, i) => {
    const cell = row.cells[i];
    if (!cell) return null;
    if (c.format === null) return cell.text; // dimensions: exactly the text shown
    return exportValue(typeof cell.value === "number" ? cell.value : null, c.format);
  });
  // The numbers carry no "(maturing)": a last column names the row's maturing values instead.
  const maturing = maturingColumn(model);
  // Nor "(data on 67 of 333 days)": a compared value over days partly without data says so in its own column.
  return [...cells, ...(maturing ? [maturing(row)] : []), ...(coverage ? [rowCoverage(row)] : [])];
}

function headerRow(model: TableModel, coverage: boolean): CsvCell[] {
  const headers = model.columns.map((c) => csvHeader(c.label, c.format));
  return [...headers, ...(maturingColumn(model) ? [MATURING_COLUMN] : []), ...(coverage ? [COVERAGE_COLUMN] : [])];
}

/** Whether the file needs the coverage column: some row's (or the totals') compared days are partly without data. */
const hasCoverage = (rows: readonly TableRow[]) => rows.some((r) => rowCoverage(r) !== "");

/**
 * Header of a column in the file: its label, with "(%)" where the value is in percent units and the
 * currency where it is an amount (the file's numbers carry no symbol).
 */
export function csvHeader(label: string, format: string | null): string {
  if (format === "percent") return `${label} (%)`;
  if (format === "points") return `${label} (pp)`;
  if (format === "currency") return `${label} (${DISPLAY_CURRENCY})`;
  return label;
}

/** The table as shown, as a sheet: the same columns, the rows in the order shown, the totals row. */
export function tableSheet(model: TableModel, rows: readonly TableRow[], meta: CsvMeta): ExportSheet {
  const coverage = hasCoverage([...rows, model.totals]);
  const kinds = [...model.columns.map(columnKind), ...(maturingColumn(model) ? ["text" as const] : []), ...(coverage ? ["text" as const] : [])];
  return {
    lines: meta.lines,
    header: headerRow(model, coverage),
    kinds,
    rows: rows.map((r) => rowCells(model, r, coverage)),
    totals: rowCells(model, model.totals, coverage),
  };
}

/**
 * The table as shown: the same columns, the rows in the order shown, then the totals row; above it
 * the report's meta lines and a blank line.
 */
export function tableToCsv(model: TableModel, rows: readonly TableRow[], meta: CsvMeta): string {
  return sheetToCsv(tableSheet(model, rows, meta));
}

/**
 * The same table for spreadsheets and BI tools: the header row first, then the rows as shown, and
 * nothing else (no meta lines, no totals row that an import would count as data).
 */
export function tableToDataCsv(model: TableModel, rows: readonly TableRow[]): string {
  const coverage = hasCoverage(rows);
  return toCsv([headerRow(model, coverage), ...rows.map((r) => rowCells(model, r, coverage))]);
}
