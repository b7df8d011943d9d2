/**
 * The rows the simulation fills, without DuckDB (so its worker thread never loads the native
 * binding): the staging tables' columns, the bit layouts that pack several small fields into one
 * INTEGER, and the typed-column buffers rows collect in. staging.ts appends full buffers to DuckDB.
 */
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

/**
 * Rows of one staging table, collected in typed columns (`cols`, read after each `row()`: a full set
 * of columns is handed to `onFull` before the next row, and with `reuse` false replaced by fresh
 * arrays, since the handed ones leave this thread).
 */
export class RowBuffer<C extends string> {
  cols: Readonly<Record<C, Int32Array>>;
  private list: Int32Array[];
  private n = 0;

  constructor(
    private readonly names: readonly C[],
    private readonly size: number,
    private readonly onFull: (columns: Int32Array[], rows: number) => void,
    private readonly reuse: boolean,
  ) {
    [this.cols, this.list] = this.allocate();
  }

  /** Index of the next row in `cols`; the caller fills every column at it. */
  row(): number {
    if (this.n === this.size) this.flush();
    return this.n++;
  }

  flush(): void {
    const n = this.n;
    if (n === 0) return;
    this.onFull(this.list, n);
    this.n = 0;
    if (!this.reuse) [this.cols, this.list] = this.allocate();
  }

  private allocate(): [Record<C, Int32Array>, Int32Array[]] {
    const cols = {} as Record<C, Int32Array>;
    return [cols, this.names.map((c) => (cols[c] = new Int32Array(this.size)))];
  }
}

/** What the simulation fills: a RowBuffer per staging table. */
export type StageRows = { [K in StageName]: RowBuffer<(typeof STAGES)[K][number]> };

/** The rows a simulation hands over: each staging table's buffers, sent to `onFull` as they fill. */
export function rowBuffers(chunkSize: number, onFull: (stage: StageName, columns: Int32Array[], rows: number) => void): StageRows {
  const buffer = <K extends StageName>(name: K) =>
    new RowBuffer<(typeof STAGES)[K][number]>(STAGES[name], chunkSize, (columns, rows) => onFull(name, columns, rows), false);
  return { customers: buffer("customers"), attempts: buffer("attempts"), refunds: buffer("refunds"), chargebacks: buffer("chargebacks"), alerts: buffer("alerts") };
}

