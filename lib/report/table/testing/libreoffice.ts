/**
 * LibreOffice reading back the workbooks the product writes, for tests: each sheet converted
 * headless to CSV, and where it reads otherwise than the product's CSV. Tests that use it skip,
 * naming LibreOffice, where `soffice` is not installed (scripts/test-servers.sh installs it).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCsv } from "@/lib/core/testing/csv";
import type { ExportSheet } from "@/lib/report/table/csv";

export const soffice: string | null = (() => {
  try {
    return execFileSync("sh", ["-c", "command -v soffice"], { encoding: "utf8" }).trim() || null;
  } catch {
    return null;
  }
})();

/** Every sheet of the workbook as LibreOffice converts it to CSV, by sheet name. */
export function libreOfficeSheets(bytes: Buffer): Map<string, string[][]> {
  if (!soffice) throw new Error("LibreOffice (soffice) is not installed");
  const dir = mkdtempSync(join(tmpdir(), "xlsx-lo-"));
  try {
    writeFileSync(join(dir, "book.xlsx"), bytes);
    // Comma, double quote, UTF-8, from line 1, raw values (not as shown), every sheet to a file of its own (book-<sheet>.csv).
    execFileSync(soffice, ["--headless", "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1", "--outdir", dir, join(dir, "book.xlsx")], { timeout: 120_000 });
    const sheets = new Map<string, string[][]>();
    for (const f of readdirSync(dir)) if (f.startsWith("book-") && f.endsWith(".csv")) sheets.set(f.slice("book-".length, -".csv".length), parseCsv(readFileSync(join(dir, f), "utf8")));
    return sheets;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Where LibreOffice's reading of a table sheet differs from the rows of the product's CSV (header
 * first): a number as the same number, a percentage in its percent form or as a fraction, a date in
 * LibreOffice's short form, a guarded formula-looking label as the plain text.
 */
export function libreOfficeMismatches(lo: readonly string[][], csv: readonly string[][], kinds: ExportSheet["kinds"]): string[] {
  const out: string[] = [];
  const close = (a: number, b: number) => Number.isFinite(a) && Math.abs(a - b) < 1e-6;
  if (lo.length !== csv.length) out.push(`${lo.length} rows where the CSV has ${csv.length}`);
  lo.forEach((row, r) =>
    row.forEach((text, c) => {
      const want = csv[r]?.[c] ?? "";
      const kind = kinds[c];
      let same: boolean;
      if (r > 0 && (kind === "percent" || kind === "signed-percent") && want !== "") same = close(text.endsWith("%") ? Number(text.slice(0, -1)) : Number(text) * 100, Number(want));
      else if (r > 0 && want !== "" && /^-?\d+(\.\d+)?$/.test(want) && kind !== "text") same = close(Number(text), Number(want));
      else if (kind === "date" && /^\d{4}-\d{2}-\d{2}$/.test(want)) same = text.replace(/^(\d{2})\/(\d{2})\/(\d{2,4})$/, "$3-$1-$2").includes(want.slice(5));
      else same = text === want.replace(/^'(?=[=+\-@\t\r])/, "");
      if (!same) out.push(`row ${r + 1}, column ${c + 1} (${kind}): LibreOffice reads ${JSON.stringify(text)} where the CSV has ${JSON.stringify(want)}`);
    }),
  );
  return out;
}
