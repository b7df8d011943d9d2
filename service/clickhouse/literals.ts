/**
 * Values written into ClickHouse SQL as literals, for servers without query parameters
 * (ClickHouse 18.16 has none). Where the server has parameters, bind them there instead.
 *
 * This is the only place a request's value becomes SQL text, so it is kept small enough to audit:
 *
 * - A value is one of three kinds, each checked again here against what the contract lets through
 *   (lib/contract/requests.ts): a calendar date (that ClickHouse can read), an integer, a string of
 *   at most LIMITS.maxStringFilterLength UTF-16 units (catalog enumerations and BINs are shorter).
 *   Anything else throws a LiteralError: the schemas validated the request already, so a value that
 *   fails here is a programming error, never an answer to send.
 * - A string is written in single quotes with ONLY three forms inside: a letter, mark, number,
 *   punctuation, symbol or space standing for itself; `\\` and `\'`; and `\xHH`, one byte of the
 *   character's UTF-8 form, for every other character (controls, NUL, line and paragraph
 *   separators, format and private-use characters...). ClickHouse reads exactly two hex digits
 *   after `\x` (IO/ReadHelpers.cpp, parseComplexEscapeSequence), so what follows cannot extend it.
 *   Inside the quotes only the bytes `\` and `'` mean anything to ClickHouse's lexer and both are
 *   always escaped, so a string cannot end its literal early, whatever it holds.
 * - A lone UTF-16 surrogate (a JSON body may hold one: "\ud800", and the schemas let it through) has
 *   no UTF-8 form. It is written as U+FFFD, as Node's UTF-8 encoding (Buffer, TextEncoder, HTTP
 *   bodies) and DuckDB's bound parameters write it, so a filter on it means on ClickHouse what it
 *   means on DuckDB.
 * - An integer is written in decimal; a negative one in parentheses, `(-1)`, so that `x - $1` can
 *   never become `x --1`, a comment.
 * - A date is written `toDate('YYYY-MM-DD')`, and only within DATE_RANGE: ClickHouse 18.16 reads any
 *   other date string as day 0 (1970-01-01) without an error, so `toDate('1969-12-31')` and
 *   `toDate('2106-01-01')` would silently mean 1970-01-01. The contract accepts such dates; the
 *   compiler clamps a range to DATE_RANGE (no row lies outside it) before it makes literals.
 */
import { LIMITS } from "@/lib/contract/catalog";
import { isCalendarDate } from "@/lib/contract/dates";
import type { Literal } from "../reports/compiler";

export type LiteralKind = "date" | "int" | "text";

/**
 * The longest string the contract lets reach a query: a string filter value
 * (z.string().max(LIMITS.maxStringFilterLength), counted like `String.length` in UTF-16 units).
 * Enumeration values and BINs (6 to 8 digits) are shorter.
 */
export const MAX_TEXT_LENGTH = LIMITS.maxStringFilterLength;

/**
 * The dates ClickHouse 18.16 reads from a string (checked against the server: `2105-12-31` is read,
 * `2106-01-01` is day 0; the Date type itself reaches 2106-02-06, newer versions 2149-06-06). Note
 * that 18.16 also writes day 0, 1970-01-01, as `0000-00-00` in its output.
 */
export const DATE_RANGE = { min: "1970-01-01", max: "2105-12-31" } as const;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export class LiteralError extends Error {
  override name = "LiteralError";
}

/** A short, printable picture of a refused value for the error message. */
function show(v: unknown): string {
  if (typeof v === "bigint") return `${v}n`;
  const s = typeof v === "string" ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v) : String(v);
  return `${typeof v} ${s}`;
}

/** The literal's kind, after checking it has exactly one of the three keys. */
export function literalKind(v: Literal): LiteralKind {
  const keys = v !== null && typeof v === "object" ? Object.keys(v) : [];
  const kind = keys[0];
  if (keys.length !== 1 || (kind !== "date" && kind !== "int" && kind !== "text")) {
    throw new LiteralError(`not a literal: ${show(v)} (keys ${JSON.stringify(keys)})`);
  }
  return kind;
}

/** The SQL text of a literal; throws a LiteralError for a value the contract would not have let through. */
export function renderLiteral(v: Literal): string {
  const kind = literalKind(v);
  if (kind === "date") {
    const d = (v as { date: unknown }).date;
    // isCalendarDate is the contract's own check: ^\d{4}-\d{2}-\d{2}$ (ASCII digits) and a real day.
    if (typeof d !== "string" || !isCalendarDate(d)) throw new LiteralError(`not a calendar date: ${show(d)}`);
    // YYYY-MM-DD strings compare as their dates do.
    if (d < DATE_RANGE.min || d > DATE_RANGE.max) {
      throw new LiteralError(`the date ${d} is outside ClickHouse's ${DATE_RANGE.min} to ${DATE_RANGE.max}`);
    }
    return `toDate(${quote(d)})`;
  }
  if (kind === "int") {
    const n = (v as { int: unknown }).int;
    const ok =
      (typeof n === "number" && Number.isSafeInteger(n)) || (typeof n === "bigint" && n >= INT64_MIN && n <= INT64_MAX);
    if (!ok) throw new LiteralError(`not a safe integer or an Int64: ${show(n)}`);
    const i = n as number | bigint;
    // A safe integer's toString is plain digits (no exponent below 1e21); -0 prints as 0.
    return i < 0 ? `(-${(-i).toString()})` : i.toString();
  }
  const s = (v as { text: unknown }).text;
  if (typeof s !== "string") throw new LiteralError(`not a string: ${show(s)}`);
  if (s.length > MAX_TEXT_LENGTH) throw new LiteralError(`a string of ${s.length} UTF-16 units, more than ${MAX_TEXT_LENGTH}`);
  return quote(s);
}

/** Characters written as themselves inside the quotes (`\` and `'` are escaped before this test). */
const VISIBLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const utf8 = new TextEncoder();

function quote(s: string): string {
  let out = "'";
  for (const ch of s) {
    // `for of` walks code points: a surrogate pair comes as one, a lone surrogate alone.
    if (ch === "\\" || ch === "'") out += `\\${ch}`;
    else if (ch.length === 1 && ch >= "\uD800" && ch <= "\uDFFF") out += "\\xEF\\xBF\\xBD"; // lone surrogate → U+FFFD
    else if (VISIBLE.test(ch)) out += ch;
    else for (const byte of utf8.encode(ch)) out += `\\x${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return `${out}'`;
}

/**
 * A placeholder: `$n` (n from 1, no leading zero), optionally with the cast the compiler writes
 * (`$3::DATE`). ClickHouse 18.16 has no `::`, so the cast is dropped after checking that the value
 * is of its kind: DATE a date, BIGINT or INTEGER an integer, VARCHAR a string. Any other cast throws.
 */
const PLACEHOLDER = /\$([1-9][0-9]*)(?:::([A-Za-z]+))?/y;
const CASTS: ReadonlyMap<string, LiteralKind> = new Map([["DATE", "date"], ["BIGINT", "int"], ["INTEGER", "int"], ["VARCHAR", "text"]]);
/**
 * The characters a placeholder may sit between (besides the statement's start and end). A literal
 * starts with `'`, a digit, `(` or `t`, and ends with `'`, a digit or `)`; beside these characters
 * none of them can join a neighbouring token (`5.5`, `a5`, `'a''b'`, `--`, `/*`).
 */
const DELIMITERS = new Set([..." \t\n\r(),[]=<>+-*/%"]);

/**
 * `sql` with each placeholder `$n` replaced by the rendering of `values[n - 1]`. Throws a
 * LiteralError for a value renderLiteral refuses, a placeholder without a value (`$0`, past the
 * end), a value no placeholder uses, a `$` that is not a placeholder, a placeholder glued to a
 * neighbouring token, an unterminated quote, or a comment: the statement is our own text and has
 * none, and rejecting them spares this scan from knowing how each version nests them.
 * A `$n` inside a string literal or quoted identifier is text, and is left as it is.
 */
export function bindLiterals(sql: string, values: readonly Literal[]): string {
  const rendered = values.map(renderLiteral);
  const used = values.map(() => false);
  let out = "";
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"' || c === "`") {
      const end = endOfQuoted(sql, i);
      out += sql.slice(i, end);
      i = end;
    } else if ((c === "-" && sql[i + 1] === "-") || (c === "/" && sql[i + 1] === "*") || c === "#") {
      throw new LiteralError(`a comment at ${i} of the statement`);
    } else if (c === "$") {
      PLACEHOLDER.lastIndex = i;
      const m = PLACEHOLDER.exec(sql);
      if (!m) throw new LiteralError(`a "$" that is not a placeholder at ${i} of the statement`);
      const end = i + m[0].length;
      const [before, after] = [sql[i - 1], sql[end]];
      if ((before !== undefined && !DELIMITERS.has(before)) || (after !== undefined && !DELIMITERS.has(after))) {
        throw new LiteralError(`placeholder ${m[0]} at ${i} is not set apart from its neighbours`);
      }
      const n = Number(m[1]);
      const text = rendered[n - 1];
      if (text === undefined) throw new LiteralError(`placeholder ${m[0]} has no value (${values.length} given)`);
      const cast = m[2];
      if (cast !== undefined) {
        const want = CASTS.get(cast);
        if (want === undefined) throw new LiteralError(`placeholder ${m[0]}: no ClickHouse form for the cast ${cast}`);
        const kind = literalKind(values[n - 1]!);
        if (kind !== want) throw new LiteralError(`placeholder ${m[0]} is given a ${kind}`);
      }
      used[n - 1] = true;
      out += text;
      i = end;
    } else {
      out += c;
      i++;
    }
  }
  const unused = used.indexOf(false);
  if (unused >= 0) throw new LiteralError(`value ${unused + 1} has no placeholder $${unused + 1}`);
  return out;
}

/**
 * The index just past the quoted string or identifier opening at `start`, read as ClickHouse's lexer
 * reads it: a backslash takes the next character with it, and a doubled quote (`''`) closes and
 * reopens, which this scan treats alike.
 */
function endOfQuoted(sql: string, start: number): number {
  const q = sql[start];
  for (let j = start + 1; j < sql.length; j++) {
    if (sql[j] === "\\") j++;
    else if (sql[j] === q) return j + 1;
  }
  throw new LiteralError(`an unterminated ${q} quote at ${start} of the statement`);
}
