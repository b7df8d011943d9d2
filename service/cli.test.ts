/**
 * The operator commands exactly as operators and outside checks type them, each run as its
 * own process on a real DuckDB file: generate, import, create-client, and the service (service/main.ts,
 * the entry point of `npm run service`).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { todayIn } from "@/lib/contract/dates";
import { Database } from "./db";
import { TEST_TOKEN_SECRET } from "./testing/harness";
import { TABLES } from "./data/importer";
import { VALID_IMPORT, writeCsvDir } from "./testing/import-fixture";

const tsx = (script: string, args: string[], env: NodeJS.ProcessEnv = process.env) =>
  spawnSync(process.execPath, ["--import", "tsx", script, ...args], { encoding: "utf8", env, timeout: 50_000 });
const cli = (...args: string[]) => tsx("service/cli.ts", args);
const lastLine = (out: string) => out.trim().split("\n").at(-1) ?? "";

/** `generate` into `file` of the test folder: 12 days × 15 orders ending 2025-07-31. */
const generateInto = (file: string, seed: string) =>
  cli("generate", "--db", join(dir, file), "--days", "12", "--orders-per-day", "15", "--seed", seed, "--end-date", "2025-07-31");

let dir: string;
/** a.duckdb, which the later tests use too. */
let generated: ReturnType<typeof cli>;
let service: ChildProcess | undefined;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cli-test-"));
  generated = generateInto("a.duckdb", "5");
});
afterAll(() => {
  service?.kill("SIGKILL"); // only if a failed test left it running
  rmSync(dir, { recursive: true, force: true });
});

async function withDb<T>(path: string, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await Database.open(path);
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}

/** Every fact and reference table of a file (those an import loads), in a stable order. */
const dump = (path: string): Promise<Record<string, unknown[]>> =>
  withDb(path, async (db) =>
    Object.fromEntries(await Promise.all(TABLES.map(async ({ table }) => [table, await db.all(`SELECT * FROM ${table} ORDER BY ALL`)]))),
  );

describe("generate --db PATH --days N --orders-per-day N --seed N [--end-date YYYY-MM-DD]", () => {
  it("gives identical data for the same seed and end date, different data for another seed", async () => {
    expect(generated.status, generated.stderr).toBe(0);
    const summary = JSON.parse(lastLine(generated.stdout)) as { attempts: number; startDate: string; endDate: string; peak_rss_mib: number };
    expect(summary).toMatchObject({ startDate: "2025-07-20", endDate: "2025-07-31" });
    // What the run cost in memory, for operators and bench:reports.
    expect(summary.peak_rss_mib).toBeGreaterThan(50);
    expect(summary.attempts).toBeGreaterThan(12 * 15);
    expect(generateInto("b.duckdb", "5").status).toBe(0);
    expect(generateInto("c.duckdb", "6").status).toBe(0);
    const [da, db, dc] = [await dump(join(dir, "a.duckdb")), await dump(join(dir, "b.duckdb")), await dump(join(dir, "c.duckdb"))];
    expect(da.attempts).toHaveLength(summary.attempts);
    expect(db).toEqual(da);
    expect(dc.attempts).not.toEqual(da.attempts);
  });

  it("ends the data today (UTC) without --end-date, so recent presets show data", async () => {
    const path = join(dir, "today.duckdb");
    const before = todayIn("UTC");
    const r = cli("generate", "--db", path, "--days", "3", "--orders-per-day", "10", "--seed", "1");
    expect(r.status, r.stderr).toBe(0);
    const last = await withDb(path, (db) => db.all<{ d: string }>("SELECT max(attempt_date)::VARCHAR AS d FROM attempts"));
    // Either side of midnight UTC, should the run cross it.
    expect([before, todayIn("UTC")]).toContain(last[0]?.d);
  });

  it("refuses bad options with the option named (exit 2), changing nothing", async () => {
    const path = join(dir, "a.duckdb");
    const before = await dump(path);
    for (const [args, message] of [
      [["--days", "0", "--orders-per-day", "5", "--seed", "1"], "--days must be an integer ≥ 1"],
      [["--days", "5", "--orders-per-day", "x", "--seed", "1"], "--orders-per-day must be an integer ≥ 1"],
      [["--days", "5", "--orders-per-day", "5"], "--seed is required"],
      [["--days", "5", "--orders-per-day", "5", "--seed", "1", "--end-date", "2025-02-30"], "--end-date must be a real date"],
    ] as const) {
      const r = cli("generate", "--db", path, ...args);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(message);
    }
    expect(await dump(path)).toEqual(before);
  });
});

describe("import --db PATH --dir DIR", () => {
  const writeDir = (name: string, files: Record<string, string>) => writeCsvDir(join(dir, name), files);

  it("reports every rejected row as file:line: reason and loads nothing (exit 1); loads a clean directory once", async () => {
    const path = join(dir, "import.duckdb");
    const bad = writeDir("bad", {
      ...VALID_IMPORT,
      "refunds.csv": ["refund_id,attempt_id,refund_date,amount,refund_type", "1,4,2025-08-05,89.999,refund cs", "2,4,2025-02-30,1.00,Refund CS"].join("\n"),
    });
    const rejected = cli("import", "--db", path, "--dir", bad);
    expect(rejected.status).toBe(1);
    expect(rejected.stderr).toMatch(/refunds\.csv:2: .*amount/);
    expect(rejected.stderr).toMatch(/refunds\.csv:3: .*refund_date/);
    expect(JSON.parse(lastLine(rejected.stdout))).toMatchObject({ ok: false, rejected: 2 });
    const empty = await dump(path);
    expect(Object.values(empty).every((rows) => rows.length === 0)).toBe(true);

    const good = writeDir("good", VALID_IMPORT);
    const first = cli("import", "--db", path, "--dir", good);
    expect(first.status, first.stderr).toBe(0);
    expect(JSON.parse(lastLine(first.stdout))).toMatchObject({ ok: true, inserted: { attempts: 4, refunds: 1, chargebacks: 1, alerts: 1 }, rejected: 0 });
    const again = cli("import", "--db", path, "--dir", good);
    expect(again.status).toBe(0);
    expect(JSON.parse(lastLine(again.stdout))).toMatchObject({ ok: true, inserted: { attempts: 0, refunds: 0 }, skipped_duplicates: { attempts: 4, refunds: 1 } });
    const counts = await withDb(path, (db) => db.all<{ n: number }>("SELECT count(*)::INTEGER AS n FROM attempts"));
    expect(counts[0]?.n).toBe(4);
  });
});

describe("create-client, and npm run service over the same file", () => {
  const path = () => join(dir, "a.duckdb");

  it("prints the new client as JSON on the last line", () => {
    const r = cli("create-client", "--db", path(), "--name", "ops");
    expect(r.status, r.stderr).toBe(0);
    const c = JSON.parse(lastLine(r.stdout)) as Record<string, string>;
    expect(Object.keys(c).sort()).toEqual(["client_id", "client_secret"]);
    expect(c.client_secret!.length).toBeGreaterThanOrEqual(32);
  });

  it("refuses to start without SERVICE_TOKEN_SECRET, naming it", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, SERVICE_DB: path(), SERVICE_PORT: "0" };
    delete env.SERVICE_TOKEN_SECRET;
    const r = tsx("service/main.ts", [], env);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("SERVICE_TOKEN_SECRET is required");
  });

  it("serves /healthz and reports to a client made by create-client; writing commands refuse while it runs", async () => {
    const client = JSON.parse(lastLine(cli("create-client", "--db", path(), "--name", "dashboard").stdout)) as { client_id: string; client_secret: string };
    const child = spawn(process.execPath, ["--import", "tsx", "service/main.ts"], {
      env: { ...process.env, SERVICE_DB: path(), SERVICE_PORT: "0", SERVICE_TOKEN_SECRET: TEST_TOKEN_SECRET, SERVICE_LOG: "json" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    service = child;
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).on("line", (line) => {
          if (line.includes('"msg":"listening"')) resolve((JSON.parse(line) as { url: string }).url);
        });
        child.once("exit", (code) => reject(new Error(`service exited (${code}) before listening`)));
        setTimeout(() => reject(new Error("service did not listen within 30 s")), 30_000).unref();
      });
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);

      const tokenRes = await fetch(`${url}/api/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(client) });
      expect(tokenRes.status).toBe(200);
      const token = ((await tokenRes.json()) as { data: { access_token: string } }).data.access_token;
      const res = await fetch(`${url}/api/data`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "x-client-id": client.client_id, "x-client-secret": client.client_secret },
        body: JSON.stringify({ start_date: "2025-07-20", end_date: "2025-07-31", group_by: ["date"], metrics: ["attempts"] }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: { date: string; attempts: number }[] };
      expect(body.data.map((r) => r.date)).toHaveLength(12);

      const busy = cli("create-client", "--db", path(), "--name", "while running");
      expect(busy.status).toBe(3);
      expect(busy.stderr).toMatch(/in use by another process/);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});
