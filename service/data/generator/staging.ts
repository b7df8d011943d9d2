/**
 * Staging for the generated facts: rows are built in Int32Array columns, several small fields packed
 * into one INTEGER, and appended with the DuckDB appender a data chunk at a time into temporary
 * tables; one INSERT … SELECT per table (`loadFactTables` in generator.ts) then unpacks them into the
 * real tables. Appending the final column types (BIGINT, DATE, TIMESTAMP, VARCHAR) from JS would cost
 * a BigInt, a date object or a native string call for every value (generation times:
 * docs/benchmarks.md).
 *
 * Separate from the simulation, which only fills rows (rows.ts: STAGES, the bit layouts and the row
 * buffers, the contract between the two, without DuckDB), and from the loading, which only reads the
 * staging tables. `appendRows` is the appender path for the few reference rows, which need no staging.
 */
import { DuckDBDataChunk, DuckDBVector, INTEGER, type DuckDBAppender, type DuckDBConnection, type DuckDBType, type DuckDBValue } from "@duckdb/node-api";
import { RowBuffer, STAGES, stageTable, type StageName } from "./rows";

export { MAX_ID, PACK_A, PACK_B, STAGES, stageTable, type StageName } from "./rows";

/** The first `rows` values of each of `columns` (INTEGER staging columns), as one data chunk. */
export function appendColumns(appender: DuckDBAppender, columns: readonly Int32Array[], rows: number): void {
  const chunk = DuckDBDataChunk.create(columns.map(() => INTEGER), rows);
  columns.forEach((values, c) => {
    const vector = chunk.getColumnVector(c);
    for (let r = 0; r < rows; r++) vector.setItem(r, values[r] ?? 0);
    vector.flush();
  });
  appender.appendDataChunk(chunk);
}

/** A staging table's appender; rows come from a RowBuffer here or in the simulation's worker. */
class Stage<C extends string> extends RowBuffer<C> {
  private closed = false;

  constructor(
    private readonly appender: DuckDBAppender,
    names: readonly C[],
    private readonly chunkSize: number,
  ) {
    super(names, chunkSize, (columns, rows) => appendColumns(appender, columns, rows), true);
  }

  /** Appends rows filled elsewhere (the worker's buffers, of any length), a data chunk at a time. */
  append(columns: readonly Int32Array[], rows: number): void {
    for (let from = 0; from < rows; from += this.chunkSize) {
      const n = Math.min(this.chunkSize, rows - from);
      appendColumns(this.appender, from === 0 && n === rows ? columns : columns.map((c) => c.subarray(from, from + n)), n);
    }
  }

  close(): void {
    this.flush();
    this.appender.flushSync();
    this.closeAppender();
  }

  /** Releases the appender after a failure; the generator drops the staging tables. */
  dispose(): void {
    try {
      this.closeAppender();
    } catch {
      // Already failing; the original error is the one worth reporting.
    }
  }

  private closeAppender(): void {
    if (this.closed) return;
    this.closed = true;
    this.appender.closeSync();
  }
}

export type Stages = { [K in StageName]: Stage<(typeof STAGES)[K][number]> };
export async function openStages(conn: DuckDBConnection): Promise<Stages> {
  const chunkSize = DuckDBVector.standardSize();
  const open = async <K extends StageName>(name: K): Promise<Stage<(typeof STAGES)[K][number]>> => {
    const cols = STAGES[name];
    await conn.run(`CREATE OR REPLACE TEMP TABLE ${stageTable(name)} (${cols.map((c) => `${c} INTEGER NOT NULL`).join(", ")})`);
    return new Stage(await conn.createAppender(stageTable(name)), cols, chunkSize);
  };
  return {
    customers: await open("customers"),
    attempts: await open("attempts"),
    refunds: await open("refunds"),
    chargebacks: await open("chargebacks"),
    alerts: await open("alerts"),
  };
}

export async function appendRows(conn: DuckDBConnection, table: string, types: readonly DuckDBType[], columns: readonly (readonly DuckDBValue[])[]): Promise<void> {
  const appender = await conn.createAppender(table);
  const size = DuckDBVector.standardSize();
  const rows = columns[0]?.length ?? 0;
  for (let from = 0; from < rows; from += size) {
    const chunk = DuckDBDataChunk.create(types);
    chunk.setColumns(columns.map((col) => col.slice(from, from + size)));
    appender.appendDataChunk(chunk);
  }
  appender.flushSync();
  appender.closeSync();
}
