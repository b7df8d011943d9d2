/**
 * Staging for the generated facts: rows are built in Int32Array columns, several small fields packed
 * into one INTEGER, and appended with the DuckDB appender a data chunk at a time into temporary
 * tables; one INSERT … SELECT per table (`loadFactTables` in generator.ts) then unpacks them into the
 * real tables. Appending the final column types (BIGINT, DATE, TIMESTAMP, VARCHAR) from JS would cost
 * a BigInt, a date object or a native string call for every value (generation times:
 * docs/benchmarks.md).
 *
 * Separate from the simulation, which only fills rows, and from the loading, which only reads the
 * staging tables: STAGES and the bit layouts are the contract between the two. `appendRows` is the
 * appender path for the few reference rows, which need no staging.
 */
import { DuckDBDataChunk, DuckDBVector, INTEGER, type DuckDBAppender, type DuckDBConnection, type DuckDBType, type DuckDBValue } from "@duckdb/node-api";

/** Ids live in INTEGER staging columns. */
export const MAX_ID = 2 ** 31 - 1;

/** Bit layout of a packed INTEGER column; the same object packs in JS and unpacks in SQL. */
class BitLayout<K extends string> {
  readonly shift: Readonly<Record<K, number>>;
  readonly max: Readonly<Record<K, number>>;

  constructor(widths: Readonly<Record<K, number>>) {
    const shift = {} as Record<K, number>;
    const max = {} as Record<K, number>;
    let at = 0;
    for (const key of Object.keys(widths) as K[]) {
      shift[key] = at;
      max[key] = 2 ** widths[key] - 1;
      at += widths[key];
    }
    // Bit 31 is the sign bit of the INTEGER column; keep clear of it.
    if (at > 31) throw new Error(`bit layout needs ${at} bits`);
    this.shift = shift;
    this.max = max;
  }

  sql(column: string, key: K): string {
    return `((${column} >> ${this.shift[key]}) & ${this.max[key]})`;
  }
}

/** attempts: second of day, attempt number, cascade and approved flags, sales type, gateway index. */
export const PACK_A = new BitLayout({ sod: 17, attemptNo: 3, cascade: 1, approved: 1, salesType: 2, gateway: 5 });
/** attempts and customers: billing cycle, campaign, product and sub-affiliate indexes. */
export const PACK_B = new BitLayout({ cycle: 8, campaign: 6, product: 5, sub: 8 });

export const STAGES = {
  customers: ["customer_id", "initial_day", "price", "b"],
  attempts: ["attempt_id", "order_id", "customer_id", "day", "initial_day", "amount", "bin", "a", "b"],
  refunds: ["refund_id", "attempt_id", "day", "amount", "type"],
  chargebacks: ["chargeback_id", "attempt_id", "day", "amount"],
  alerts: ["alert_id", "attempt_id", "day", "amount", "type"],
} as const;
export type StageName = keyof typeof STAGES;

export const stageTable = (name: StageName): string => `gen_stage_${name}`;

/** Rows collect in typed columns and go to the appender one full data chunk at a time. */
class Stage<C extends string> {
  readonly cols: Readonly<Record<C, Int32Array>>;
  private readonly list: Int32Array[];
  private readonly types: DuckDBType[];
  private n = 0;
  private closed = false;

  constructor(
    private readonly appender: DuckDBAppender,
    names: readonly C[],
    private readonly chunkSize: number,
  ) {
    const cols = {} as Record<C, Int32Array>;
    this.list = names.map((c) => (cols[c] = new Int32Array(chunkSize)));
    this.cols = cols;
    this.types = names.map(() => INTEGER);
  }

  /** Index of the next row in `cols`; the caller fills every column at it. */
  row(): number {
    if (this.n === this.chunkSize) this.flush();
    return this.n++;
  }

  flush(): void {
    const n = this.n;
    if (n === 0) return;
    const chunk = DuckDBDataChunk.create(this.types, n);
    this.list.forEach((values, c) => {
      const vector = chunk.getColumnVector(c);
      for (let r = 0; r < n; r++) vector.setItem(r, values[r] ?? 0);
      vector.flush();
    });
    this.appender.appendDataChunk(chunk);
    this.n = 0;
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
