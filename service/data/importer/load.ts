/**
 * Getting validated rows into DuckDB: the normalized staging CSV that validation writes, the
 * temporary staging tables read from it (explicit column types, no detection), and the final insert
 * of the new rows, whose facts are then added to the derived tables (`addToDerived`).
 *
 * Separate from the checks, which decide what is rejected (validate-file.ts, check-staged.ts):
 * nothing here rejects a row. The staging tables are the meeting point: check-staged.ts's database
 * checks run on them before `loadStaged`.
 */
import type { FileHandle } from "node:fs/promises";
import type { Tx } from "../../db";
import { isFactSource, type FactSource } from "../../reports/columns";
import { addToDerived } from "../derived";
import type { Value } from "./fields";
import type { ColumnSpec, ImportTable, Kind, TableSpec } from "./format";

// ---------------------------------------------------------------------------------------------
// The staging CSV
// ---------------------------------------------------------------------------------------------

/**
 * Collects output lines, encodes them in batches into large byte buffers (so that no per-row string
 * lives long), and writes those on flush.
 */
export class BufferedWriter {
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

export function serialize(c: ColumnSpec, v: Value): string {
  if (v === null) return "";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return String(v);
  return c.kind === "text" ? csvText(v) : v;
}

// ---------------------------------------------------------------------------------------------
// Staging tables and the insert
// ---------------------------------------------------------------------------------------------

export const stagingTable = (t: ImportTable) => `_import_${t}`;
/** The ids of a file's rows that validation rejected (column `id`). */
export const rejectedKeysTable = (t: ImportTable) => `_import_${t}_rejected`;

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

/**
 * Reads a staging CSV (header: `line`, then the spec's db columns) into the table's staging table,
 * and the CSV of its rejected rows' ids into `rejectedKeysTable`.
 */
export async function stage(tx: Tx, spec: TableSpec, csvPath: string, rejectedKeysPath: string): Promise<void> {
  const read = (columns: string) =>
    `SELECT * FROM read_csv(?, header = true, auto_detect = false, delim = ',', quote = '"', escape = '"', columns = {${columns}})`;
  const columns = [`'line': 'INTEGER'`, ...spec.columns.map((c) => `'${c.db}': '${SQL_TYPE[c.kind]}'`)].join(", ");
  await tx.run(`CREATE TEMP TABLE ${stagingTable(spec.table)} AS ${read(columns)}`, [csvPath]);
  const key = spec.columns.find((c) => c.db === spec.key);
  if (!key) throw new Error(`${spec.table}.${spec.key} is not a column`);
  await tx.run(`CREATE TEMP TABLE ${rejectedKeysTable(spec.table)} AS ${read(`'id': '${SQL_TYPE[key.kind]}'`)}`, [rejectedKeysPath]);
}

/** A table whose staging table holds `rows` validated rows. */
export interface StagedTable {
  readonly spec: TableSpec;
  readonly rows: number;
}

/**
 * Inserts the staged rows into their tables and adds the new facts to the derived tables, then drops
 * the staging tables. Sets each table's count in `inserted` and `skippedDuplicates`.
 */
export async function loadStaged(
  tx: Tx,
  staged: readonly StagedTable[],
  inserted: Record<string, number>,
  skippedDuplicates: Record<string, number>,
): Promise<void> {
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
  for (const o of staged) {
    await tx.run(`DROP TABLE ${stagingTable(o.spec.table)}`);
    await tx.run(`DROP TABLE ${rejectedKeysTable(o.spec.table)}`);
  }
  for (const rows of Object.values(added)) await tx.run(`DROP TABLE ${rows}`);
}
