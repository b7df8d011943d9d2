/**
 * Excel workbooks of the tables the product exports, written from the same sheets as the CSV
 * (./csv.ts ExportSheet), so a workbook holds exactly the CSV's values:
 * - a first sheet stating the question (the CSV's lines: range, timezone, filters, comparison,
 *   grain, when it was made), then one sheet per table, its header row frozen and filterable;
 * - amounts as numbers in the display currency's format, rates as percentages (the CSV's percent
 *   units divided by 100, so 12.34 reads 12.34% and computes as 0.1234), point changes and other
 *   changes as numbers whose format shows their sign, counts as whole numbers, days as dates;
 * - the totals row last, bold, outside the filter's range (sorting or filtering leaves it in place);
 * - text is always a text cell: "=SUM(A1)" is a label, never a formula (exceljs writes a string as a
 *   string; only a `{ formula }` value is a formula, and none is ever written).
 *
 * Only types come from exceljs here: the browser passes its in-memory Workbook (./xlsx-download.ts),
 * the server its streaming WorkbookWriter (./xlsx-stream.ts); both take rows one at a time.
 */
import type { Row, Worksheet } from "exceljs";
import { DISPLAY_CURRENCY } from "@/lib/report/metrics/format";
import type { ColumnKind, CsvCell, ExportSheet } from "./csv";

/** What a workbook (in memory or streaming) offers for adding sheets. */
export interface WorkbookTarget {
  addWorksheet(name: string, options?: { views?: Worksheet["views"] }): Worksheet;
  /** A streaming writer: each sheet is committed (written out) when done; an in-memory book has no commit. */
  streaming: boolean;
  /**
   * Lets the writer's zip take what was written so far (a streaming writer: the event loop's turn),
   * called every few hundred rows so a long table is never all held as XML at once.
   */
  drain?: () => Promise<void>;
}

/** Rows between two drains of a streaming writer. */
const DRAIN_EVERY = 500;

/** One table's sheet of a workbook: its (already valid and unique) name and its content. */
export interface NamedSheet {
  name: string;
  sheet: ExportSheet;
}

/**
 * A workbook as it will be written: the question's lines (first sheet) and the tables. A table's own
 * lines are written into the question sheet under its name when the book has several tables.
 */
export interface WorkbookSpec {
  question: readonly (readonly [string, string])[];
  sheets: NamedSheet[];
}

export const XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
export const QUESTION_SHEET = "Question";

/** The display currency's symbol as en-US writes it ("$" for USD, "€" for EUR), quoted for a number format. */
function currencySymbol(): string {
  const parts = new Intl.NumberFormat("en-US", { style: "currency", currency: DISPLAY_CURRENCY }).formatToParts(1);
  return parts.find((p) => p.type === "currency")?.value ?? DISPLAY_CURRENCY;
}

const money = `"${currencySymbol().replace(/"/g, "")}"#,##0.00`;

/** Excel number formats: positive;negative;zero. A signed kind shows "+" on an increase, as the screen does. */
export const NUMBER_FORMATS: Readonly<Record<Exclude<ColumnKind, "text">, string>> = {
  date: "yyyy-mm-dd",
  count: "#,##0",
  currency: `${money};-${money}`,
  percent: "0.00%",
  points: '+0.00" pp";-0.00" pp";0.00" pp"',
  "signed-count": "+#,##0;-#,##0;0",
  "signed-currency": `+${money};-${money};${money}`,
  "signed-percent": "+0.00%;-0.00%;0.00%",
};

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The value a cell holds for the CSV's `cell` in a column of `kind`. */
export function cellValue(cell: CsvCell, kind: ColumnKind): string | number | Date | null {
  if (cell === null || cell === undefined || cell === "") return null;
  if (typeof cell === "string") {
    const day = kind === "date" ? ISO_DAY.exec(cell) : null;
    return day ? new Date(Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]))) : cell;
  }
  if (!Number.isFinite(cell)) return null;
  // The CSV's percents are in percent units, two decimals; the workbook's are fractions shown as %.
  return kind === "percent" || kind === "signed-percent" ? cell / 100 : cell;
}

/** The CSV's number back from a workbook's: what a test compares (percent cells are fractions). */
export function csvNumber(value: number, kind: ColumnKind): number {
  if (kind !== "percent" && kind !== "signed-percent") return value;
  const r = Math.round(value * 100 * 100) / 100;
  return Object.is(r, -0) ? 0 : r;
}

const FORBIDDEN = /[:\\/?*[\]]/g;
const MAX_SHEET_NAME = 31;

/**
 * Sheet names Excel accepts, one per title, in order: none of : \ / ? * [ ], no leading or trailing
 * apostrophe, 1 to 31 characters, unique ignoring case (a repeat gets " (2)", shortened to fit), and
 * never the question sheet's or Excel's reserved "History".
 */
export function sheetNames(titles: readonly string[], taken: readonly string[] = [QUESTION_SHEET]): string[] {
  const used = new Set([...taken, "History"].map((n) => n.toLowerCase()));
  return titles.map((title, i) => {
    const base =
      title
        .replace(FORBIDDEN, " ")
        .replace(/\s+/g, " ")
        .trim()
        .replace(/^'+|'+$/g, "")
        .trim() || `Sheet ${i + 1}`;
    let name = base.slice(0, MAX_SHEET_NAME).trim();
    for (let n = 2; used.has(name.toLowerCase()); n++) {
      const suffix = ` (${n})`;
      name = `${base.slice(0, MAX_SHEET_NAME - suffix.length).trim()}${suffix}`;
    }
    used.add(name.toLowerCase());
    return name;
  });
}

const display = (cell: CsvCell): string => (cell === null || cell === undefined ? "" : String(cell));

/** Widths from the header and the first rows (a streaming sheet fixes its columns before its rows). */
function columnWidths(sheet: ExportSheet): number[] {
  const sample = [sheet.header, ...sheet.rows.slice(0, 200), ...(sheet.totals ? [sheet.totals] : [])];
  return sheet.kinds.map((kind, i) => {
    const longest = Math.max(...sample.map((r) => display(r[i]).length));
    // Formats add separators, a symbol or a sign to what the CSV writes.
    const extra = kind === "text" ? 0 : 4;
    return Math.min(50, Math.max(10, longest + extra + 1));
  });
}

function writeRow(ws: Worksheet, cells: readonly CsvCell[], kinds: readonly ColumnKind[], style?: (row: Row) => void): void {
  const row = ws.addRow(kinds.map((k, i) => cellValue(cells[i], k)));
  style?.(row);
  row.commit();
}

/** Writes one table: header (bold, frozen, filterable), the rows, the totals (bold, outside the filter). */
export async function writeTableSheet(book: WorkbookTarget, { name, sheet }: NamedSheet): Promise<void> {
  const ws = book.addWorksheet(name, { views: [{ state: "frozen", ySplit: 1, xSplit: 0 }] });
  // A column's format is its cells' (a cell takes its column's style when made): one style per
  // column, not one per cell, which the streaming writer would otherwise look up a million times.
  ws.columns = columnWidths(sheet).map((width, i) => {
    const kind = sheet.kinds[i]!;
    return kind === "text" ? { width } : { width, style: { numFmt: NUMBER_FORMATS[kind] } };
  });
  const width = sheet.kinds.length;
  writeRow(ws, sheet.header, sheet.kinds, (row) => {
    row.font = { bold: true };
  });
  for (let i = 0; i < sheet.rows.length; i++) {
    writeRow(ws, sheet.rows[i]!, sheet.kinds);
    if (book.drain && i % DRAIN_EVERY === DRAIN_EVERY - 1) await book.drain();
  }
  ws.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1 + sheet.rows.length, column: Math.max(1, width) } };
  if (sheet.totals) {
    writeRow(ws, sheet.totals, sheet.kinds, (row) => {
      row.font = { bold: true };
      row.border = { top: { style: "thin" } };
    });
  }
  if (book.streaming) ws.commit();
}

/** The first sheet: the question's lines, then under each table's name its own lines (several tables only). */
export function writeQuestionSheet(book: WorkbookTarget, spec: WorkbookSpec): void {
  const ws = book.addWorksheet(QUESTION_SHEET);
  ws.columns = [{ width: 22 }, { width: 100 }];
  const line = (k: string, v: string, bold = false) => {
    const row = ws.addRow([k, v]);
    row.getCell(1).font = { bold: true };
    if (bold) row.getCell(2).font = { bold: true };
    row.getCell(2).alignment = { wrapText: true, vertical: "top" };
    row.commit();
  };
  for (const [k, v] of spec.question) line(k, v);
  if (spec.sheets.length === 1) {
    for (const [k, v] of spec.sheets[0]!.sheet.lines) line(k, v);
  } else {
    for (const { name, sheet } of spec.sheets) {
      ws.addRow([]).commit();
      line("Sheet", name, true);
      for (const [k, v] of sheet.lines) line(k, v);
    }
  }
  if (book.streaming) ws.commit();
}

/** Writes the whole workbook into `book`: the question first, then each table in order. */
export async function writeWorkbook(book: WorkbookTarget, spec: WorkbookSpec): Promise<void> {
  writeQuestionSheet(book, spec);
  for (const s of spec.sheets) await writeTableSheet(book, s);
}

/** A one-table workbook: the table's lines are the question. */
export function singleTableBook(title: string, sheet: ExportSheet): WorkbookSpec {
  return { question: [], sheets: [{ name: sheetNames([title])[0]!, sheet }] };
}
