/**
 * The service's connection to ClickHouse through the official client: one client per node of the
 * configured servers (`CLICKHOUSE_URL`, comma-separated; reports go to the first), the cluster the
 * Distributed tables span when there are several, and the few calls the service makes.
 */
import { createReadStream } from "node:fs";
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from "@clickhouse/client";

export interface ClickHouseConfig {
  /** Every node's HTTP URL; the first answers the reports. */
  urls: readonly string[];
  /** The cluster (in the servers' `remote_servers`) the Distributed tables span; null on one node. */
  cluster: string | null;
  /** The prefix of the service's database names. */
  database: string;
}

/** A result as columns, named (as DuckDB's reader gives them to service/reports/run.ts). */
export interface Columns {
  rows: number;
  columns: Record<string, unknown[]>;
}

export class ClickHouseNode {
  private readonly client: ClickHouseClient;

  constructor(readonly url: string) {
    // A publish inserts and aggregates millions of rows in one request; errors are thrown to the
    // caller, which logs them its own way (the client's own log would print them a second time).
    // Idle sockets are dropped well before the server's keep-alive timeout (3 s before 23.11), and
    // eagerly after a slow turn of the event loop: a reused socket the server has closed fails.
    this.client = createClient({
      url,
      request_timeout: 600_000,
      compression: { request: false, response: false },
      keep_alive: { idle_socket_ttl: 1_500, eagerly_destroy_stale_sockets: true },
      log: { level: ClickHouseLogLevel.OFF },
    });
  }

  /** A read, sent once more if the server had closed the socket it went out on (reads change nothing). */
  private async read<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (code === "ECONNRESET" || code === "EPIPE" || (e instanceof Error && /socket hang up/.test(e.message))) return run();
      throw e;
    }
  }

  async command(sql: string): Promise<void> {
    await this.client.command({ query: sql });
  }

  /** A result read whole: the server finishes the query before answering, so an error is an error, not a cut-off body. */
  async columns(sql: string, settings: Record<string, string | number> = {}): Promise<Columns> {
    const body = await this.read(async () => (await (await this.client.query({ query: sql, format: "JSONCompact", clickhouse_settings: { wait_end_of_query: 1, ...settings } })).json()) as { meta: { name: string }[]; data: unknown[][] });
    const columns: Record<string, unknown[]> = {};
    body.meta.forEach((m, i) => (columns[m.name] = body.data.map((row) => row[i])));
    return { rows: body.data.length, columns };
  }

  async rows<T>(sql: string): Promise<T[]> {
    return this.read(async () => (await (await this.client.query({ query: sql, format: "JSONEachRow" })).json()) as T[]);
  }

  /** Inserts a CSV file (no header; the columns in `columns`' order) into `table`. */
  async insertCsvFile(table: string, columns: readonly string[], path: string, settings: Record<string, string | number> = {}): Promise<void> {
    await this.client.insert({ table, columns: [...columns] as [string, ...string[]], values: createReadStream(path), format: "CSV", clickhouse_settings: settings });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

export class ClickHouseServers {
  readonly nodes: ClickHouseNode[];

  constructor(readonly config: ClickHouseConfig) {
    if (config.urls.length === 0) throw new Error("CLICKHOUSE_URL names no server");
    if (config.urls.length > 1 && !config.cluster) throw new Error("Several ClickHouse servers need CLICKHOUSE_CLUSTER, the cluster their Distributed tables span");
    this.nodes = config.urls.map((u) => new ClickHouseNode(u));
  }

  /** The node that answers reports and keeps the version pointer. */
  get first(): ClickHouseNode {
    return this.nodes[0]!;
  }

  get cluster(): string | null {
    return this.config.cluster;
  }

  async close(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.close()));
  }
}
