/**
 * The service's data in ClickHouse, all or nothing. The DuckDB file stays where data is generated and
 * imported (validated in one transaction, as before) and where clients and routing live; each change
 * of its facts stamps a new data version (service/data/derived.ts). Publishing copies one version
 * into a database of its own — reference tables, denormalized facts, and the grains their
 * materialized views build — checks every table's row count against DuckDB's, and only then points
 * the version table at it. A report reads the database the pointer names, so it sees the whole old
 * version or the whole new one, never a half-loaded one; a failed publish leaves the pointer alone
 * and its half-built database is dropped. A publish whose process died (killed, the machine lost)
 * cannot drop its own: its database's name says when it started, a publish gives up after
 * MAX_PUBLISH_MS, and one never published after twice that is dropped by the next instance to look.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database } from "../db";
import { dataVersion } from "../data/derived";
import type { ClickHouseServers } from "./connection";
import { DATE_RANGE, renderLiteral } from "./literals";
import { GRAINS, grainTables } from "../reports/grain";
import type { Operation } from "@/lib/contract";
import { createStatements, readable, schemaHash, SHIPPED_TABLES, sourceSql, viewNames } from "./schema";

export interface Published {
  /** The data version and table definitions it holds. */
  version: string;
  database: string;
  /** Each grain holds one row per key combination (merged and checked at publish). */
  uniqueGrain: boolean;
}

/**
 * Rows per insert block of the facts. A view's aggregate of a block at the finest grain is nearly
 * as many rows as the block; 250,000 keeps it within a few hundred MB (a whole 10 M-row file as
 * blocks of 1 M rows passed a 2 GB query limit) while a grain row still sums many facts.
 */
const INSERT_BLOCK_ROWS = 250_000;

/**
 * The longest a publish may take before it gives up without publishing (a 100 M-attempt file takes
 * minutes). A database no publish has named after twice this is abandoned: the publish that built it
 * either gave up or died, and the gap between the two leaves hours of room for clocks that differ.
 */
export const MAX_PUBLISH_MS = 6 * 3600_000;

const metaDatabase = (prefix: string) => `${prefix}_meta`;

/** A version's database: the prefix, the data version, when its publish started (ms), and a random part. */
const versionDatabase = (prefix: string, version: string, startedMs: number) =>
  `${prefix}_${version.replace(/[^0-9a-z]/gi, "").slice(0, 32)}_${startedMs}_${randomBytes(4).toString("hex")}`;

/** When the publish that built `name` started, from the name; null for a name not made by versionDatabase. */
export function publishStartedMs(prefix: string, name: string): number | null {
  if (!name.startsWith(`${prefix}_`)) return null;
  const m = /^[0-9a-z]{0,32}_(\d{13})_[0-9a-f]{8}$/i.exec(name.slice(prefix.length + 1));
  return m ? Number(m[1]) : null;
}
const versionTable = (prefix: string) => `${metaDatabase(prefix)}.versions`;

/** The version the pointer names, or null before the first publish (the table is made by ensurePublished). */
export async function currentVersion(ch: ClickHouseServers): Promise<Published | null> {
  const prefix = ch.config.database;
  const rows = await ch.first.rows<{ version: string; database: string; unique_grain: number }>(
    `SELECT version, database, unique_grain FROM ${versionTable(prefix)} ORDER BY published_ms DESC LIMIT 1`,
  );
  const row = rows[0];
  return row ? { version: row.version, database: row.database, uniqueGrain: row.unique_grain === 1 } : null;
}

/** What DuckDB holds now, as a version name: its data version and the ClickHouse tables' definition. */
export async function wantedVersion(db: Database): Promise<string> {
  return `${(await dataVersion(db)) ?? "none"}.${schemaHash()}`;
}

/**
 * Makes ClickHouse hold what DuckDB holds: nothing when the pointer already names this version,
 * else a publish. Returns the database reports read.
 */
export async function ensurePublished(
  db: Database,
  ch: ClickHouseServers,
  log: (msg: string) => void = () => undefined,
  /** Tests only: how long this publish may take, and the clock. */
  limits: { maxPublishMs?: number; now?: () => number } = {},
): Promise<Published> {
  const wanted = await wantedVersion(db);
  // Once, at start: reports read the version table every few seconds and need not create it.
  const prefix = ch.config.database;
  await ch.first.command(`CREATE DATABASE IF NOT EXISTS ${metaDatabase(prefix)}`);
  await ch.first.command(
    `CREATE TABLE IF NOT EXISTS ${versionTable(prefix)} (published_ms UInt64, version String, database String, unique_grain UInt8) ENGINE = MergeTree() ORDER BY published_ms`,
  );
  const now = limits.now ?? Date.now;
  await dropAbandoned(ch, now(), log);
  const current = await currentVersion(ch);
  if (current?.version === wanted) return current;
  return publish(db, ch, wanted, log, now, limits.maxPublishMs ?? MAX_PUBLISH_MS);
}

async function publish(db: Database, ch: ClickHouseServers, version: string, log: (msg: string) => void, now: () => number, maxPublishMs: number): Promise<Published> {
  const prefix = ch.config.database;
  // A name of its own for each publish: two instances starting at once each build theirs, and
  // neither drops the other's half-built tables.
  const startedMs = now();
  const database = versionDatabase(prefix, version, startedMs);
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), "ch-publish-"));
  let published: Published;
  try {
    await checkDates(db);
    for (const node of ch.nodes) {
      await node.command(`DROP DATABASE IF EXISTS ${database}`);
      for (const statement of createStatements(database, ch.cluster)) await node.command(statement);
    }
    for (const t of SHIPPED_TABLES) {
      const file = join(dir, `${t.name}.csv`);
      // DuckDB writes the rows (\N for null; every string quoted, so a string is never read as null).
      const stringColumns = t.columns.filter(([, type]) => type.includes("String")).map(([n]) => n);
      await db.run(
        `COPY (${sourceSql(t)}) TO '${file.replace(/'/g, "''")}' (FORMAT CSV, HEADER false, NULLSTR '\\N'${stringColumns.length ? `, FORCE_QUOTE (${stringColumns.join(", ")})` : ""})`,
      );
      const columns = t.columns.map(([n]) => n);
      if (t.kind === "reference") {
        for (const node of ch.nodes) await node.insertCsvFile(`${database}.${t.name}`, columns, file);
      } else {
        // Through the Distributed table on a cluster, synchronously: each row is on its shard when
        // the insert returns, so the counts below are final.
        // Blocks of INSERT_BLOCK_ROWS: each view aggregates one block at a time, so its memory is
        // bounded by the block, not by the table.
        const settings = {
          max_insert_block_size: INSERT_BLOCK_ROWS,
          // The server squashes small blocks into blocks of a million rows before the views see them.
          min_insert_block_size_rows: INSERT_BLOCK_ROWS,
          ...(ch.cluster ? { insert_distributed_sync: 1 } : {}),
        };
        await ch.first.insertCsvFile(`${database}.${readable(t.name, ch.cluster)}`, columns, file, settings);
      }
      rmSync(file);
      const [expected] = await db.all<{ n: string }>(`SELECT count(*)::VARCHAR AS n FROM ${t.from}`);
      const [got] = await ch.first.rows<{ n: string }>(`SELECT toString(count()) AS n FROM ${database}.${t.kind === "fact" ? readable(t.name, ch.cluster) : t.name}`);
      if (!got || expected?.n !== got.n) throw new Error(`ClickHouse holds ${got?.n ?? "no"} rows of ${t.name}, DuckDB ${expected?.n ?? "none"}: publish abandoned`);
      log(`published ${t.name} (${Number(got.n).toLocaleString("en-US")} rows)`);
    }
    // The grains are complete; nothing inserts into this version again.
    for (const node of ch.nodes) for (const view of viewNames()) await node.command(`DROP TABLE ${database}.${view}`);
    const uniqueGrain = await mergeGrains(ch, database);
    log(uniqueGrain ? "grains merged: one row per key" : "grains left to be aggregated by each report");
    // Past its time, another instance may take this database for abandoned (dropAbandoned): never point at it.
    if (now() - startedMs > maxPublishMs) throw new Error(`publish took longer than ${maxPublishMs / 60_000} minutes: abandoned`);
    await ch.first.command(
      `INSERT INTO ${versionTable(prefix)} (published_ms, version, database, unique_grain) VALUES (` +
        `${renderLiteral({ int: Date.now() })}, ${renderLiteral({ text: version })}, ${renderLiteral({ text: database })}, ${uniqueGrain ? 1 : 0})`,
    );
    published = { version, database, uniqueGrain };
  } catch (e) {
    for (const node of ch.nodes) await node.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
    throw e;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  await dropOldVersions(ch);
  log(`published version ${version} to ${database} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return published;
}

/**
 * Merges each grain on every node (OPTIMIZE … FINAL: every partition into one part, rows of one key
 * summed) and checks it: true when every partition is one part, so each key combination is one row
 * (on a cluster too: a key's rows are all on its shard, schema.ts) and a report at the finest grain
 * can read rows as they are. A partition left in several parts (the server may decline a merge)
 * makes the version one whose reports aggregate, still exact.
 */
async function mergeGrains(ch: ClickHouseServers, database: string): Promise<boolean> {
  for (const grain of (Object.keys(GRAINS) as Operation[]).flatMap(grainTables)) {
    for (const node of ch.nodes) {
      await node.command(`OPTIMIZE TABLE ${database}.${grain.table} FINAL`);
      const split = await node.rows<{ partition: string }>(
        `SELECT partition FROM system.parts WHERE active AND database = ${renderLiteral({ text: database })} AND table = ${renderLiteral({ text: grain.table })} ` +
          "GROUP BY partition HAVING count() > 1",
      );
      if (split.length > 0) return false;
    }
  }
  return true;
}

/**
 * ClickHouse 18.16's Date holds 1970-01-01 to 2105-12-31 and silently stores any other date as the
 * first: data holding one is refused whole, with where it is, rather than published changed.
 */
async function checkDates(db: Database): Promise<void> {
  for (const t of SHIPPED_TABLES) {
    for (const [name, type, from] of t.columns) {
      if (type !== "Date") continue;
      const [row] = await db.all<{ n: string; first: string | null }>(
        `SELECT count(*)::VARCHAR AS n, min(${from})::VARCHAR AS first FROM ${t.from} WHERE ${from} NOT BETWEEN ?::DATE AND ?::DATE`,
        [DATE_RANGE.min, DATE_RANGE.max],
      );
      if (row && row.n !== "0") {
        throw new Error(`${t.name}.${name} holds ${row.n} date(s) outside ${DATE_RANGE.min}..${DATE_RANGE.max} (first ${row.first}), which ClickHouse cannot store: publish refused`);
      }
    }
  }
}

/**
 * Every published version but the newest two (a report may still be reading the one before). Only
 * published ones: a database not yet in the version table may be another instance's publish in
 * progress.
 */
async function dropOldVersions(ch: ClickHouseServers): Promise<void> {
  const published = await publishedDatabases(ch);
  const old = new Set(published.slice(2));
  if (old.size === 0) return;
  for (const node of ch.nodes) {
    for (const name of await prefixedDatabases(node, ch.config.database)) if (old.has(name)) await node.command(`DROP DATABASE IF EXISTS ${name}`);
  }
}

/**
 * Every database a publish started more than twice MAX_PUBLISH_MS ago and that no version names: its
 * publish died before it could drop it (a publish that fails drops its own). Named ones are
 * dropOldVersions' to drop; a name without a start time (none is made so) is left alone.
 */
async function dropAbandoned(ch: ClickHouseServers, nowMs: number, log: (msg: string) => void): Promise<void> {
  const prefix = ch.config.database;
  const published = new Set(await publishedDatabases(ch));
  for (const node of ch.nodes) {
    for (const name of await prefixedDatabases(node, prefix)) {
      const startedMs = publishStartedMs(prefix, name);
      if (startedMs === null || published.has(name) || nowMs - startedMs <= 2 * MAX_PUBLISH_MS) continue;
      await node.command(`DROP DATABASE IF EXISTS ${name}`);
      log(`dropped ${name}: a publish started ${new Date(startedMs).toISOString()} and never finished`);
    }
  }
}

/** The databases the version table names, newest first. */
async function publishedDatabases(ch: ClickHouseServers): Promise<string[]> {
  return (await ch.first.rows<{ database: string }>(`SELECT database FROM ${versionTable(ch.config.database)} ORDER BY published_ms DESC`)).map((r) => r.database);
}

/** The databases on `node` whose names start with the prefix and an underscore (versions, and _meta). */
async function prefixedDatabases(node: ClickHouseServers["first"], prefix: string): Promise<string[]> {
  return (await node.rows<{ name: string }>(`SELECT name FROM system.databases WHERE startsWith(name, ${renderLiteral({ text: `${prefix}_` })})`)).map((r) => r.name);
}
