/**
 * The derived tables rebuilt a chunk of dates at a time (service/data/derived.ts), and facts added to
 * them a range of dates at a time as an import adds them, equal the tables built in one piece, every
 * table, every row, on a generated data set of 400 days.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Database } from "../db";
import { GRAINS, ROLLUPS } from "../reports/grain";
import { addToDerived, EVENT_FACT_TABLES, rebuildDerived } from "./derived";
import { generate } from "./generator";
import { migrate } from "./schema";

const DERIVED = [...Object.values(EVENT_FACT_TABLES).map((d) => d.facts), ...(["orders", "cohort"] as const).flatMap((op) => [GRAINS[op].table, ROLLUPS[op].table])];

const DAYS = 400;
const ORDERS_PER_DAY = 40;

let dir: string;
let db: Database;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "derived-test-"));
  db = await Database.open(join(dir, "d.duckdb"));
  await migrate(db);
  // What is compared does not depend on the rows a day holds, only on the dates: 400 days keep
  // every chunk boundary of the week and month chunks (57 and 13 chunks, the last of each partial)
  // and subscribers' rebills, refunds and chargebacks landing in chunks after their cohort's, as
  // the million attempts of bench:reports' 1m size did, at a twentieth of the rows (40 orders a
  // day, about 40 k attempts; every table still has rows on both sides of each comparison).
  await generate(db, { days: DAYS, ordersPerDay: ORDERS_PER_DAY, seed: 1234, endDate: "2026-06-30" });
});
afterAll(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Copies of every derived table as they are now. */
async function snapshot(name: string): Promise<void> {
  for (const t of DERIVED) await db.run(`CREATE OR REPLACE TABLE ${name}_${t} AS SELECT * FROM ${t}`);
}

/** Rows of each derived table that differ from the snapshot, both ways, and the row counts. */
async function differences(name: string): Promise<Record<string, { rows: number; snapshot: number; differing: number }>> {
  const out: Record<string, { rows: number; snapshot: number; differing: number }> = {};
  for (const t of DERIVED) {
    const [row] = await db.all<{ rows: string; snap: string; differing: string }>(
      `SELECT (SELECT count(*) FROM ${t})::VARCHAR AS rows, (SELECT count(*) FROM ${name}_${t})::VARCHAR AS snap,
              (SELECT count(*) FROM ((SELECT * FROM ${t} EXCEPT ALL SELECT * FROM ${name}_${t}) UNION ALL (SELECT * FROM ${name}_${t} EXCEPT ALL SELECT * FROM ${t})))::VARCHAR AS differing`,
    );
    out[t] = { rows: Number(row?.rows), snapshot: Number(row?.snap), differing: Number(row?.differing) };
  }
  return out;
}

describe("rebuilding the derived tables a chunk of dates at a time", () => {
  it("gives the same tables, row for row, as one piece, for chunks of a week and of a month", async () => {
    await db.transaction((tx) => rebuildDerived(tx, { chunkDays: 100_000 }));
    await snapshot("whole");
    const attempts = Number((await db.all<{ n: string }>("SELECT count(*)::VARCHAR AS n FROM attempts"))[0]?.n);
    // Every order makes at least one attempt, and some retry or rebill: more than one per order.
    expect(attempts).toBeGreaterThan(DAYS * ORDERS_PER_DAY);
    for (const chunkDays of [7, 31]) {
      await db.transaction((tx) => rebuildDerived(tx, { chunkDays }));
      const diff = await differences("whole");
      for (const [table, d] of Object.entries(diff)) {
        expect(d.rows, `${table}, chunks of ${chunkDays} days`).toBeGreaterThan(0);
        expect(d, `${table}, chunks of ${chunkDays} days`).toEqual({ rows: d.snapshot, snapshot: d.snapshot, differing: 0 });
      }
    }
  }, 300_000);
});

describe("adding an import's facts a range of dates at a time", () => {
  const CUTOFF = "2026-05-01"; // the last two months of the data set, and every event after it
  // Facts a range holds at most, when cut by count: a small fraction of the import, so it is cut
  // into many ranges (as 20,000 cut the 150 k imported attempts of a million-attempt data set).
  const CHUNK_FACTS = 1_000;
  const EVENTS = [
    ["refunds", "refund_id", "refund_date"],
    ["chargebacks", "chargeback_id", "cb_date"],
    ["alerts", "alert_id", "alert_date"],
  ] as const;

  it("gives the same tables, row for row, as a rebuild over all the facts, whatever the ranges", async () => {
    await db.transaction((tx) => rebuildDerived(tx));
    await snapshot("all");
    // The facts an import would add: recent attempts, and events that are recent or of those attempts
    // (so some events land on old attempts' dates). They leave the facts, which are rebuilt without them.
    await db.transaction(async (tx) => {
      await tx.run("CREATE TABLE import_attempts AS SELECT * FROM attempts WHERE attempt_date >= $1::DATE", [CUTOFF]);
      for (const [table, id, date] of EVENTS) {
        await tx.run(
          `CREATE TABLE import_${table} AS SELECT * FROM ${table} WHERE ${date} >= $1::DATE OR attempt_id IN (SELECT attempt_id FROM import_attempts)`,
          [CUTOFF],
        );
        await tx.run(`DELETE FROM ${table} WHERE ${id} IN (SELECT ${id} FROM import_${table})`);
      }
      await tx.run("DELETE FROM attempts WHERE attempt_id IN (SELECT attempt_id FROM import_attempts)");
      await rebuildDerived(tx);
    });
    const imported = Number((await db.all<{ n: string }>("SELECT count(*)::VARCHAR AS n FROM import_attempts"))[0]?.n);
    // Enough that cutting by CHUNK_FACTS makes several ranges (each attempt counts on two dates).
    expect(imported).toBeGreaterThan(4 * CHUNK_FACTS);

    // Each way of cutting the dates, in a transaction rolled back after the comparison.
    for (const opts of [{}, { chunkDays: 7 }, { chunkFacts: CHUNK_FACTS }]) {
      const rollback = new Error("compared");
      await expect(
        db.transaction(async (tx) => {
          await tx.run("INSERT INTO attempts SELECT * FROM import_attempts");
          for (const [table] of EVENTS) await tx.run(`INSERT INTO ${table} SELECT * FROM import_${table}`);
          await addToDerived(tx, { attempts: "import_attempts", refunds: "import_refunds", chargebacks: "import_chargebacks", alerts: "import_alerts" }, opts);
          for (const t of DERIVED) {
            const [row] = await tx.all<{ differing: string; rows: string }>(
              `SELECT (SELECT count(*) FROM ((SELECT * FROM ${t} EXCEPT ALL SELECT * FROM all_${t}) UNION ALL (SELECT * FROM all_${t} EXCEPT ALL SELECT * FROM ${t})))::VARCHAR AS differing,
                      (SELECT count(*) FROM ${t})::VARCHAR AS rows`,
            );
            expect({ table: t, differing: Number(row?.differing), rows: Number(row?.rows) > 0 }, JSON.stringify(opts)).toEqual({ table: t, differing: 0, rows: true });
          }
          throw rollback;
        }),
      ).rejects.toBe(rollback);
    }
  }, 300_000);
});
