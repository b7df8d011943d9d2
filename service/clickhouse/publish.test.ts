/**
 * Publishing the DuckDB file's data to a real ClickHouse (service/clickhouse/publish.ts): an import
 * reaches ClickHouse at the next publish and answers there as in DuckDB; a publish that cannot be
 * whole changes nothing readers see; two publishes at once each build their own version; a publish
 * that died leaves a database the next instance drops, once no publish can still be building it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Operation, ReportRequest } from "@/lib/contract";
import { Database } from "../db";
import { rebuildDerived } from "../data/derived";
import { generate } from "../data/generator";
import { importDirectory } from "../data/importer";
import { migrate } from "../data/schema";
import { runReport } from "../reports/run";
import { clickhouseServerBinary, startTestClickHouse, type TestClickHouse } from "../testing/clickhouse";
import { VALID_IMPORT, writeCsvDir } from "../testing/import-fixture";
import { ClickHouseServers } from "./connection";
import { ident } from "./dialect";
import { grainTables } from "../reports/grain";
import { currentVersion, ensurePublished, MAX_PUBLISH_MS, type Published } from "./publish";
import { ClickHouseReports } from "./reports";

let ch: TestClickHouse;
let servers: ClickHouseServers;
let db: Database;
let dir: string;

// scripts/test-servers.sh installs the server where it can, and names this suite when it cannot.
const available = clickhouseServerBinary() !== null;

beforeAll(async () => {
  if (!available) return;
  dir = mkdtempSync(join(tmpdir(), "ch-publish-test-"));
  ch = await startTestClickHouse();
  servers = new ClickHouseServers({ urls: [ch.url], cluster: null, database: "payments" });
  db = await Database.open(join(dir, "service.duckdb"));
  await migrate(db);
  // As the service does at start, before it publishes: an empty file gets its (empty) derived tables.
  await db.transaction((tx) => rebuildDerived(tx));
});

afterAll(async () => {
  if (!available) return;
  db?.close();
  await servers?.close();
  await ch?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const REQUESTS: [Operation, ReportRequest][] = [
  ["orders", { start_date: "2025-06-01", end_date: "2025-08-31" }],
  ["orders", { start_date: "2025-06-01", end_date: "2025-08-31", group_by: ["bank", "sales_type"], metrics: ["revenue", "refund_amount", "cb_count"] }],
  ["orders", { start_date: "2025-06-01", end_date: "2025-08-31", group_by: ["date", "affid"], filters: { affid: [null, "aff1"] } }],
  ["cohort", { start_date: "2025-06-01", end_date: "2025-08-31" }],
];

async function expectSameAnswers(published: Published): Promise<void> {
  const reports = new ClickHouseReports(servers, published);
  for (const [op, req] of REQUESTS) {
    expect(await reports.run(op, req), `${op} ${JSON.stringify(req)}`).toEqual(await runReport(db, op, req));
  }
}

async function databases(): Promise<string[]> {
  return (await servers.first.rows<{ name: string }>("SELECT name FROM system.databases WHERE startsWith(name, 'payments_') ORDER BY name")).map((r) => r.name);
}

describe.skipIf(!available)("publishing to ClickHouse", () => {
  let first: Published;
  let imported: Published;

  it("publishes once per data version: a second look at the same data changes nothing", async () => {
    first = await ensurePublished(db, servers);
    expect(await ensurePublished(db, servers)).toEqual(first);
    expect(await currentVersion(servers)).toEqual(first);
  });

  it("an import reaches ClickHouse at the next publish, and answers there as in DuckDB", async () => {
    const result = await importDirectory(db, writeCsvDir(join(dir, "import"), VALID_IMPORT));
    expect(result.ok).toBe(true);
    imported = await ensurePublished(db, servers);
    expect(imported.version).not.toBe(first.version);
    expect(imported.database).not.toBe(first.database);
    // One node: each grain merged to a row per key, so finest-grain reports read rows as they are.
    expect(imported.uniqueGrain).toBe(true);
    const [row] = await servers.first.rows<{ n: string }>(`SELECT toString(count()) AS n FROM ${imported.database}.attempts`);
    const [expected] = await db.all<{ n: string }>("SELECT count(*)::VARCHAR AS n FROM attempts");
    expect(Number(expected?.n)).toBeGreaterThan(0);
    expect(row?.n).toBe(expected?.n);
    await expectSameAnswers(imported);
  });

  it("refuses a version it cannot hold whole, and readers keep the one before", async () => {
    const before = await databases();
    // A date ClickHouse's Date cannot hold: it would silently become 1970-01-01.
    await db.transaction(async (tx) => {
      await tx.run("UPDATE attempts SET attempt_date = DATE '1969-12-31' WHERE attempt_id = (SELECT min(attempt_id) FROM attempts)");
      await rebuildDerived(tx);
    });
    await expect(ensurePublished(db, servers)).rejects.toThrow(/attempts\.attempt_date holds 1 date\(s\) outside 1970-01-01\.\.2105-12-31 \(first 1969-12-31\)/);
    expect(await currentVersion(servers)).toEqual(imported);
    expect(await databases()).toEqual(before);
    // Put right, the next publish goes through.
    await db.transaction(async (tx) => {
      await tx.run("UPDATE attempts SET attempt_date = initial_date WHERE attempt_date = DATE '1969-12-31'");
      await rebuildDerived(tx);
    });
    await expectSameAnswers(await ensurePublished(db, servers));
  });

  it("two publishes at once each build their own version; the pointer names a whole one, and old versions go", async () => {
    await db.transaction(async (tx) => rebuildDerived(tx)); // a new data version, same data
    const [a, b] = await Promise.all([ensurePublished(db, servers), ensurePublished(db, servers)]);
    expect(a.version).toBe(b.version);
    expect(a.database).not.toBe(b.database);
    const current = await currentVersion(servers);
    expect([a.database, b.database]).toContain(current?.database);
    await expectSameAnswers(current!);
    // The current version and the one before it are kept (a report may still read it); older ones are dropped.
    expect((await databases()).filter((d) => d !== "payments_meta")).toHaveLength(2);
  });

  it("a publish past its time gives up: its database is dropped and readers keep the version before", async () => {
    const current = await currentVersion(servers);
    const before = await databases();
    await db.transaction(async (tx) => rebuildDerived(tx)); // a new data version to publish
    await expect(ensurePublished(db, servers, undefined, { maxPublishMs: 0 })).rejects.toThrow(/publish took longer than 0 minutes: abandoned/);
    expect(await currentVersion(servers)).toEqual(current);
    expect(await databases()).toEqual(before);
  });

  it("drops the database of a publish that died once no publish could still be building it; keeps a young one and every published one", async () => {
    await ensurePublished(db, servers); // the version the test before left unpublished
    const published = (await databases()).filter((d) => d !== "payments_meta");
    const hour = 3600_000;
    const died = `payments_${"a".repeat(32)}_${Date.now() - 2 * MAX_PUBLISH_MS - hour}_0badcafe`;
    const building = `payments_${"b".repeat(32)}_${Date.now() - 2 * MAX_PUBLISH_MS + hour}_0badcafe`;
    // The published versions were built seconds ago: from a clock days ahead they are older than both.
    const daysLater = () => Date.now() + 4 * MAX_PUBLISH_MS;
    const notOurs = "payments_scratch";
    for (const name of [died, building, notOurs]) await servers.first.command(`CREATE DATABASE ${name}`);
    const logged: string[] = [];
    try {
      await ensurePublished(db, servers, (m) => logged.push(m));
      expect(await databases()).toEqual([...published, building, notOurs, "payments_meta"].sort());
      expect(logged.filter((m) => m.startsWith("dropped "))).toEqual([expect.stringContaining(`dropped ${died}: a publish started `)]);
      // Days later the young one's publish has had its time too; the published versions, as old by
      // then, stay: the pointer names them.
      await ensurePublished(db, servers, undefined, { now: daysLater });
      expect(await databases()).toEqual([...published, notOurs, "payments_meta"].sort());
    } finally {
      for (const name of [died, building, notOurs]) await servers.first.command(`DROP DATABASE IF EXISTS ${name}`);
    }
  });
});

describe.skipIf(!available)("publishing to two shards", () => {
  it("sends each grain row to its key's shard, so merged shards hold each key combination once over the cluster", async () => {
    const cluster = await startTestClickHouse({ shards: 2 });
    const sharded = new ClickHouseServers({ urls: cluster.urls, cluster: cluster.cluster, database: "payments" });
    // Generated data: a grain key gets rows from many insert blocks and from every fact table.
    const generated = await Database.open(join(dir, "generated.duckdb"));
    try {
      await migrate(generated);
      await generate(generated, { days: 30, ordersPerDay: 60, seed: 11, endDate: "2025-07-31" });
      const published = await ensurePublished(generated, sharded);
      expect(published.uniqueGrain).toBe(true);
      for (const { table, keys: grainKeys } of (["orders", "cohort"] as const).flatMap(grainTables)) {
        const keys = grainKeys.map(ident);
        const [row] = await sharded.first.rows<{ rows: string; distinct: string }>(
          `SELECT toString(count()) AS rows, toString((SELECT count() FROM (SELECT 1 FROM ${published.database}.${table}_all GROUP BY ${keys.join(", ")}))) AS distinct FROM ${published.database}.${table}_all`,
        );
        expect(Number(row?.rows), table).toBeGreaterThan(0);
        expect(row?.distinct, table).toBe(row?.rows);
        // Both shards hold part of it.
        for (const node of sharded.nodes) {
          const [local] = await node.rows<{ n: string }>(`SELECT toString(count()) AS n FROM ${published.database}.${table}`);
          expect(Number(local?.n), table).toBeGreaterThan(0);
        }
      }
      const reports = new ClickHouseReports(sharded, published);
      for (const [op, req] of REQUESTS) {
        const within = { ...req, start_date: "2025-07-01", end_date: "2025-07-31" };
        expect(await reports.run(op, within), `${op} ${JSON.stringify(within)}`).toEqual(await runReport(generated, op, within));
      }
    } finally {
      generated.close();
      await sharded.close();
      await cluster.stop();
    }
  });
});
