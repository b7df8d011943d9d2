/**
 * Files saved from the browser: every download the pages make (a CSV, a workbook written in the
 * tab, one the server wrote) leaves through here, as a link to the bytes clicked once.
 */

/** Saves text as a file from the browser. */
export function downloadText(filename: string, text: string, type = "text/csv;charset=utf-8"): void {
  // A BOM makes Excel read the file as UTF-8 (names such as "Société Générale").
  saveBlob(new Blob(["\uFEFF", text], { type }), filename);
}

/** Saves bytes the browser holds as a file (every download: CSV, workbook, a workbook the server wrote). */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
