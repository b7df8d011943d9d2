/**
 * Test harness: the real service on a real socket (127.0.0.1, random port) over a real DuckDB file
 * holding a small generated dataset. Nothing is mocked; the log lines are captured for assertions.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createService, type Service } from "../app";
import { createClient } from "../clients";
import { loadServiceConfig, type ServiceConfig } from "../config";
import { Database } from "../db";
import { generate, type GenerateOptions } from "../data/generator";
import { migrate } from "../data/schema";
import { jsonLogger } from "../http/log";
import { listen } from "../http/server";

export const TEST_TOKEN_SECRET = "test-token-secret-0123456789abcdef0123456789";

export interface TestService {
  url: string;
  db: Database;
  dir: string;
  service: Service;
  logLines: string[];
  client: { client_id: string; client_secret: string };
  token: string;
  /** POST JSON with the demo client's full credentials unless `headers` replaces them. */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Every record a report request answers, all pages fetched (limit/offset); throws on a non-200. */
  allRecords(path: string, body: Record<string, unknown>): Promise<Record<string, string | number | null>[]>;
  authHeaders(): Record<string, string>;
  newClient(name: string): Promise<{ client_id: string; client_secret: string; token: string }>;
  stop(): Promise<void>;
}

export async function startTestService(opts: {
  data?: Partial<GenerateOptions> | false;
  env?: Record<string, string>;
  /** Runs on the database after data generation, before the service starts (e.g. load a routing configuration). */
  setup?: (db: Database) => Promise<void>;
} = {}): Promise<TestService> {
  const dir = mkdtempSync(join(tmpdir(), "svc-test-"));
  const dbPath = join(dir, "service.duckdb");
  const db = await Database.open(dbPath);
  await migrate(db);
  if (opts.data !== false) {
    await generate(db, { days: 60, ordersPerDay: 40, seed: 7, endDate: "2025-07-31", ...(opts.data ?? {}) });
  }
  if (opts.setup) await opts.setup(db);
  const client = await createClient(db, "test");
  const config: ServiceConfig = loadServiceConfig({
    SERVICE_DB: dbPath,
    SERVICE_TOKEN_SECRET: TEST_TOKEN_SECRET,
    ...opts.env,
  });
  const logLines: string[] = [];
  const service = await createService(db, config, jsonLogger((s) => logLines.push(s)));
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
    async newClient(name) {
      const c = await createClient(db, name);
      await service.clients.refresh();
      return { ...c, token: await fetchToken(c) };
    },
    async stop() {
      await service.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
