/**
 * Workbooks written on the server with exceljs's streaming writer: rows go out to the zip as they are
 * written instead of being kept as cell objects, so a long table's memory is bounded by the zip's
 * buffers and the table's own rows (docs/benchmarks.md: 100,000 rows). Strings are written inline
 * (no shared-strings table that would grow with every distinct label). Every few hundred rows the
 * writer waits while `out` is behind its reader (an HTTP response), so what is buffered stays small.
 */
import ExcelJS from "exceljs";
import { PassThrough, type Writable } from "node:stream";
import { setImmediate as turn } from "node:timers/promises";
import { writeWorkbook, type WorkbookSpec } from "./xlsx";

/** Resolves when `out` takes more, or is gone. */
function drained(out: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off("drain", done);
      out.off("close", done);
      resolve();
    };
    out.once("drain", done);
    out.once("close", done);
  });
}

const GONE = "The workbook's reader went away.";

/** Writes the workbook to `out` as it is made; resolves when the zip is complete, rejects when `out` closes first. */
export async function streamWorkbook(spec: WorkbookSpec, out: Writable): Promise<void> {
  // A reader gone before the end (a download cancelled) leaves the zip with nowhere to go: the
  // writing stops there, instead of waiting for ever on a zip that cannot finish.
  const gone = new Promise<never>((_, reject) => out.once("close", () => (out.writableFinished ? undefined : reject(new Error(GONE)))));
  gone.catch(() => undefined);
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const write = async () => {
    await writeWorkbook(
      {
        addWorksheet: (name, options) => book.addWorksheet(name, options),
        streaming: true,
        drain: async () => {
          await turn();
          // A reader that went away ends the writing; one that is behind holds it.
          if (out.destroyed) throw new Error(GONE);
          if (out.writableNeedDrain) await drained(out);
        },
      },
      spec,
    );
    await book.commit();
  };
  await Promise.race([write(), gone]);
}

/** The workbook's bytes (an e-mail attachment). */
export async function workbookBytes(spec: WorkbookSpec): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const sink = new PassThrough();
  sink.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    sink.on("end", resolve);
    sink.on("error", reject);
  });
  await streamWorkbook(spec, sink);
  await done;
  return Buffer.concat(chunks);
}
