/**
 * The service's one handle on its DuckDB file. A DuckDB file belongs to one process at a time, so
 * this module is the only place that opens it; commands that write while the server runs go
 * through the server instead.
 */
import { DuckDBConnection, DuckDBInstance, type DuckDBValue } from "@duckdb/node-api";

export type SqlParam = string | number | bigint | boolean | null;
export type Row = Record<string, unknown>;

export class DatabaseBusyError extends Error {
  constructor(path: string) {
    super(
      `The database ${path} is in use by another process (probably the running service). ` +
        `Stop it first, or make the change through the running service.`,
    );
  }
}

export class Database {
  private readonly idle: DuckDBConnection[] = [];
  private readonly waiters: ((c: DuckDBConnection) => void)[] = [];
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly instance: DuckDBInstance,
    connections: DuckDBConnection[],
  ) {
    this.idle.push(...connections);
  }

  static async open(path: string, options: { connections?: number; threads?: number; memoryLimit?: string; tempDirectory?: string } = {}): Promise<Database> {
    const config: Record<string, string> = {};
    if (options.threads) config.threads = String(options.threads);
    if (options.memoryLimit) config.memory_limit = options.memoryLimit;
    if (options.tempDirectory) config.temp_directory = options.tempDirectory;
    let instance: DuckDBInstance;
    try {
      instance = await DuckDBInstance.create(path, config);
    } catch (err) {
      if (err instanceof Error && /lock/i.test(err.message)) throw new DatabaseBusyError(path);
      throw err;
    }
    const n = Math.max(1, options.connections ?? 4);
    const connections: DuckDBConnection[] = [];
    for (let i = 0; i < n; i++) connections.push(await instance.connect());
    return new Database(path, instance, connections);
  }

  private acquire(): Promise<DuckDBConnection> {
    if (this.closed) return Promise.reject(new Error("database is closed"));
    const c = this.idle.pop();
    if (c) return Promise.resolve(c);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private release(c: DuckDBConnection): void {
    const next = this.waiters.shift();
    if (next) next(c);
    else this.idle.push(c);
  }

  /** Runs `fn` with a connection of its own (for transactions and appenders). */
  async withConnection<T>(fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    const c = await this.acquire();
    try {
      return await fn(c);
    } finally {
      this.release(c);
    }
  }

  /** Rows as plain objects: dates as `YYYY-MM-DD`, BIGINT/HUGEINT as strings, DOUBLE/INTEGER as numbers. */
  async all<T extends Row = Row>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
    return this.withConnection(async (c) => {
      const reader = await c.runAndReadAll(sql, params as DuckDBValue[]);
      return reader.getRowObjectsJson() as T[];
    });
  }

  /**
   * The result as one array per column, named, with DuckDB's own values (numbers, strings, bigints,
   * date objects) for the caller to convert once per column, a fraction of what `all`'s conversion of
   * every value into a row object costs on a report page (docs/benchmarks.md).
   */
  async columns(sql: string, params: readonly SqlParam[] = []): Promise<{ rows: number; columns: Record<string, unknown[]> }> {
    return this.withConnection(async (c) => {
      const reader = await c.runAndReadAll(sql, params as DuckDBValue[]);
      return { rows: reader.currentRowCount, columns: reader.getColumnsObject() };
    });
  }

  async run(sql: string, params: readonly SqlParam[] = []): Promise<void> {
    await this.withConnection(async (c) => {
      await c.run(sql, params as DuckDBValue[]);
    });
  }

  /** All-or-nothing: `fn` runs inside BEGIN/COMMIT on one connection, rolled back on any error. */
  async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.withConnection((c) => transactionOn(c, fn));
  }

  async checkpoint(): Promise<void> {
    await this.run("CHECKPOINT");
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const c of this.idle.splice(0)) c.closeSync();
    this.instance.closeSync();
  }
}

/**
 * `fn` inside BEGIN/COMMIT on connection `c`, rolled back on any error: for work that must share a
 * connection with what came before it (its temporary tables), as generation's staging does.
 */
export async function transactionOn<T>(c: DuckDBConnection, fn: (tx: Tx) => Promise<T>): Promise<T> {
  await c.run("BEGIN TRANSACTION");
  try {
    const out = await fn(new Tx(c));
    await c.run("COMMIT");
    return out;
  } catch (err) {
    await c.run("ROLLBACK").catch(() => undefined);
    throw err;
  }
}

/** A connection inside a transaction. */
export class Tx {
  constructor(readonly connection: DuckDBConnection) {}
  async all<T extends Row = Row>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
    const reader = await this.connection.runAndReadAll(sql, params as DuckDBValue[]);
    return reader.getRowObjectsJson() as T[];
  }
  async run(sql: string, params: readonly SqlParam[] = []): Promise<void> {
    await this.connection.run(sql, params as DuckDBValue[]);
  }
}
