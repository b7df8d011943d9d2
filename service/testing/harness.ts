/**
 * Test harness: the real service on a real socket (127.0.0.1, random port) over a real DuckDB file
 * holding a small generated dataset. Nothing is mocked; the log lines are captured for assertions.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OPERATION_ROWS } from "../../lib/contract/operations";
import { createService, type Service } from "../app";
import { createClient } from "../clients";
import { loadServiceConfig, type ServiceConfig } from "../config";
import { Database } from "../db";
import { generate, type GenerateOptions } from "../data/generator";
import { migrate } from "../data/schema";
import { jsonLogger } from "../http/log";
import { listen } from "../http/server";
import { ClickHouseServers } from "../clickhouse/connection";
import { currentVersion } from "../clickhouse/publish";
import { readable } from "../clickhouse/schema";
import { startTestClickHouse, type TestClickHouse } from "./clickhouse";

/** Where a test service answers reports: its DuckDB file, or a ClickHouse it starts (one node or two shards). */
export type TestEngine = "duckdb" | "clickhouse" | "clickhouse-2-shards";
/** Every engine, for suites that must pass on each (the same test file, parameterised). */
export const TEST_ENGINES: readonly TestEngine[] = ["duckdb", "clickhouse", "clickhouse-2-shards"];

export const TEST_TOKEN_SECRET = "test-token-secret-0123456789abcdef0123456789";

export interface TestService {
  url: string;
  db: Database;
  dir: string;
  service: Service;
  /** The ClickHouse the service reads (null on DuckDB). */
  clickhouse: TestClickHouse | null;
  /** The service's configuration (for instances started beside it). */
  config: ServiceConfig;
  logLines: string[];
  client: { client_id: string; client_secret: string };
  token: string;
  /** POST JSON with the demo client's full credentials unless `headers` replaces them. */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Every record a report request answers, all pages fetched (limit/offset); throws on a non-200. */
  allRecords(path: string, body: Record<string, unknown>): Promise<Record<string, string | number | null>[]>;
  authHeaders(): Record<string, string>;
  /** Renames a table reports read, where the engine keeps it (a real internal failure for the tests of 500s). */
  renameReportTable(table: string, to: string): Promise<{ restore(): Promise<void> }>;
  newClient(name: string): Promise<{ client_id: string; client_secret: string; token: string }>;
  stop(): Promise<void>;
}

/** The data set a test service generates unless told otherwise. */
const DEFAULT_DATA: GenerateOptions = { days: 60, ordersPerDay: 40, seed: 7, endDate: "2025-07-31" };

/**
 * Generates `data` (over the harness's defaults) into `file` and closes it, checkpointed: a file
 * several test services of one test file start from (`startTestService({ from: file })`), each on a
 * copy of its own, so the data is generated once however many engines read it.
 */
export async function generateTestFile(file: string, data: Partial<GenerateOptions> = {}): Promise<string> {
  const db = await Database.open(file);
  try {
    await migrate(db);
    await generate(db, { ...DEFAULT_DATA, ...data });
    await db.checkpoint();
  } finally {
    db.close();
  }
  return file;
}

export async function startTestService(opts: {
  data?: Partial<GenerateOptions> | false;
  /** A file from `generateTestFile` to copy instead of generating `data` (the original is left as it is). */
  from?: string;
  env?: Record<string, string>;
  /** Runs on the database after data generation, before the service starts (e.g. load a routing configuration). */
  setup?: (db: Database) => Promise<void>;
  engine?: TestEngine;
} = {}): Promise<TestService> {
  const dir = mkdtempSync(join(tmpdir(), "svc-test-"));
  const dbPath = join(dir, "service.duckdb");
  if (opts.from) {
    copyFileSync(opts.from, dbPath);
    if (existsSync(`${opts.from}.wal`)) copyFileSync(`${opts.from}.wal`, `${dbPath}.wal`);
  }
  const db = await Database.open(dbPath);
  await migrate(db);
  if (!opts.from && opts.data !== false) await generate(db, { ...DEFAULT_DATA, ...(opts.data ?? {}) });
  if (opts.setup) await opts.setup(db);
  const client = await createClient(db, "test");
  const engine = opts.engine ?? "duckdb";
  let clickhouse: TestClickHouse | null = null;
  if (engine !== "duckdb") clickhouse = await startTestClickHouse({ shards: engine === "clickhouse-2-shards" ? 2 : 1 });
  const config: ServiceConfig = loadServiceConfig({
    SERVICE_DB: dbPath,
    SERVICE_TOKEN_SECRET: TEST_TOKEN_SECRET,
    ...(clickhouse
      ? { SERVICE_ENGINE: "clickhouse", CLICKHOUSE_URL: clickhouse.urls.join(","), ...(clickhouse.cluster ? { CLICKHOUSE_CLUSTER: clickhouse.cluster } : {}) }
      : {}),
    ...opts.env,
  });
  const logLines: string[] = [];
  let service: Service;
  try {
    service = await createService(db, config, jsonLogger((s) => logLines.push(s)));
  } catch (e) {
    await clickhouse?.stop();
    throw e;
  }
  const addr = await listen(service.server, 0, "127.0.0.1");
  const url = `http://127.0.0.1:${addr.port}`;

  const fetchToken = async (c: { client_id: string; client_secret: string }) => {
    const r = await fetch(`${url}/api/auth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(c),
    });
    const j = (await r.json()) as { data: { access_token: string } };
    return j.data.access_token;
  };
  const token = await fetchToken(client);
  const authHeaders = () => ({
    authorization: `Bearer ${token}`,
    "x-client-id": client.client_id,
    "x-client-secret": client.client_secret,
  });

  const post: TestService["post"] = (path, body, headers) =>
    fetch(`${url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(headers ?? authHeaders()) },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });

  return {
    url,
    db,
    dir,
    service,
    clickhouse,
    config,
    logLines,
    client,
    token,
    authHeaders,
    post,
    async allRecords(path, body) {
      const out: Record<string, string | number | null>[] = [];
      for (let offset = 0; ; offset += 1000) {
        const r = await post(path, { ...body, offset, limit: 1000 });
        const j = (await r.json()) as { data: Record<string, string | number | null>[]; pagination: { has_more: boolean } };
        if (r.status !== 200) throw new Error(`${path} answered ${r.status}: ${JSON.stringify(j).slice(0, 300)}`);
        out.push(...j.data);
        if (!j.pagination.has_more) return out;
      }
    },
    async renameReportTable(table, to) {
      if (!clickhouse) {
        await db.run(`ALTER TABLE ${table} RENAME TO ${to}`);
        return { restore: () => db.run(`ALTER TABLE ${to} RENAME TO ${table}`) };
      }
      const servers = new ClickHouseServers({ urls: clickhouse.urls, cluster: clickhouse.cluster, database: config.CLICKHOUSE_DATABASE });
      const current = (await currentVersion(servers))?.database;
      const [from, into] = [readable(table, clickhouse.cluster), readable(to, clickhouse.cluster)].map((t) => `${current}.${t}`);
      await servers.first.command(`RENAME TABLE ${from} TO ${into}`);
      return {
        async restore() {
          await servers.first.command(`RENAME TABLE ${into} TO ${from}`);
          await servers.close();
        },
      };
    },
    async newClient(name) {
      const c = await createClient(db, name);
      await service.clients.refresh();
      return { ...c, token: await fetchToken(c) };
    },
    async stop() {
      await service.close();
      await clickhouse?.stop();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const REPORTING_PATHS = new Set(OPERATION_ROWS.map((o) => o.servicePath));

/** The service's reporting calls (order and cohort summaries) since its log was last cleared. */
export function reportCalls(svc: Pick<TestService, "logLines">): number {
  return svc.logLines.map((l) => JSON.parse(l) as { msg: string; path: string }).filter((l) => l.msg === "request" && REPORTING_PATHS.has(l.path)).length;
}
