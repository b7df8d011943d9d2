/**
 * Saves a workbook from the browser. exceljs (its in-memory Workbook: the browser build has no
 * streaming writer) is loaded on the first download, never with a page.
 */
import { writeWorkbook, XLSX_TYPE, type WorkbookSpec } from "./xlsx";

export async function downloadWorkbook(fileName: string, spec: WorkbookSpec): Promise<void> {
  const { default: ExcelJS } = await import("exceljs");
  const book = new ExcelJS.Workbook();
  await writeWorkbook({ addWorksheet: (name, options) => book.addWorksheet(name, options), streaming: false }, spec);
  const bytes = await book.xlsx.writeBuffer();
  const url = URL.createObjectURL(new Blob([bytes], { type: XLSX_TYPE }));
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName.endsWith(".xlsx") ? fileName : `${fileName}.xlsx`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
