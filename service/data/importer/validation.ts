/**
 * Everything that can reject a row, and the rejections themselves, in two phases:
 *  1. `validateFile` streams a file through the field parsers (fields.ts) and the per-table
 *     cross-field rules (ROW_CHECKS), catching duplicate ids within the file, and writes the valid
 *     rows to a staging CSV.
 *  2. `checkStaged` runs in SQL on the staging tables (load.ts) what needs other files or the
 *     database: references, the customer's initial date, event dates against the attempt,
 *     conflicts with existing rows.
 * A row rejected in phase 1 is not reported again by the rows that reference it.
 */
import { open } from "node:fs/promises";
import type { Row, SqlParam, Tx } from "../../db";
import { CsvEncodingError, readCsvFile, type CsvRecord } from "../csv";
import { EVENT_FACTS, EVENT_TABLES_LIST } from "../../reports/facts";
import { parseField, type Value } from "./fields";
import { csvName, specOf, TABLES, type ColumnSpec, type ImportTable, type TableSpec } from "./format";
import { BufferedWriter, rejectedKeysTable, serialize, stagingTable } from "./load";

export interface ImportRejection {
  file: string;
  /** 1-based physical line of the file (the header is line 1); 0 for a problem with the file itself. */
  line: number;
  reason: string;
}

/** Rejected rows reported with their reasons, at most: the first in file and line order. */
export const REPORTED_REJECTIONS = 1000;

/**
 * The rejected rows: how many, and the first `limit` of them (in file and line order) with their
 * reasons. A file of millions of bad rows (a date column in the wrong format) is one mistake to fix,
 * and keeping every rejection would grow with the file: a JavaScript Map stops at 2^24 entries.
 * Rows are counted where they are found: phase 1 as it rejects each (`reject`), phase 2 in SQL
 * (`countRows`), a row failing several checks once.
 */
export class Rejections {
  private readonly kept = new Map<string, ImportRejection>();
  /** Once trimmed: no row after this one can be among the first `limit`. */
  private last: ImportRejection | null = null;
  private counted = 0;

  constructor(readonly limit = REPORTED_REJECTIONS) {}

  /** A row rejected for the first time, and why: counted, and kept if among the first. */
  reject(file: string, line: number, reason: string): void {
    this.counted++;
    this.add(file, line, reason);
  }

  /** A reason for a row counted elsewhere (`countRows`); added to its other reasons. */
  add(file: string, line: number, reason: string): void {
    const k = `${file}\u0000${line}`;
    const prev = this.kept.get(k);
    if (prev) {
      prev.reason += `; ${reason}`;
      return;
    }
    const r = { file, line, reason };
    if (this.last && compareRejections(r, this.last) > 0) return;
    this.kept.set(k, r);
    if (this.kept.size >= 2 * this.limit) this.trim();
  }

  countRows(n: number): void {
    this.counted += n;
  }

  /** Rows rejected. */
  get size(): number {
    return this.counted;
  }

  /** The first `limit` rejected rows, in file and line order. */
  sorted(): ImportRejection[] {
    return [...this.kept.values()].sort(compareRejections).slice(0, this.limit);
  }

  private trim(): void {
    const first = this.sorted();
    this.kept.clear();
    for (const r of first) this.kept.set(`${r.file}\u0000${r.line}`, r);
    this.last = first.at(-1) ?? null;
  }
}

function compareRejections(a: ImportRejection, b: ImportRejection): number {
  const order = (f: string) => TABLES.findIndex((t) => t.file === f);
  return order(a.file) - order(b.file) || a.file.localeCompare(b.file) || a.line - b.line;
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

type Key = number | string;

export interface FileOutcome {
  spec: TableSpec;
  /** Path of the normalized staging CSV; null when the file failed as a whole. */
  stagingPath: string | null;
  /** Valid rows written to the staging CSV. */
  rows: number;
  /**
   * Path of a CSV of the ids of rows rejected here (`id`), staged beside the rows so that references
   * to them are not reported twice; written when `stagingPath` is.
   */
  rejectedKeysPath: string;
}

class AbortRead extends Error {}

export async function validateFile(spec: TableSpec, path: string, stagingPath: string, rejections: Rejections): Promise<FileOutcome> {
  const file = spec.file;
  const outcome: FileOutcome = { spec, stagingPath, rows: 0, rejectedKeysPath: `${stagingPath}.rejected` };
  const fh = await open(stagingPath, "w");
  const out = new BufferedWriter(fh);
  out.write(["line", ...spec.columns.map((c) => c.db)].join(",") + "\n");
  const ncols = spec.columns.length;
  const keyIndex = indexOf(spec, spec.key);
  const keyColumn = spec.columns[keyIndex] as ColumnSpec;
  const keysFh = await open(outcome.rejectedKeysPath, "w");
  const rejectedKeys = new BufferedWriter(keysFh);
  rejectedKeys.write("id\n");
  const noteKey = (key: Key) => rejectedKeys.write(`${serialize(keyColumn, key)}\n`);
  const rowCheck = ROW_CHECKS[spec.table];
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
      rejections.reject(file, r.line, `invalid header: ${problems.join("; ")}`);
      fileFailed = true;
      throw new AbortRead();
    }
    positions = spec.columns.map((c) => at.get(c.name) ?? -1);
    width = r.fields.length;
  };

  /** For a row rejected before its fields were read: remember its id if one can be made out. */
  const noteRejectedKey = (fields: string[], pos: number[]): void => {
    const p = pos[keyIndex] as number;
    const key = parseField(keyColumn, fields[p], []);
    if (key !== undefined && key !== null && typeof key !== "boolean") noteKey(key);
  };

  const onRow = (r: CsvRecord, pos: number[]): void => {
    const fields = r.fields;
    if (r.error) {
      rejections.reject(file, r.line, r.error);
      noteRejectedKey(fields, pos);
      return;
    }
    if (fields.length !== width) {
      rejections.reject(file, r.line, `expected ${width} fields (as in the header), found ${fields.length}`);
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
    // The same id twice in the file is found in the staging table (checkDuplicates): a map of every
    // id seen would grow with the file, and a JavaScript Map stops at 2^24 entries.
    const key = values[keyIndex] as Key | null;
    if (errs.length > 0) {
      rejections.reject(file, r.line, errs.join("; "));
      if (key !== null) noteKey(key);
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
      { afterChunk: async () => {
        await out.flushIfLarge();
        await rejectedKeys.flushIfLarge();
      } },
    );
    if (!sawHeader) {
      rejections.reject(file, 1, "the file is empty; a header row with the column names is required");
      fileFailed = true;
    }
    await out.flush();
    await rejectedKeys.flush();
  } catch (err) {
    if (err instanceof CsvEncodingError) {
      rejections.reject(file, err.line, err.message);
      fileFailed = true;
    } else if (!(err instanceof AbortRead)) throw err;
  } finally {
    await fh.close();
    await keysFh.close();
  }
  if (fileFailed) outcome.stagingPath = null;
  return outcome;
}

// ---------------------------------------------------------------------------------------------
// Phase 2: cross-file and database checks on the staging tables
// ---------------------------------------------------------------------------------------------

/** The checks of the staged files (those read whole) against each other and the database. */
export async function checkStaged(
  tx: Tx,
  staged: readonly FileOutcome[],
  outcomes: Map<ImportTable, FileOutcome>,
  rejections: Rejections,
): Promise<void> {
  await tx.run("CREATE TEMP TABLE import_rejected_lines (file VARCHAR, line INTEGER)");
  for (const o of staged) {
    await checkDuplicates(tx, o, rejections);
    await checkConflicts(tx, o, rejections);
    await checkReferences(tx, o, outcomes, rejections);
    await checkEvents(tx, o, outcomes, rejections);
  }
  await checkInitialDates(tx, outcomes, rejections);
  const [row] = await tx.all<{ n: number }>("SELECT count(*)::INTEGER AS n FROM (SELECT DISTINCT file, line FROM import_rejected_lines)");
  rejections.countRows(row?.n ?? 0);
  await tx.run("DROP TABLE import_rejected_lines");
}

/**
 * The rows of `sql` (a SELECT with a `line` column), rows of `file` that a check rejects: every one
 * is counted (in import_rejected_lines), and the first in line order are returned, as many as can be
 * reported, for the check to give its reasons.
 */
async function rejectedRows<T extends Row>(tx: Tx, rejections: Rejections, file: string, sql: string, params: SqlParam[] = []): Promise<T[]> {
  await tx.run(`CREATE TEMP TABLE import_check AS ${sql}`, params);
  try {
    await tx.run("INSERT INTO import_rejected_lines SELECT ?, line FROM import_check", [file]);
    return await tx.all<T>(`SELECT * FROM import_check ORDER BY line LIMIT ?`, [rejections.limit]);
  } finally {
    await tx.run("DROP TABLE import_check");
  }
}

/** The date column of the event tables (checked against the attempt's date). */
const EVENT_DATE: Partial<Record<ImportTable, string>> = Object.fromEntries(EVENT_TABLES_LIST.map((t) => [t, EVENT_FACTS[t].date]));

function formatCents(cents: string | number): string {
  const s = String(cents).padStart(3, "0");
  return `${s.slice(0, -2)}.${s.slice(-2)}`;
}

/**
 * Rows whose id an earlier valid row of the same file has: rejected, and taken out of the staging
 * table so that the checks after this one see each id once (as the first row's).
 */
async function checkDuplicates(tx: Tx, o: FileOutcome, rejections: Rejections): Promise<void> {
  const s = stagingTable(o.spec.table);
  const key = o.spec.key;
  const rows = await rejectedRows<{ line: number; k: string; first: number }>(
    tx,
    rejections,
    o.spec.file,
    `SELECT s.line, s.${key}::VARCHAR AS k, f.first
     FROM ${s} s JOIN (SELECT ${key}, min(line) AS first FROM ${s} GROUP BY ${key} HAVING count(*) > 1) f ON f.${key} = s.${key}
     WHERE s.line > f.first`,
  );
  for (const r of rows) rejections.add(o.spec.file, r.line, `${key} ${r.k} already appears on line ${r.first}`);
  // This is each file's first check, so the file's rejected lines so far are its repeats.
  if (rows.length > 0) {
    await tx.run(`DELETE FROM ${s} WHERE line IN (SELECT line FROM import_rejected_lines WHERE file = ?)`, [o.spec.file]);
  }
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
  const rows = await rejectedRows<{ line: number; k: string | number; diff: string }>(
    tx,
    rejections,
    spec.file,
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
    // Ids of parent rows rejected in this import are left out: those rows are reported there.
    const inImport = parentOutcome
      ? `EXCEPT SELECT ${parent.key} FROM ${stagingTable(ref.table)} EXCEPT SELECT id FROM ${rejectedKeysTable(ref.table)}`
      : "";
    // The ids referenced and found nowhere first, then their rows: an anti-join of every row against
    // the parents held a hash table of millions of rows, which ran out of DuckDB's memory limit
    // inside the import's transaction (20 M attempts against 12 M customers: bench:import-large).
    // Reference columns are required, so never null.
    const s = stagingTable(spec.table);
    const rows = await rejectedRows<{ line: number; k: string | number }>(
      tx,
      rejections,
      spec.file,
      `SELECT s.line, s.${ref.column} AS k FROM ${s} s
       WHERE s.${ref.column} IN (SELECT ${ref.column} FROM ${s} EXCEPT SELECT ${parent.key} FROM ${ref.table} ${inImport})`,
    );
    const where = parentOutcome ? `in ${parent.file} nor in the database` : `in the database (and no ${parent.file} was imported)`;
    for (const r of rows) rejections.add(spec.file, r.line, `${csvName(spec, ref.column)} ${r.k} does not exist: not ${where}`);
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
  const rows = await rejectedRows<{ line: number; customer_id: string; mine: string; theirs: string }>(
    tx,
    rejections,
    "attempts.csv",
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
  const rows = await rejectedRows<{
    line: number;
    attempt_id: string;
    d: string;
    amount: string;
    attempt_date: string;
    approved: boolean;
    attempt_amount: string;
  }>(
    tx,
    rejections,
    o.spec.file,
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
