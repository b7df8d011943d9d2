/**
 * A small streaming CSV reader for RFC 4180 files (comma-separated, `"`-quoted, `""` for a quote
 * inside a quoted field, line breaks allowed inside quoted fields), that reports for every record
 * the 1-based physical line on which it starts.
 *
 * - Records end at LF or CRLF. A CR that is not followed by LF is an ordinary character.
 * - Line breaks inside a quoted field are kept exactly as written (LF or CRLF) and counted as lines.
 * - A leading UTF-8 byte-order mark is dropped; bytes that are not valid UTF-8 are an error.
 * - Completely empty lines (outside quotes) produce no record.
 * - Malformed quoting (a quote inside an unquoted field, text after a closing quote, a quoted field
 *   that is never closed) does not stop the reader: the record is delivered with `error` set, and
 *   reading resumes with the next record.
 */
import { createReadStream } from "node:fs";

export interface CsvRecord {
  /** The fields, unquoted. */
  fields: string[];
  /** 1-based physical line on which the record starts. */
  line: number;
  /** Set when the record's quoting is malformed; `fields` is then a best effort. */
  error?: string;
}

const QUOTE = 34; // "
const COMMA = 44; // ,
const LF = 10;
const CR = 13;

/**
 * Push-style parser: feed text with `push`, then call `end`. Records are delivered to `onRecord`
 * synchronously, in order.
 */
export class CsvParser {
  private buf = "";
  /** Physical line number of the first character of `buf`. */
  private line = 1;
  private ended = false;

  constructor(private readonly onRecord: (r: CsvRecord) => void) {}

  push(text: string): void {
    if (this.ended) throw new Error("CsvParser: push after end");
    this.buf = this.buf.length === 0 ? text : this.buf + text;
    this.parse(false);
  }

  /** The physical line the next unparsed character is on. */
  get currentLine(): number {
    return this.line + countLineBreaks(this.buf);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.parse(true);
    this.buf = "";
  }

  /**
   * Parses as many complete records from `buf` as it can. Unless `final`, a record that might
   * continue past the end of the buffer is left in the buffer for the next chunk.
   */
  private parse(final: boolean): void {
    const s = this.buf;
    const n = s.length;
    let pos = 0;
    let line = this.line;

    records: while (pos < n) {
      const start = pos;
      const startLine = line;
      const fields: string[] = [];
      let error: string | undefined;
      let p = pos;
      let lines = 0; // line breaks consumed inside this record (excluding its terminator)

      // Completely empty line: skip it.
      const c0 = s.charCodeAt(p);
      if (c0 === LF) {
        pos = p + 1;
        line++;
        continue;
      }
      if (c0 === CR) {
        if (p + 1 >= n && !final) break;
        if (s.charCodeAt(p + 1) === LF) {
          pos = p + 2;
          line++;
          continue;
        }
      }

      for (;;) {
        // At the start of a field.
        if (p < n && s.charCodeAt(p) === QUOTE) {
          // Quoted field.
          let value = "";
          let q = p + 1;
          for (;;) {
            const close = s.indexOf('"', q);
            if (close === -1) {
              if (!final) break records; // need more text
              // Unterminated: take everything to the end of the input.
              const rest = s.slice(q);
              value += rest;
              lines += countLineBreaks(rest);
              error ??= `unterminated quoted field (the quote opened on line ${startLine + countLineBreaks(s.slice(start, p))} is never closed)`;
              fields.push(value);
              this.emit(fields, startLine, error);
              pos = n;
              line = startLine + lines;
              break records;
            }
            const chunk = s.slice(q, close);
            value += chunk;
            lines += countLineBreaks(chunk);
            if (close + 1 >= n && !final) break records; // is it `""` or the end? need more text
            if (s.charCodeAt(close + 1) === QUOTE) {
              value += '"';
              q = close + 2;
              continue;
            }
            p = close + 1;
            break;
          }
          // After the closing quote: a comma, a line end, or the end of input.
          if (p < n) {
            const c = s.charCodeAt(p);
            if (c === CR && p + 1 >= n && !final) break records; // CRLF split across chunks?
            if (c !== COMMA && c !== LF && !(c === CR && p + 1 < n && s.charCodeAt(p + 1) === LF)) {
              error ??= `unexpected text after the closing quote of field ${fields.length + 1}`;
              // Best effort: the rest up to the next delimiter belongs to this field.
              let e = p;
              while (e < n) {
                const d = s.charCodeAt(e);
                if (d === COMMA || d === LF || (d === CR && e + 1 < n && s.charCodeAt(e + 1) === LF)) break;
                e++;
              }
              if (e >= n && !final) break records;
              value += s.slice(p, e);
              p = e;
            }
          }
          fields.push(value);
        } else {
          // Unquoted field: up to the next comma or line end.
          let e = p;
          let sawQuote = false;
          while (e < n) {
            const d = s.charCodeAt(e);
            if (d === COMMA || d === LF) break;
            if (d === CR) {
              if (e + 1 >= n) {
                if (!final) break records;
              } else if (s.charCodeAt(e + 1) === LF) break;
            }
            if (d === QUOTE) sawQuote = true;
            e++;
          }
          if (e >= n && !final) break records; // the field (and record) may continue
          if (sawQuote) error ??= `a quote inside unquoted field ${fields.length + 1} (quote the whole field and double the quote)`;
          fields.push(s.slice(p, e));
          p = e;
        }

        // After a field.
        if (p >= n) {
          // End of input (final): the last record has no terminator.
          this.emit(fields, startLine, error);
          pos = n;
          line = startLine + lines;
          break records;
        }
        const c = s.charCodeAt(p);
        if (c === COMMA) {
          p++;
          if (p >= n && !final) break records;
          continue;
        }
        // LF or CRLF
        p += c === CR ? 2 : 1;
        this.emit(fields, startLine, error);
        pos = p;
        line = startLine + lines + 1;
        continue records;
      }
    }

    this.buf = pos >= n ? "" : s.slice(pos);
    this.line = line;
  }

  private emit(fields: string[], line: number, error: string | undefined): void {
    this.onRecord(error === undefined ? { fields, line } : { fields, line, error });
  }
}

function countLineBreaks(s: string): number {
  // A CRLF is one line break; so is a lone LF. A lone CR is not.
  let k = 0;
  let i = s.indexOf("\n");
  while (i !== -1) {
    k++;
    i = s.indexOf("\n", i + 1);
  }
  return k;
}

/** Parses a whole string (for tests and small inputs). */
export function parseCsv(text: string): CsvRecord[] {
  const out: CsvRecord[] = [];
  const p = new CsvParser((r) => out.push(r));
  p.push(text);
  p.end();
  return out;
}

export class CsvEncodingError extends Error {
  constructor(readonly line: number) {
    super(`the file is not valid UTF-8 (invalid bytes on line ${line})`);
  }
}

/** Offset of the first byte of `b` that does not belong to a well-formed UTF-8 sequence (or `b.length`). */
function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i] as number;
    let n: number;
    let min: number;
    if (c < 0x80) {
      i++;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) [n, min] = [1, 0x80];
    else if (c >= 0xe0 && c <= 0xef) [n, min] = [2, 0x800];
    else if (c >= 0xf0 && c <= 0xf4) [n, min] = [3, 0x10000];
    else return i;
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const d = b[i + k];
      if (d === undefined || (d & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return b.length;
}

function countByte(b: Uint8Array, byte: number, end: number): number {
  let k = 0;
  for (let i = 0; i < end; i++) if (b[i] === byte) k++;
  return k;
}

/**
 * Streams a UTF-8 file record by record. `onRecord` is called synchronously for each record;
 * `afterChunk` (if given) is awaited after each chunk of input, which is the place for
 * back-pressure (e.g. flushing what `onRecord` produced). Throws `CsvEncodingError` (naming the
 * line) on bytes that are not UTF-8.
 */
export async function readCsvFile(
  path: string,
  onRecord: (r: CsvRecord) => void,
  options: { highWaterMark?: number; afterChunk?: () => Promise<void> } = {},
): Promise<void> {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  const parser = new CsvParser(onRecord);
  const stream = createReadStream(path, { highWaterMark: options.highWaterMark ?? 1 << 20 });
  try {
    for await (const chunk of stream) {
      const bytes = chunk as Buffer;
      let text: string;
      try {
        text = decoder.decode(bytes, { stream: true });
      } catch {
        // Where in this chunk? (If nowhere, a sequence begun in the previous chunk was cut short.)
        const at = firstInvalidUtf8(bytes);
        throw new CsvEncodingError(parser.currentLine + countByte(bytes, 10, at === bytes.length ? 0 : at));
      }
      if (text.length > 0) parser.push(text);
      if (options.afterChunk) await options.afterChunk();
    }
    let tail: string;
    try {
      tail = decoder.decode();
    } catch {
      throw new CsvEncodingError(parser.currentLine); // a sequence cut off by the end of the file
    }
    if (tail.length > 0) parser.push(tail);
    parser.end();
  } finally {
    stream.destroy();
  }
}
