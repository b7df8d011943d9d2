/**
 * The streaming writer follows its reader: while nobody reads, it stops taking rows (what is
 * buffered stays small, the workbook unfinished after thousands of turns); once read it finishes,
 * and the file holds every row; a reader that goes away ends the writing with an error instead of a
 * writer waiting for ever.
 */
import { PassThrough } from "node:stream";
import { setImmediate as turn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { readWorkbook } from "@/lib/report/table/testing/xlsx";
import type { ExportSheet } from "./csv";
import { singleTableBook } from "./xlsx";
import { streamWorkbook } from "./xlsx-stream";

const ROWS = 20_000;
const sheet: ExportSheet = {
  lines: [["Report", "Order summary"]],
  header: ["BIN", "Attempts", "Revenue (USD)"],
  kinds: ["text", "count", "currency"],
  rows: Array.from({ length: ROWS }, (_, i) => [`label ${i} ${"x".repeat(i % 40)}`, i, i * 1.25]),
  totals: ["Totals", ROWS, 0],
};
/** The furthest row the writer has taken: the sheet's rows read through a proxy that counts. */
let furthest = -1;
const counted: ExportSheet = {
  ...sheet,
  rows: new Proxy(sheet.rows, {
    get(target, key, receiver) {
      if (typeof key === "string" && /^\d+$/.test(key)) furthest = Math.max(furthest, Number(key));
      return Reflect.get(target, key, receiver) as unknown;
    },
  }),
};
const spec = singleTableBook("Order summary", counted);

describe("the streaming writer and its reader", () => {
  it("stops writing while nobody reads, then finishes with every row once read", async () => {
    const out = new PassThrough();
    let finished = false;
    const writing = streamWorkbook(spec, out).then(() => (finished = true));
    for (let i = 0; i < 2_000; i++) await turn();
    expect(finished).toBe(false);
    // Left to itself the writer takes every row within a few dozen turns; held by its reader it
    // stops a few thousand rows in (5,500 of 20,000 here), whatever is buffered inside the zip.
    expect(furthest).toBeGreaterThan(0);
    expect(furthest).toBeLessThan(ROWS / 2);
    // What waits in the response's buffers is a few chunks, not the file (about 1 MiB compressed).
    expect(out.readableLength + out.writableLength).toBeLessThan(256 * 1024);
    const chunks: Buffer[] = [];
    const ended = new Promise((resolve) => out.once("end", resolve));
    out.on("data", (c: Buffer) => chunks.push(c));
    await writing;
    await ended;
    const book = await readWorkbook(Buffer.concat(chunks));
    expect(book.getWorksheet("Order summary")!.rowCount).toBe(ROWS + 2);
  });

  it("ends with an error when the reader goes away before the end of a short table", async () => {
    const out = new PassThrough();
    const writing = streamWorkbook(singleTableBook("Order summary", { ...sheet, rows: sheet.rows.slice(0, 10) }), out);
    out.destroy();
    await expect(writing).rejects.toThrow("The workbook's reader went away.");
  });

  it("ends with an error when the reader goes away", async () => {
    const out = new PassThrough();
    const writing = streamWorkbook(spec, out);
    for (let i = 0; i < 50; i++) await turn();
    out.destroy();
    await expect(writing).rejects.toThrow("The workbook's reader went away.");
  });
});
