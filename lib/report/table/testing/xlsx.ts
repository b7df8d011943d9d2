/** Reading back the workbooks the product writes, for tests: each cell as the CSV writes it, and its type. */
import ExcelJS from "exceljs";
import { guardFormula, type ExportSheet } from "@/lib/report/table/csv";
import { csvNumber, QUESTION_SHEET } from "@/lib/report/table/xlsx";

export async function readWorkbook(bytes: Buffer | ArrayBuffer): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(bytes as ArrayBuffer);
  return book;
}

type Read = string | number | Date | null;

/** A cell's value as read back: a string, a number, a Date or null (nothing else is ever written). */
function readCell(cell: ExcelJS.Cell): Read {
  const v = cell.value;
  if (v === null || v === undefined) return null;
  if (typeof v === "string" || typeof v === "number" || v instanceof Date) return v;
  throw new Error(`cell ${cell.address} holds ${JSON.stringify(v)}: neither text, a number nor a date`);
}

/** The sheet's rows, each as wide as `width` (or the sheet's widest row). */
export function sheetCells(ws: ExcelJS.Worksheet, width?: number): Read[][] {
  const rows: Read[][] = [];
  const w = width ?? ws.columnCount;
  for (let r = 1; r <= ws.rowCount; r++) {
    const row = ws.getRow(r);
    rows.push(Array.from({ length: w }, (_, c) => readCell(row.getCell(c + 1))));
  }
  return rows;
}

/** What the CSV writes for a cell read back from the workbook (a percent cell's fraction in percent units). */
export function asCsvText(cell: ExcelJS.Cell): string {
  const v = readCell(cell);
  if (v === null) return "";
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (typeof v === "number") return String(csvNumber(v, typeof cell.numFmt === "string" && cell.numFmt.includes("%") ? "percent" : "count"));
  return guardFormula(v);
}

/** A sheet's rows as CSV fields, trailing empty cells of each row kept to `width`. */
export function sheetAsCsvRows(ws: ExcelJS.Worksheet, width: number): string[][] {
  const rows: string[][] = [];
  for (let r = 1; r <= ws.rowCount; r++) {
    const row = ws.getRow(r);
    rows.push(Array.from({ length: width }, (_, c) => asCsvText(row.getCell(c + 1))));
  }
  return rows;
}

/**
 * Whether each cell of a table sheet has the type of the value the CSV was written from: a number
 * a Number, text a String (a day a Date in a date column), nothing an empty cell; and a number its
 * column's format. Returns the cells that differ ("B3: …").
 */
export function typeMismatches(ws: ExcelJS.Worksheet, sheet: ExportSheet): string[] {
  const out: string[] = [];
  const rows = [sheet.header, ...sheet.rows, ...(sheet.totals ? [sheet.totals] : [])];
  rows.forEach((cells, r) => {
    sheet.kinds.forEach((kind, c) => {
      const src = cells[c];
      const cell = ws.getRow(r + 1).getCell(c + 1);
      const got = readCell(cell);
      const where = `${cell.address} (${kind})`;
      if (src === null || src === undefined || src === "") {
        if (got !== null) out.push(`${where}: ${String(got)} where nothing was exported`);
      } else if (typeof src === "number") {
        if (typeof got !== "number") out.push(`${where}: ${typeof got} where a number was exported`);
        else if (!cell.numFmt) out.push(`${where}: a number without a format`);
      } else if (kind === "date" && /^\d{4}-\d{2}-\d{2}$/.test(src)) {
        if (!(got instanceof Date)) out.push(`${where}: ${typeof got} where a day was exported`);
      } else if (typeof got !== "string") out.push(`${where}: ${typeof got} where text was exported`);
    });
  });
  return out;
}

/** The question sheet's label/value lines as the CSV writes them (all text cells). */
export function questionLines(book: ExcelJS.Workbook): string[][] {
  const ws = book.getWorksheet(QUESTION_SHEET);
  if (!ws) throw new Error("no question sheet");
  return sheetAsCsvRows(ws, 2);
}
