/**
 * Saves a workbook from the browser. exceljs (its in-memory Workbook: the browser build has no
 * streaming writer) is loaded on the first download, never with a page.
 */
import { saveBlob } from "./browser-download";
import { writeWorkbook, XLSX_TYPE, type WorkbookSpec } from "./xlsx";

export async function downloadWorkbook(fileName: string, spec: WorkbookSpec): Promise<void> {
  const { default: ExcelJS } = await import("exceljs");
  const book = new ExcelJS.Workbook();
  await writeWorkbook({ addWorksheet: (name, options) => book.addWorksheet(name, options), streaming: false }, spec);
  const bytes = await book.xlsx.writeBuffer();
  saveBlob(new Blob([bytes], { type: XLSX_TYPE }), fileName.endsWith(".xlsx") ? fileName : `${fileName}.xlsx`);
}
