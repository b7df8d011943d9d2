/**
 * The CSV importer (SPEC.md §5): loads a directory of CSV files in the format of
 * docs/import-format.md into the payment tables of schema.ts.
 *
 * All or nothing: every rejected row is reported with its file, physical line and reason, and if
 * there is any, nothing is loaded. Re-importing the same files inserts nothing (rows are keyed by
 * their id; an identical row is skipped, a different row with the same id is rejected).
 *
 * How it works, in two phases:
 *  1. Each file is streamed through a hand-written validator (types, ranges, enumerations,
 *     cross-field rules, duplicate ids within the file). Valid rows are written, normalized (cents,
 *     canonical spellings, derived values) and tagged with their line number, to a temporary CSV.
 *  2. In one transaction, DuckDB reads those temporary files (`read_csv`, explicit types) into
 *     temporary staging tables; SQL checks what needs other files or the database (references,
 *     the customer's initial date, event dates against the attempt, conflicts with existing rows);
 *     if nothing was rejected, the rows already present are dropped from staging, the rest are
 *     inserted, and the new facts are added to the derived tables (`addToDerived`).
 */
import { mkdtemp, open, readdir, rm, stat, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addToDerived } from "./derived";
import { EVENT_FACTS, EVENT_TABLES_LIST } from "./facts";
import { isFactSource, type FactSource } from "../reports/columns";
import type { Database, Tx } from "../db";
import { ALERT_TYPES, CARD_BRANDS, CARD_TYPES, REFUND_TYPES, SALES_TYPES } from "../../lib/contract/catalog";
import { isCalendarDate } from "../../lib/contract/dates";
import { CsvEncodingError, readCsvFile, type CsvRecord } from "./csv";

export interface ImportRejection {
  file: string;
  /** 1-based physical line of the file (the header is line 1); 0 for a problem with the file itself. */
  line: number;
  reason: string;
}

export interface ImportResult {
  ok: boolean;
  /** Rows added, per table (only tables whose file was present). All zero when `ok` is false. */
  inserted: Record<string, number>;
  /** Rows already in the database with identical content, per table. All zero when `ok` is false. */
  skippedDuplicates: Record<string, number>;
  rejections: ImportRejection[];
}

// ---------------------------------------------------------------------------------------------
// The format
// ---------------------------------------------------------------------------------------------

export type ImportTable =
  | "gateways"
  | "campaigns"
  | "products"
  | "bins"
  | "customers"
  | "attempts"
  | "refunds"
  | "chargebacks"
  | "alerts";

type Kind =
  | "id" // INTEGER id, 1 … 2^31-1
  | "bigid" // BIGINT id, 1 … 2^53-1
  | "int" // INTEGER with min
  | "money" // decimal currency units, ≤ 2 decimals → integer cents
  | "date"
  | "timestamp"
  | "bool"
  | "enum"
  | "text" // free text (required: non-blank)
  | "bin" // 6 digits
  | "mcc"; // 4 digits

interface ColumnSpec {
  /** Header name in the CSV. */
  readonly name: string;
  /** Column of the table. */
  readonly db: string;
  readonly kind: Kind;
  readonly required: boolean;
  readonly values?: readonly string[];
  readonly min?: number;
}

interface RefSpec {
  readonly column: string; // db column of this table
  readonly table: ImportTable;
}

interface TableSpec {
  readonly table: ImportTable;
  readonly file: string;
  /** The id column (db name = CSV name). */
  readonly key: string;
  readonly columns: readonly ColumnSpec[];
  readonly refs: readonly RefSpec[];
}

const MAX_TEXT = 256;
const MAX_INT = 2_147_483_647;

const col = (name: string, kind: Kind, required = true, extra: Partial<ColumnSpec> = {}): ColumnSpec => ({
  name,
  db: kind === "money" ? `${name}_cents` : name,
  kind,
  required,
  ...extra,
});

/** In load order: referenced tables first. */
export const TABLES: readonly TableSpec[] = [
  {
    table: "gateways",
    file: "gateways.csv",
    key: "gateway_id",
    columns: [col("gateway_id", "id"), col("gateway_alias", "text"), col("acquirer", "text"), col("mcc", "mcc")],
    refs: [],
  },
  {
    table: "campaigns",
    file: "campaigns.csv",
    key: "campaign_id",
    columns: [col("campaign_id", "id"), col("campaign_name", "text"), col("campaign_type", "text"), col("cpa", "money")],
    refs: [],
  },
  {
    table: "products",
    file: "products.csv",
    key: "product_id",
    columns: [col("product_id", "id"), col("product_name", "text"), col("product_group", "text")],
    refs: [],
  },
  {
    table: "bins",
    file: "bins.csv",
    key: "bin",
    columns: [
      col("bin", "bin"),
      col("bank", "text"),
      col("card_brand", "enum", true, { values: CARD_BRANDS }),
      col("card_type", "enum", true, { values: CARD_TYPES }),
    ],
    refs: [],
  },
  {
    table: "customers",
    file: "customers.csv",
    key: "customer_id",
    columns: [
      col("customer_id", "bigid"),
      col("initial_date", "date"),
      col("campaign_id", "id"),
      col("product_id", "id"),
      col("affid", "text", false),
      col("sub_affid", "text", false),
      col("price_point", "money"),
    ],
    refs: [
      { column: "campaign_id", table: "campaigns" },
      { column: "product_id", table: "products" },
    ],
  },
  {
    table: "attempts",
    file: "attempts.csv",
    key: "attempt_id",
    columns: [
      col("attempt_id", "bigid"),
      col("order_id", "bigid"),
      col("customer_id", "bigid"),
      col("attempted_at", "timestamp"),
      col("attempt_date", "date", false), // derived from attempted_at when absent or empty
      col("attempt_no", "int", true, { min: 1 }),
      col("is_cascade", "bool"),
      col("approved", "bool"),
      col("amount", "money"),
      col("billing_cycle", "int", true, { min: 0 }),
      col("sales_type", "enum", true, { values: SALES_TYPES }),
      col("campaign_id", "id"),
      col("product_id", "id"),
      col("gateway_id", "id"),
      col("bin", "bin"),
      col("affid", "text", false),
      col("sub_affid", "text", false),
      col("price_point", "money"),
      col("initial_date", "date"),
    ],
    refs: [
      { column: "customer_id", table: "customers" },
      { column: "campaign_id", table: "campaigns" },
      { column: "product_id", table: "products" },
      { column: "gateway_id", table: "gateways" },
      { column: "bin", table: "bins" },
    ],
  },
  {
    table: "refunds",
    file: "refunds.csv",
    key: "refund_id",
    columns: [
      col("refund_id", "bigid"),
      col("attempt_id", "bigid"),
      col("refund_date", "date"),
      col("amount", "money"),
      col("refund_type", "enum", true, { values: REFUND_TYPES }),
    ],
    refs: [{ column: "attempt_id", table: "attempts" }],
  },
  {
    table: "chargebacks",
    file: "chargebacks.csv",
    key: "chargeback_id",
    columns: [col("chargeback_id", "bigid"), col("attempt_id", "bigid"), col("cb_date", "date"), col("amount", "money")],
    refs: [{ column: "attempt_id", table: "attempts" }],
  },
  {
    table: "alerts",
    file: "alerts.csv",
    key: "alert_id",
    columns: [
      col("alert_id", "bigid"),
      col("attempt_id", "bigid"),
      col("alert_date", "date"),
      col("amount", "money"),
      col("alert_type", "enum", true, { values: ALERT_TYPES }),
    ],
    refs: [{ column: "attempt_id", table: "attempts" }],
  },
];

/** The date column of the event tables (checked against the attempt's date). */
const EVENT_DATE: Partial<Record<ImportTable, string>> = Object.fromEntries(EVENT_TABLES_LIST.map((t) => [t, EVENT_FACTS[t].date]));

/** Column types of the staging tables (those of schema.ts). */
const SQL_TYPE: Record<Kind, string> = {
  id: "INTEGER",
  bigid: "BIGINT",
  int: "INTEGER",
  money: "BIGINT",
  date: "DATE",
  timestamp: "TIMESTAMP",
  bool: "BOOLEAN",
  enum: "VARCHAR",
  text: "VARCHAR",
  bin: "VARCHAR",
  mcc: "VARCHAR",
};

const SPEC_BY_FILE = new Map(TABLES.map((t) => [t.file, t]));
const SPEC_BY_TABLE = new Map(TABLES.map((t) => [t.table, t]));

function specOf(table: ImportTable): TableSpec {
  const s = SPEC_BY_TABLE.get(table);
  if (!s) throw new Error(`unknown table ${table}`);
  return s;
}

/** CSV name of a table column (`amount_cents` → `amount`). */
function csvName(spec: TableSpec, db: string): string {
  return spec.columns.find((c) => c.db === db)?.name ?? db;
}

// ---------------------------------------------------------------------------------------------
// Field validators (hand-written: they run millions of times)
// ---------------------------------------------------------------------------------------------

type Value = string | number | boolean | null;

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
function parseField(c: ColumnSpec, raw: string | undefined, errs: string[]): Value | undefined {
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

// ---------------------------------------------------------------------------------------------
// Per-table cross-field rules (on the normalized values, indexed like spec.columns)
// ---------------------------------------------------------------------------------------------

type RowCheck = (v: Value[], errs: string[]) => void;

function indexOf(spec: TableSpec, db: string): number {
  const i = spec.columns.findIndex((c) => c.db === db);
  if (i < 0) throw new Error(`${spec.table}.${db} is not a column`);
  return i;
}

const ROW_CHECKS: Partial<Record<ImportTable, RowCheck>> = {
  attempts: (() => {
    const s = specOf("attempts");
    const at = indexOf(s, "attempted_at");
    const ad = indexOf(s, "attempt_date");
    const no = indexOf(s, "attempt_no");
    const cas = indexOf(s, "is_cascade");
    const bc = indexOf(s, "billing_cycle");
    const st = indexOf(s, "sales_type");
    const init = indexOf(s, "initial_date");
    return (v, errs) => {
      const attemptedAt = v[at];
      if (typeof attemptedAt === "string") {
        const day = attemptedAt.slice(0, 10);
        const given = v[ad];
        if (given === null) v[ad] = day;
        else if (typeof given === "string" && given !== day) {
          errs.push(`attempt_date ${given} is not the date of attempted_at (${day})`);
        }
      }
      const attemptNo = v[no];
      if (v[cas] === true && typeof attemptNo === "number" && attemptNo < 2) {
        errs.push(`is_cascade is true but attempt_no is ${attemptNo} (a cascade is a retry: attempt_no 2 or more)`);
      }
      const cycle = v[bc];
      const salesType = v[st];
      if (typeof cycle === "number" && typeof salesType === "string") {
        const initialType = salesType === "Initials" || salesType === "Straight Sales";
        if (cycle === 0 && !initialType) errs.push(`billing_cycle is 0 but sales_type is ${salesType} (billing cycle 0 is Initials or Straight Sales)`);
        if (cycle !== 0 && initialType) errs.push(`billing_cycle is ${cycle} but sales_type is ${salesType} (only billing cycle 0 is Initials or Straight Sales)`);
      }
      const attemptDate = v[ad];
      const initialDate = v[init];
      if (typeof attemptDate === "string" && typeof initialDate === "string" && attemptDate < initialDate) {
        errs.push(`attempt_date ${attemptDate} is before the customer's initial_date ${initialDate}`);
      }
    };
  })(),
};

// ---------------------------------------------------------------------------------------------
// Phase 1: stream-validate one file into a normalized staging CSV
// ---------------------------------------------------------------------------------------------

class Rejections {
  private readonly byKey = new Map<string, ImportRejection>();
  add(file: string, line: number, reason: string): void {
    const k = `${file}\u0000${line}`;
    const prev = this.byKey.get(k);
    if (prev) prev.reason += `; ${reason}`;
    else this.byKey.set(k, { file, line, reason });
  }
  get size(): number {
    return this.byKey.size;
  }
  sorted(): ImportRejection[] {
    const order = (f: string) => {
      const i = TABLES.findIndex((t) => t.file === f);
      return i < 0 ? -1 : i;
    };
    return [...this.byKey.values()].sort((a, b) => order(a.file) - order(b.file) || a.file.localeCompare(b.file) || a.line - b.line);
  }
}

type Key = number | string;

interface FileOutcome {
  spec: TableSpec;
  /** Path of the normalized staging CSV; null when the file failed as a whole. */
  stagingPath: string | null;
  /** Valid rows written to the staging CSV. */
  rows: number;
  /** Ids of rows that were rejected here (so that references to them are not reported twice). */
  rejectedKeys: Set<Key>;
}

class AbortRead extends Error {}

/**
 * Collects output lines, encodes them in batches into large byte buffers (so that no per-row string
 * lives long), and writes those on flush.
 */
class BufferedWriter {
  private static readonly SIZE = 1 << 22;
  private lines: string[] = [];
  private full: Buffer[] = [];
  private buf = Buffer.allocUnsafe(BufferedWriter.SIZE);
  private used = 0;
  constructor(private readonly fh: FileHandle) {}
  write(line: string): void {
    this.lines.push(line);
    if (this.lines.length >= 256) this.encode();
  }
  private encode(): void {
    if (this.lines.length === 0) return;
    const s = this.lines.join("");
    this.lines.length = 0;
    if (this.used + s.length * 3 > this.buf.length) {
      if (this.used > 0) this.full.push(this.buf.subarray(0, this.used));
      this.buf = Buffer.allocUnsafe(Math.max(BufferedWriter.SIZE, s.length * 3));
      this.used = 0;
    }
    this.used += this.buf.write(s, this.used);
  }
  async flushIfLarge(): Promise<void> {
    if (this.full.length > 0) await this.flushFull();
  }
  private async flushFull(): Promise<void> {
    const full = this.full;
    this.full = [];
    for (const b of full) await this.fh.write(b);
  }
  async flush(): Promise<void> {
    this.encode();
    if (this.used > 0) this.full.push(this.buf.subarray(0, this.used));
    this.buf = Buffer.allocUnsafe(0);
    this.used = 0;
    await this.flushFull();
  }
}

function csvText(s: string): string {
  return `"${s.includes('"') ? s.replaceAll('"', '""') : s}"`;
}

function serialize(c: ColumnSpec, v: Value): string {
  if (v === null) return "";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return String(v);
  return c.kind === "text" ? csvText(v) : v;
}

async function validateFile(spec: TableSpec, path: string, stagingPath: string, rejections: Rejections): Promise<FileOutcome> {
  const file = spec.file;
  const outcome: FileOutcome = { spec, stagingPath, rows: 0, rejectedKeys: new Set() };
  const fh = await open(stagingPath, "w");
  const out = new BufferedWriter(fh);
  out.write(["line", ...spec.columns.map((c) => c.db)].join(",") + "\n");

  const ncols = spec.columns.length;
  const keyIndex = indexOf(spec, spec.key);
  const rowCheck = ROW_CHECKS[spec.table];
  const seen = new Map<Key, number>(); // id → line of its first occurrence
  /** For each spec column, its position in the file's records (-1: column absent). */
  let positions: number[] | null = null;
  let width = 0;
  let fileFailed = false;
  const errs: string[] = [];
  const values: Value[] = new Array<Value>(ncols).fill(null);
  const outFields: string[] = new Array<string>(ncols + 1).fill("");

  const onHeader = (r: CsvRecord): void => {
    const problems: string[] = [];
    if (r.error) problems.push(r.error);
    const names = r.fields.map((f) => f.trim().toLowerCase());
    const at = new Map<string, number>();
    names.forEach((name, i) => {
      if (name === "") problems.push(`column ${i + 1} has an empty name`);
      else if (at.has(name)) problems.push(`column ${name} appears twice`);
      else at.set(name, i);
    });
    for (const name of at.keys()) {
      if (spec.columns.some((c) => c.name === name)) continue;
      const asMoney = spec.columns.find((c) => c.kind === "money" && c.db === name);
      problems.push(
        asMoney
          ? `unknown column ${name} (money is given in currency units, in the column ${asMoney.name})`
          : `unknown column ${name}`,
      );
    }
    const missing = spec.columns.filter((c) => c.required && !at.has(c.name)).map((c) => c.name);
    if (missing.length > 0) problems.push(`missing required column${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`);
    if (problems.length > 0) {
      rejections.add(file, r.line, `invalid header: ${problems.join("; ")}`);
      fileFailed = true;
      throw new AbortRead();
    }
    positions = spec.columns.map((c) => at.get(c.name) ?? -1);
    width = r.fields.length;
  };

  /** For a row rejected before its fields were read: remember its id if one can be made out. */
  const noteRejectedKey = (fields: string[], pos: number[]): void => {
    const p = pos[keyIndex] as number;
    const key = parseField(spec.columns[keyIndex] as ColumnSpec, fields[p], []);
    if (key !== undefined && key !== null && typeof key !== "boolean" && !seen.has(key)) outcome.rejectedKeys.add(key);
  };

  const onRow = (r: CsvRecord, pos: number[]): void => {
    const fields = r.fields;
    if (r.error) {
      rejections.add(file, r.line, r.error);
      noteRejectedKey(fields, pos);
      return;
    }
    if (fields.length !== width) {
      rejections.add(file, r.line, `expected ${width} fields (as in the header), found ${fields.length}`);
      noteRejectedKey(fields, pos);
      return;
    }
    errs.length = 0;
    let valid = true;
    for (let i = 0; i < ncols; i++) {
      const p = pos[i] as number;
      const parsed = parseField(spec.columns[i] as ColumnSpec, p < 0 ? undefined : fields[p], errs);
      if (parsed === undefined) {
        valid = false;
        values[i] = null;
      } else values[i] = parsed;
    }
    if (valid && rowCheck) rowCheck(values, errs);
    const key = values[keyIndex] as Key | null;
    if (key !== null && errs.length === 0) {
      const first = seen.get(key);
      if (first !== undefined) errs.push(`${spec.key} ${key} already appears on line ${first}`);
      else seen.set(key, r.line);
    }
    if (errs.length > 0) {
      rejections.add(file, r.line, errs.join("; "));
      if (key !== null && !seen.has(key)) outcome.rejectedKeys.add(key);
      return;
    }
    outFields[0] = String(r.line);
    for (let i = 0; i < ncols; i++) outFields[i + 1] = serialize(spec.columns[i] as ColumnSpec, values[i] as Value);
    out.write(outFields.join(",") + "\n");
    outcome.rows++;
  };

  let sawHeader = false;
  try {
    await readCsvFile(
      path,
      (r) => {
        if (!sawHeader) {
          sawHeader = true;
          onHeader(r);
          return;
        }
        onRow(r, positions as number[]);
      },
      { afterChunk: () => out.flushIfLarge() },
    );
    if (!sawHeader) {
      rejections.add(file, 1, "the file is empty; a header row with the column names is required");
      fileFailed = true;
    }
    await out.flush();
  } catch (err) {
    if (err instanceof CsvEncodingError) {
      rejections.add(file, err.line, err.message);
      fileFailed = true;
    } else if (!(err instanceof AbortRead)) throw err;
  } finally {
    await fh.close();
  }
  if (fileFailed) outcome.stagingPath = null;
  return outcome;
}

// ---------------------------------------------------------------------------------------------
// Phase 2: staging tables, cross-file and database checks, insert
// ---------------------------------------------------------------------------------------------

class RollbackImport extends Error {}

const stagingTable = (t: ImportTable) => `_import_${t}`;

function formatCents(cents: string | number): string {
  const s = String(cents).padStart(3, "0");
  return `${s.slice(0, -2)}.${s.slice(-2)}`;
}

async function stage(tx: Tx, o: FileOutcome): Promise<void> {
  const columns = [`'line': 'INTEGER'`, ...o.spec.columns.map((c) => `'${c.db}': '${SQL_TYPE[c.kind]}'`)].join(", ");
  await tx.run(
    `CREATE TEMP TABLE ${stagingTable(o.spec.table)} AS
     SELECT * FROM read_csv(?, header = true, auto_detect = false, delim = ',', quote = '"', escape = '"',
                            columns = {${columns}})`,
    [o.stagingPath],
  );
}

/** Rows in the staging table whose id exists in the table with different content. */
async function checkConflicts(tx: Tx, o: FileOutcome, rejections: Rejections): Promise<void> {
  const { spec } = o;
  const s = stagingTable(spec.table);
  const key = spec.key;
  const same = spec.columns.map((c) => `t2.${c.db} IS NOT DISTINCT FROM s.${c.db}`).join(" AND ");
  const diff = spec.columns
    .filter((c) => c.db !== key)
    .map((c) => `CASE WHEN t.${c.db} IS DISTINCT FROM s.${c.db} THEN '${c.name}' END`)
    .join(", ");
  const rows = await tx.all<{ line: number; k: string | number; diff: string }>(
    `SELECT s.line, s.${key}::VARCHAR AS k, min(concat_ws(', ', ${diff})) AS diff
     FROM ${s} s JOIN ${spec.table} t ON t.${key} = s.${key}
     WHERE NOT EXISTS (SELECT 1 FROM ${spec.table} t2 WHERE t2.${key} = s.${key} AND ${same})
     GROUP BY s.line, s.${key}`,
  );
  for (const r of rows) {
    rejections.add(spec.file, r.line, `${key} ${r.k} already exists in the database with different values (${r.diff})`);
  }
}

async function checkReferences(
  tx: Tx,
  o: FileOutcome,
  outcomes: Map<ImportTable, FileOutcome>,
  rejections: Rejections,
): Promise<void> {
  const { spec } = o;
  for (const ref of spec.refs) {
    const parent = specOf(ref.table);
    const parentOutcome = outcomes.get(ref.table);
    // The parent file is present but could not be read at all: nothing can be said about its ids.
    if (parentOutcome && parentOutcome.stagingPath === null) continue;
    const inImport = parentOutcome
      ? `AND NOT EXISTS (SELECT 1 FROM ${stagingTable(ref.table)} q WHERE q.${parent.key} = s.${ref.column})`
      : "";
    const rows = await tx.all<{ line: number; k: string | number }>(
      `SELECT s.line, s.${ref.column} AS k FROM ${stagingTable(spec.table)} s
       WHERE NOT EXISTS (SELECT 1 FROM ${ref.table} p WHERE p.${parent.key} = s.${ref.column}) ${inImport}`,
    );
    const where = parentOutcome ? `in ${parent.file} nor in the database` : `in the database (and no ${parent.file} was imported)`;
    const rejected = parentOutcome?.rejectedKeys;
    for (const r of rows) {
      const k: Key = parent.key === "bin" ? String(r.k) : Number(r.k);
      if (rejected?.has(k)) continue; // the referenced row is itself rejected, and reported there
      rejections.add(spec.file, r.line, `${csvName(spec, ref.column)} ${r.k} does not exist: not ${where}`);
    }
  }
}

/** attempts.initial_date must be the customer's initial_date. */
async function checkInitialDates(tx: Tx, outcomes: Map<ImportTable, FileOutcome>, rejections: Rejections): Promise<void> {
  const att = outcomes.get("attempts");
  const cust = outcomes.get("customers");
  if (!att?.stagingPath || (cust && !cust.stagingPath)) return;
  const customers = cust
    ? `SELECT customer_id, initial_date FROM ${stagingTable("customers")}
       UNION ALL
       SELECT customer_id, initial_date FROM customers c
       WHERE NOT EXISTS (SELECT 1 FROM ${stagingTable("customers")} s WHERE s.customer_id = c.customer_id)`
    : `SELECT customer_id, initial_date FROM customers`;
  const rows = await tx.all<{ line: number; customer_id: string; mine: string; theirs: string }>(
    `WITH c AS (${customers})
     SELECT a.line, a.customer_id, a.initial_date AS mine, min(c.initial_date) AS theirs
     FROM ${stagingTable("attempts")} a JOIN c ON c.customer_id = a.customer_id
     WHERE c.initial_date <> a.initial_date
     GROUP BY a.line, a.customer_id, a.initial_date`,
  );
  for (const r of rows) {
    rejections.add(
      "attempts.csv",
      r.line,
      `initial_date ${r.mine} differs from customer ${r.customer_id}'s initial_date ${r.theirs}`,
    );
  }
}

/** Refunds, chargebacks and alerts: on an approved attempt, not before it, for no more than it. */
async function checkEvents(tx: Tx, o: FileOutcome, outcomes: Map<ImportTable, FileOutcome>, rejections: Rejections): Promise<void> {
  const dateCol = EVENT_DATE[o.spec.table];
  if (!dateCol) return;
  const att = outcomes.get("attempts");
  if (att && !att.stagingPath) return;
  const attempts = att
    ? `SELECT attempt_id, attempt_date, approved, amount_cents FROM ${stagingTable("attempts")}
       UNION ALL
       SELECT attempt_id, attempt_date, approved, amount_cents FROM attempts t
       WHERE NOT EXISTS (SELECT 1 FROM ${stagingTable("attempts")} s WHERE s.attempt_id = t.attempt_id)`
    : `SELECT attempt_id, attempt_date, approved, amount_cents FROM attempts`;
  const rows = await tx.all<{
    line: number;
    attempt_id: string;
    d: string;
    amount: string;
    attempt_date: string;
    approved: boolean;
    attempt_amount: string;
  }>(
    `WITH a AS (${attempts})
     SELECT e.line, e.attempt_id, e.${dateCol} AS d, e.amount_cents AS amount,
            a.attempt_date, a.approved, a.amount_cents AS attempt_amount
     FROM ${stagingTable(o.spec.table)} e JOIN a ON a.attempt_id = e.attempt_id
     WHERE e.${dateCol} < a.attempt_date OR NOT a.approved OR e.amount_cents > a.amount_cents
     QUALIFY row_number() OVER (PARTITION BY e.line ORDER BY a.attempt_date) = 1`,
  );
  for (const r of rows) {
    const problems: string[] = [];
    if (!r.approved) problems.push(`attempt ${r.attempt_id} was declined (only an approved charge can be ${eventVerb(o.spec.table)})`);
    if (r.d < r.attempt_date) problems.push(`${dateCol} ${r.d} is before the attempt's date ${r.attempt_date}`);
    if (BigInt(r.amount) > BigInt(r.attempt_amount)) {
      problems.push(`amount ${formatCents(r.amount)} exceeds the attempt's amount ${formatCents(r.attempt_amount)}`);
    }
    for (const p of problems) rejections.add(o.spec.file, r.line, p);
  }
}

function eventVerb(t: ImportTable): string {
  return t === "refunds" ? "refunded" : t === "chargebacks" ? "charged back" : "alerted";
}

// ---------------------------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------------------------

/**
 * Imports the CSV files of `dir` (see docs/import-format.md). Resolves with the outcome; rejects
 * only for problems that are not the data's fault (the directory cannot be read, database errors).
 */
export async function importDirectory(db: Database, dir: string): Promise<ImportResult> {
  const rejections = new Rejections();
  const present: TableSpec[] = [];

  const entries = await readdir(dir, { withFileTypes: true });
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith(".")) continue; // hidden files (.DS_Store, editors' backups)
    const spec = SPEC_BY_FILE.get(e.name);
    if (!spec) {
      const hint = SPEC_BY_FILE.get(e.name.toLowerCase()) ? ` (file names are lower-case: ${e.name.toLowerCase()})` : "";
      rejections.add(e.name, 0, `unexpected file; an import directory holds only ${TABLES.map((t) => t.file).join(", ")}${hint}`);
      continue;
    }
    const st = await stat(join(dir, e.name));
    if (!st.isFile()) {
      rejections.add(e.name, 0, "not a regular file");
      continue;
    }
    present.push(spec);
  }
  present.sort((a, b) => TABLES.indexOf(a) - TABLES.indexOf(b));

  const zero = () => Object.fromEntries(present.map((s) => [s.table, 0])) as Record<string, number>;
  const work = await mkdtemp(join(tmpdir(), "payments-import-"));
  try {
    // Phase 1: validate every file.
    const outcomes = new Map<ImportTable, FileOutcome>();
    for (const spec of present) {
      const o = await validateFile(spec, join(dir, spec.file), join(work, spec.file), rejections);
      outcomes.set(spec.table, o);
    }

    // Phase 2: stage, check, insert; all in one transaction.
    const inserted = zero();
    const skippedDuplicates = zero();
    try {
      await db.transaction(async (tx) => {
        const staged = [...outcomes.values()].filter((o) => o.stagingPath !== null);
        for (const o of staged) await stage(tx, o);
        for (const o of staged) {
          await checkConflicts(tx, o, rejections);
          await checkReferences(tx, o, outcomes, rejections);
          await checkEvents(tx, o, outcomes, rejections);
        }
        await checkInitialDates(tx, outcomes, rejections);
        if (rejections.size > 0) throw new RollbackImport();

        // Rows already in the database are skipped (identical: checkConflicts rejected the others),
        // so each staging table ends holding exactly the rows this import adds.
        const added: Partial<Record<FactSource, string>> = {};
        for (const o of staged) {
          const { table, key, columns } = o.spec;
          const s = stagingTable(table);
          const dup = await tx.all<{ n: string | number }>(
            `SELECT count(*) AS n FROM ${s} s WHERE EXISTS (SELECT 1 FROM ${table} t WHERE t.${key} = s.${key})`,
          );
          skippedDuplicates[table] = Number(dup[0]?.n ?? 0);
          inserted[table] = o.rows - (skippedDuplicates[table] ?? 0);
          await tx.run(`DELETE FROM ${s} s WHERE EXISTS (SELECT 1 FROM ${table} t WHERE t.${key} = s.${key})`);
          const names = columns.map((c) => c.db).join(", ");
          await tx.run(`INSERT INTO ${table} (${names}) SELECT ${names} FROM ${s}`);
          if (isFactSource(table)) {
            // Whole rows, with the columns the table computes itself.
            const rows = `added_${table}`;
            await tx.run(`CREATE TEMP TABLE ${rows} AS SELECT * FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${s})`);
            added[table] = rows;
          }
        }
        await addToDerived(tx, added);
        for (const o of staged) await tx.run(`DROP TABLE ${stagingTable(o.spec.table)}`);
        for (const rows of Object.values(added)) await tx.run(`DROP TABLE ${rows}`);
      });
    } catch (err) {
      if (!(err instanceof RollbackImport)) throw err;
    }

    if (rejections.size > 0) {
      return { ok: false, inserted: zero(), skippedDuplicates: zero(), rejections: rejections.sorted() };
    }
    return { ok: true, inserted, skippedDuplicates, rejections: [] };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
