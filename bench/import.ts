// Import benchmark: `npm run bench:import` (after `npm run bench:reports`, whose 10 M-attempt file it
// copies). Imports one day of new data the way a daily export arrives: every attempt of the file's
// last day again on the next day (new ids), and chargebacks dated that day on approved attempts 30–120
// days old. Compares, in one run, the import (which adds its facts to the derived tables) with
// rebuilding every derived table from scratch on the same file.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addDays } from "../lib/contract/dates";
import { Database } from "../service/db";
import { EVENT_FACT_TABLES, rebuildDerived } from "../service/data/derived";
import { importDirectory } from "../service/data/importer";
import { GRAINS } from "../service/reports/grain";
import { machine, median } from "./lib";

const SOURCE = process.env.BENCH_DB ?? "data/bench-10m.duckdb";
const RUNS = 3;
const CHARGEBACKS = 300;

/** Cents as the import format's decimal text. */
const money = (col: string) => `printf('%d.%02d', ${col} // 100, ${col} % 100)`;

async function writeExport(db: Database, dir: string, end: string): Promise<void> {
  const next = addDays(end, 1);
  const ids = (await db.all<{ a: string; o: string; c: string }>(
    "SELECT max(attempt_id)::BIGINT AS a, max(order_id)::BIGINT AS o, coalesce(max(chargeback_id), 0)::BIGINT AS c FROM attempts, (SELECT max(chargeback_id) AS chargeback_id FROM chargebacks)",
  ))[0]!;
  await db.run(
    `COPY (
       SELECT attempt_id + ${BigInt(ids.a)} AS attempt_id, order_id + ${BigInt(ids.o)} AS order_id, customer_id,
              strftime(attempted_at + INTERVAL 1 DAY, '%Y-%m-%d %H:%M:%S') AS attempted_at, attempt_no, is_cascade, approved,
              ${money("amount_cents")} AS amount, billing_cycle, sales_type, campaign_id, product_id, gateway_id, bin, affid, sub_affid,
              ${money("price_point_cents")} AS price_point, initial_date
       FROM attempts WHERE attempt_date = ?::DATE ORDER BY attempt_id
     ) TO '${join(dir, "attempts.csv")}' (HEADER)`,
    [end],
  );
  await db.run(
    `COPY (
       SELECT ${BigInt(ids.c)} + row_number() OVER (ORDER BY hash(attempt_id)) AS chargeback_id, attempt_id, ?::DATE AS cb_date,
              ${money("amount_cents")} AS amount
       FROM attempts
       WHERE approved AND attempt_date BETWEEN ?::DATE AND ?::DATE AND attempt_id NOT IN (SELECT attempt_id FROM chargebacks)
       ORDER BY hash(attempt_id) LIMIT ${CHARGEBACKS}
     ) TO '${join(dir, "chargebacks.csv")}' (HEADER)`,
    [next, addDays(end, -120), addDays(end, -30)],
  );
}

async function main(): Promise<void> {
  if (!existsSync(SOURCE)) throw new Error(`${SOURCE} is missing: run npm run bench:reports first`);
  const work = mkdtempSync(join(tmpdir(), "bench-import-"));
  try {
    const importMs: number[] = [];
    const rebuildMs: number[] = [];
    let summary = "";
    let checked = "";
    for (let run = 0; run < RUNS; run++) {
      const file = join(work, `run-${run}.duckdb`);
      copyFileSync(SOURCE, file);
      if (existsSync(`${SOURCE}.wal`)) copyFileSync(`${SOURCE}.wal`, `${file}.wal`);
      const db = await Database.open(file, { connections: 2 });
      try {
        const end = (await db.all<{ d: string }>("SELECT max(attempt_date) AS d FROM attempts"))[0]!.d;
        const dir = mkdtempSync(join(work, "export-"));
        await writeExport(db, dir, end);
        const t = performance.now();
        const r = await importDirectory(db, dir);
        importMs.push(performance.now() - t);
        if (!r.ok) throw new Error(`import rejected: ${JSON.stringify(r.rejections.slice(0, 5))}`);
        const attempts = (await db.all<{ n: string }>("SELECT count(*)::BIGINT AS n FROM attempts"))[0]!.n;
        summary =
          `Import: ${r.inserted.attempts?.toLocaleString("en-US")} attempts dated ${addDays(end, 1)} and ${r.inserted.chargebacks} chargebacks ` +
          `dated the same day on attempts from ${addDays(end, -120)} to ${addDays(end, -30)}, into a file of ${Number(attempts).toLocaleString("en-US")} attempts.`;
        // The first run also checks that the import left the derived tables where the rebuild puts them.
        const derived = [...Object.values(EVENT_FACT_TABLES).map((d) => d.facts), ...Object.values(GRAINS).map((g) => g.table)];
        if (run === 0) for (const t of derived) await db.run(`CREATE TABLE imported_${t} AS SELECT * FROM ${t}`);
        const s = performance.now();
        await db.transaction(async (tx) => rebuildDerived(tx));
        rebuildMs.push(performance.now() - s);
        if (run === 0) {
          for (const t of derived) {
            const drift = await db.all<{ n: string }>(
              `SELECT count(*)::BIGINT AS n FROM ((SELECT * FROM imported_${t} EXCEPT ALL SELECT * FROM ${t}) UNION ALL (SELECT * FROM ${t} EXCEPT ALL SELECT * FROM imported_${t}))`,
            );
            if (Number(drift[0]?.n) !== 0) throw new Error(`${t} after the import differs from its rebuild in ${drift[0]?.n} rows`);
          }
          checked = `After the first run's import, each derived table (${derived.join(", ")}) was compared with its rebuild: no row differs.`;
        }
      } finally {
        db.close();
        rmSync(file, { force: true });
        rmSync(`${file}.wal`, { force: true });
      }
    }
    const date = new Date().toISOString().slice(0, 10);
    console.log(`### Import (${date})

Machine: ${machine()}. ${summary}
${RUNS} runs, each on a fresh copy of ${SOURCE}: the import (validation, load, and the new facts added
to the derived tables, in one transaction), then a rebuild of every derived table from scratch on
the same file. ${checked}

| measure | median s | runs s |
|---|---:|---|
| import of one day, its facts added to the derived tables | ${(median(importMs) / 1000).toFixed(1)} | ${importMs.map((m) => (m / 1000).toFixed(1)).join(", ")} |
| rebuild of every derived table from scratch | ${(median(rebuildMs) / 1000).toFixed(1)} | ${rebuildMs.map((m) => (m / 1000).toFixed(1)).join(", ")} |
`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
