/**
 * Field parsers: one CSV field, by its column's kind, to the normalized value the staging CSV holds
 * (integer cents, canonical enum spellings, `YYYY-MM-DD` dates, UTC timestamps), or a reason it is
 * rejected. Hand-written, with fast paths over the characters before any regular expression: they
 * run for every field of every row, millions of times per import. Separate from the row and file
 * checks because they see one value and nothing else.
 */
import { isCalendarDate } from "../../../lib/contract/dates";
import type { ColumnSpec } from "./format";

const MAX_TEXT = 256;
const MAX_INT = 2_147_483_647;

export type Value = string | number | boolean | null;

const INT_RE = /^-?\d+$/;
const MONEY_RE = /^(-?)(\d+)(?:\.(\d+))?$/;
const TS_RE = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

function show(raw: string): string {
  const s = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
  return JSON.stringify(s);
}

const enumMaps = new Map<readonly string[], Map<string, string>>();
function enumMap(values: readonly string[]): Map<string, string> {
  let m = enumMaps.get(values);
  if (!m) {
    m = new Map(values.map((v) => [v.toLowerCase(), v]));
    enumMaps.set(values, m);
  }
  return m;
}

/** True when `s[from, to)` is all ASCII digits (and not empty). */
function allDigits(s: string, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
  }
  return true;
}

/** Value of the digits `s[from, to)` (the caller has checked them; at most 15 of them). */
function digitsValue(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + (s.charCodeAt(i) - 48);
  return n;
}

/** isCalendarDate, remembered: a file holds few distinct dates and millions of rows. */
const calendarDates = new Map<string, boolean>();
function isRealDate(s: string): boolean {
  let ok = calendarDates.get(s);
  if (ok === undefined) {
    ok = isCalendarDate(s);
    if (calendarDates.size > 100_000) calendarDates.clear();
    calendarDates.set(s, ok);
  }
  return ok;
}

/** `YYYY-MM-DD` shape, without allocating. */
function dateShaped(s: string): boolean {
  return (
    s.length === 10 &&
    s.charCodeAt(4) === 45 &&
    s.charCodeAt(7) === 45 &&
    allDigits(s, 0, 4) &&
    allDigits(s, 5, 7) &&
    allDigits(s, 8, 10)
  );
}

/**
 * Validates one field. Returns the normalized value (number for ids, ints and cents; canonical
 * string for enums; `YYYY-MM-DD` for dates; `YYYY-MM-DD HH:MM:SS[.ffffff]` for timestamps; boolean;
 * null for an empty optional field), or `undefined` after pushing a reason to `errs`.
 */
export function parseField(c: ColumnSpec, raw: string | undefined, errs: string[]): Value | undefined {
  if (c.kind === "text") {
    if (raw === undefined || raw.trim() === "") {
      if (c.required) {
        errs.push(`${c.name} is required`);
        return undefined;
      }
      return null;
    }
    if (raw.length > MAX_TEXT) {
      errs.push(`${c.name} is longer than ${MAX_TEXT} characters`);
      return undefined;
    }
    if (raw.includes("\0")) {
      errs.push(`${c.name} contains a NUL character`);
      return undefined;
    }
    return raw;
  }

  const v = raw === undefined ? "" : raw.trim();
  if (v === "") {
    if (c.required) {
      errs.push(`${c.name} is required`);
      return undefined;
    }
    return null;
  }

  switch (c.kind) {
    case "id":
    case "bigid":
    case "int": {
      const min = c.kind === "int" ? (c.min ?? 0) : 1;
      const max = c.kind === "bigid" ? Number.MAX_SAFE_INTEGER : MAX_INT;
      if (v.length <= 15 && allDigits(v, 0, v.length)) {
        const n = digitsValue(v, 0, v.length);
        if (n >= min && n <= max) return n;
      } else if (!INT_RE.test(v)) {
        errs.push(`${c.name} ${show(v)} is not ${c.kind === "int" ? "an integer" : "an integer id"}`);
        return undefined;
      }
      errs.push(`${c.name} ${v} is out of range (${min} to ${max})`);
      return undefined;
    }
    case "money": {
      // Exact: integer arithmetic on the digits, never a float multiplication of the decimal.
      const dot = v.indexOf(".");
      const wholeEnd = dot < 0 ? v.length : dot;
      const fracLen = dot < 0 ? 0 : v.length - dot - 1;
      if (wholeEnd <= 13 && fracLen <= 2 && (dot < 0 || fracLen > 0) && allDigits(v, 0, wholeEnd) && (fracLen === 0 || allDigits(v, dot + 1, v.length))) {
        const whole = digitsValue(v, 0, wholeEnd);
        const frac = fracLen === 0 ? 0 : fracLen === 1 ? digitsValue(v, dot + 1, v.length) * 10 : digitsValue(v, dot + 1, v.length);
        return whole * 100 + frac;
      }
      const m = MONEY_RE.exec(v);
      if (!m) errs.push(`${c.name} ${show(v)} is not an amount (digits with up to 2 decimals, e.g. 19.99)`);
      else if ((m[3] ?? "").length > 2) errs.push(`${c.name} ${show(v)} has more than 2 decimals`);
      else if (m[1] === "-") errs.push(`${c.name} ${show(v)} must not be negative`);
      else if ((m[2] ?? "").replace(/^0+(?=\d)/, "").length > 13) errs.push(`${c.name} ${show(v)} is too large`);
      else {
        // Leading zeros beyond the fast path's width ("0000000000000019.99").
        const whole = (m[2] ?? "").replace(/^0+(?=\d)/, "");
        const frac = (m[3] ?? "").padEnd(2, "0");
        return digitsValue(whole, 0, whole.length) * 100 + digitsValue(frac, 0, 2);
      }
      return undefined;
    }
    case "date": {
      if (!dateShaped(v)) {
        errs.push(`${c.name} ${show(v)} is not a date in YYYY-MM-DD form`);
        return undefined;
      }
      if (!isRealDate(v)) {
        errs.push(`${c.name} ${v} is not a real calendar date`);
        return undefined;
      }
      return v;
    }
    case "timestamp":
      return parseTimestamp(c.name, v, errs);
    case "bool": {
      switch (v) {
        case "true":
        case "1":
          return true;
        case "false":
        case "0":
          return false;
      }
      switch (v.toLowerCase()) {
        case "true":
          return true;
        case "false":
          return false;
      }
      errs.push(`${c.name} ${show(v)} is not a boolean (true, false, 1 or 0)`);
      return undefined;
    }
    case "enum": {
      const values = c.values ?? [];
      const map = enumMap(values);
      const canonical = map.get(v) ?? map.get(v.toLowerCase());
      if (canonical === undefined) {
        errs.push(`${c.name} ${show(v)} is not one of ${values.join(", ")}`);
        return undefined;
      }
      return canonical;
    }
    case "bin":
      if (v.length !== 6 || !allDigits(v, 0, 6)) {
        errs.push(`${c.name} ${show(v)} is not 6 digits`);
        return undefined;
      }
      return v;
    case "mcc":
      if (v.length !== 4 || !allDigits(v, 0, 4)) {
        errs.push(`${c.name} ${show(v)} is not 4 digits`);
        return undefined;
      }
      return v;
  }
  return undefined;
}

/** Fast path for `YYYY-MM-DDTHH:MM:SS`, optionally followed by `Z`. */
function plainTimestamp(v: string): boolean {
  const n = v.length;
  if (n !== 19 && !(n === 20 && (v.charCodeAt(19) === 90 || v.charCodeAt(19) === 122))) return false;
  const sep = v.charCodeAt(10);
  return (
    (sep === 84 || sep === 32 || sep === 116) &&
    v.charCodeAt(13) === 58 &&
    v.charCodeAt(16) === 58 &&
    allDigits(v, 11, 13) &&
    allDigits(v, 14, 16) &&
    allDigits(v, 17, 19) &&
    digitsValue(v, 11, 13) <= 23 &&
    digitsValue(v, 14, 16) <= 59 &&
    digitsValue(v, 17, 19) <= 59
  );
}

function parseTimestamp(name: string, v: string, errs: string[]): string | undefined {
  if (plainTimestamp(v)) {
    const date = v.slice(0, 10);
    if (dateShaped(date) && isRealDate(date)) return `${date} ${v.slice(11, 19)}`;
  }
  const m = TS_RE.exec(v);
  if (!m) {
    errs.push(`${name} ${show(v)} is not an ISO 8601 date and time (e.g. 2025-07-01T13:45:00Z or 2025-07-01 13:45:00)`);
    return undefined;
  }
  const [, date = "", hh = "", mi = "", ss = "00", frac = "", zone = ""] = m;
  if (!isRealDate(date)) {
    errs.push(`${name} ${show(v)} is not a real calendar date`);
    return undefined;
  }
  if (Number(hh) > 23 || Number(mi) > 59 || Number(ss) > 59) {
    errs.push(`${name} ${show(v)} is not a valid time of day`);
    return undefined;
  }
  if (frac.length > 7) {
    errs.push(`${name} ${show(v)} has more than 6 fractional second digits`);
    return undefined;
  }
  if (zone !== "" && zone !== "Z" && zone !== "z" && zone.replace(":", "").slice(1) !== "0000") {
    errs.push(`${name} ${show(v)} has a UTC offset other than zero; give the time in UTC (Z) or without an offset`);
    return undefined;
  }
  return `${date} ${hh}:${mi}:${ss}${frac}`;
}
