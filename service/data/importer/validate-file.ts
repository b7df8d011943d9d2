/**
 * The first phase of an import's checks: `validateFile` streams a file through the field parsers
 * (fields.ts) and the per-table cross-field rules (ROW_CHECKS), catching duplicate ids within the
 * file, and writes the valid rows to a staging CSV. What needs other files or the database is the
 * second phase (./check-staged.ts); a row rejected here is not reported again by the rows that
 * reference it.
 */
import { open } from "node:fs/promises";
import { CsvEncodingError, readCsvFile, type CsvRecord } from "../csv";
import { parseField, type Value } from "./fields";
import { specOf, type ColumnSpec, type ImportTable, type TableSpec } from "./format";
import { BufferedWriter, serialize } from "./load";
import type { Rejections } from "./rejections";

// Per-table cross-field rules (on the normalized values, indexed like spec.columns)

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

// Phase 1: stream-validate one file into a normalized staging CSV

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
