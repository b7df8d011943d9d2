/**
 * Test support: PDFs read back as a reader's tools read them, with poppler's pdftotext (the text of
 * each page, laid out), pdftoppm (each page drawn as an image) and pdfimages (the raster images it
 * holds). Suites skip themselves where
 * poppler is not installed (scripts/test-servers.sh installs it and says so when it cannot).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function havePoppler(): boolean {
  try {
    execFileSync("pdftotext", ["-v"], { stdio: "ignore" });
    execFileSync("pdftoppm", ["-v"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function withFile<T>(pdf: Buffer, fn: (file: string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "pdf-read-"));
  try {
    const file = join(dir, "in.pdf");
    writeFileSync(file, pdf);
    return fn(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Each page's text as pdftotext -layout lays it out (pages split at form feeds). */
export function pdfPages(pdf: Buffer): string[] {
  return withFile(pdf, (file) => {
    const text = execFileSync("pdftotext", ["-layout", "-enc", "UTF-8", file, "-"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    const pages = text.split("\f");
    // pdftotext ends the last page with a form feed too.
    if (pages.at(-1)?.trim() === "") pages.pop();
    return pages;
  });
}

/** Each page drawn by pdftoppm at `dpi` as a greyscale PGM: its width, height and pixels (0 black … 255 white). */
export function pdfImages(pdf: Buffer, dpi = 40): { width: number; height: number; pixels: Uint8Array }[] {
  return withFile(pdf, (file, dir) => {
    execFileSync("pdftoppm", ["-r", String(dpi), "-gray", file, join(dir, "page")]);
    return readdirSync(dir)
      .filter((f) => f.startsWith("page") && f.endsWith(".pgm"))
      .sort()
      .map((f) => {
        const raw = readFileSync(join(dir, f));
        // P5\n<w> <h>\n<max>\n<bytes>
        const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(raw.subarray(0, 64).toString("latin1"));
        if (!header) throw new Error(`pdftoppm wrote no PGM: ${f}`);
        return { width: Number(header[1]), height: Number(header[2]), pixels: raw.subarray(header[0].length) };
      });
  });
}

/** The raster images the PDF holds, as `pdfimages -list` lists them (page, width, height): a chart drawn as vectors is none. */
export function pdfRasters(pdf: Buffer): { page: number; width: number; height: number }[] {
  return withFile(pdf, (file) =>
    execFileSync("pdfimages", ["-list", file], { encoding: "utf8" })
      .split("\n")
      .slice(2) // the header and its rule
      .filter((l) => l.trim() !== "")
      .map((l) => {
        const [page, , , width, height] = l.trim().split(/\s+/);
        return { page: Number(page), width: Number(width), height: Number(height) };
      }),
  );
}
