// Large-import benchmark: `npm run bench:import-large`. Exports the last BENCH_IMPORT_DAYS
// days (default 80) of the 100 M-attempt file that `BENCH_SIZES=100m npm run bench:reports` made
// (about 20 M attempts: more ids in one file than a JavaScript Map can hold, 2^24) as the CSV files of
// docs/import-format.md: every reference table, the attempts, the customers they belong to, and the
// refunds, chargebacks and alerts of those attempts. Then imports them into a new, empty file with
// `service:cli import` in a process of its own, and reports its time, its peak memory (failing above
// BENCH_MEMORY_CEILING_MIB, default 4096) and that every row arrived with the same content.
// With BENCH_IMPORT_BASE_DAYS=N, the N days before them are imported first, unmeasured, so the
// measured import adds to a file that already holds data (its facts then go to the derived tables
// by `addToDerived`, not by a rebuild); rows it finds already there count as arrived.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { addDays } from "../lib/contract/dates";
import { Database } from "../service/db";
import { machine, runCliInChild } from "./lib";

const SOURCE = process.env.BENCH_DB ?? "data/bench-100m.duckdb";
const DAYS = Number(process.env.BENCH_IMPORT_DAYS ?? 80);
const CEILING_MIB = Number(process.env.BENCH_MEMORY_CEILING_MIB ?? 4096);
const BASE_DAYS = Number(process.env.BENCH_IMPORT_BASE_DAYS ?? 0);

/** Cents as the import format's decimal text. */
const money = (col: string) => `printf('%d.%02d', ${col} // 100, ${col} % 100)`;

/**
 * One CSV file of the import format per table, each a SELECT over the rows of database `db` (a
 * catalog name and a dot, or "" for the file opened).
 */
function exports(from: string, db = "", until = "9999-12-31"): Record<string, string> {
  const attempts = `(SELECT * FROM ${db}attempts WHERE attempt_date BETWEEN DATE '${from}' AND DATE '${until}')`;
  const ofAttempts = (table: string) => `${db}${table} e WHERE e.attempt_id IN (SELECT attempt_id FROM ${attempts})`;
  return {
    gateways: `SELECT gateway_id, gateway_alias, acquirer, mcc FROM ${db}gateways ORDER BY gateway_id`,
    campaigns: `SELECT campaign_id, campaign_name, campaign_type, ${money("cpa_cents")} AS cpa FROM ${db}campaigns ORDER BY campaign_id`,
    products: `SELECT product_id, product_name, product_group FROM ${db}products ORDER BY product_id`,
    bins: `SELECT bin, bank, card_brand, card_type FROM ${db}bins ORDER BY bin`,
    customers: `SELECT customer_id, initial_date, campaign_id, product_id, affid, sub_affid, ${money("price_point_cents")} AS price_point
                FROM ${db}customers WHERE customer_id IN (SELECT customer_id FROM ${attempts}) ORDER BY customer_id`,
    attempts: `SELECT attempt_id, order_id, customer_id, strftime(attempted_at, '%Y-%m-%dT%H:%M:%SZ') AS attempted_at, attempt_date, attempt_no,
                      is_cascade, approved, ${money("amount_cents")} AS amount, billing_cycle, sales_type, campaign_id, product_id, gateway_id,
                      bin, affid, sub_affid, ${money("price_point_cents")} AS price_point, initial_date
               FROM ${attempts} ORDER BY attempt_id`,
    refunds: `SELECT refund_id, attempt_id, refund_date, ${money("amount_cents")} AS amount, refund_type FROM ${ofAttempts("refunds")} ORDER BY refund_id`,
    chargebacks: `SELECT chargeback_id, attempt_id, cb_date, ${money("amount_cents")} AS amount FROM ${ofAttempts("chargebacks")} ORDER BY chargeback_id`,
    alerts: `SELECT alert_id, attempt_id, alert_date, ${money("amount_cents")} AS amount, alert_type FROM ${ofAttempts("alerts")} ORDER BY alert_id`,
  };
}

async function main(): Promise<void> {
  if (!existsSync(SOURCE)) throw new Error(`${SOURCE} is missing: run BENCH_SIZES=100m npm run bench:reports first`);
  const work = mkdtempSync(join("data", "bench-import-large-"));
  let keep = false;
  try {
    const csv = join(work, "csv");
    const target = join(work, "target.duckdb");
    const tables = Object.keys(exports("1970-01-01"));
    const base = join(work, "base");
    const expected: Record<string, number> = {};
    let from = "";
    let baseAttempts = 0;
    {
      const source = await Database.open(SOURCE, { connections: 1 });
      try {
        const end = (await source.all<{ d: string }>("SELECT max(attempt_date)::VARCHAR AS d FROM attempts"))[0]!.d;
        from = addDays(end, -(DAYS - 1));
        const started = performance.now();
        const write = async (dir: string, files: Record<string, string>) => {
          mkdirSync(dir);
          for (const [table, sql] of Object.entries(files)) await source.run(`COPY (${sql}) TO '${join(dir, `${table}.csv`)}' (HEADER)`);
        };
        const files = exports(from);
        await write(csv, files);
        for (const [table, sql] of Object.entries(files)) {
          expected[table] = Number((await source.all<{ n: string }>(`SELECT count(*)::BIGINT AS n FROM (${sql})`))[0]!.n);
        }
        if (BASE_DAYS > 0) {
          const baseFiles = exports(addDays(from, -BASE_DAYS), "", addDays(from, -1));
          await write(base, baseFiles);
          baseAttempts = Number((await source.all<{ n: string }>(`SELECT count(*)::BIGINT AS n FROM (${baseFiles.attempts})`))[0]!.n);
        }
        console.error(`bench: exported ${DAYS} days from ${from} (and ${BASE_DAYS} before) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      } finally {
        source.close();
      }
    }
    const bytes = readdirSync(csv).reduce((sum, f) => sum + statSync(join(csv, f)).size, 0);
    type Summary = { ok: boolean; inserted: Record<string, number>; skipped_duplicates: Record<string, number>; rejected: number; peak_rss_mib: number };
    if (BASE_DAYS > 0) {
      const first = await runCliInChild<Summary>(["import", "--db", target, "--dir", base]);
      if (!first.summary.ok) throw new Error(`the first ${BASE_DAYS} days were rejected (${first.summary.rejected} rows)`);
      console.error(`bench: imported the ${BASE_DAYS} days before ${from} (${baseAttempts.toLocaleString("en-US")} attempts) in ${first.seconds.toFixed(1)} s`);
    }

    const { seconds, summary } = await runCliInChild<Summary>(["import", "--db", target, "--dir", csv]).catch((e: unknown) => {
      keep = true; // the files, to run the import again by hand
      throw new Error(`${e instanceof Error ? e.message : String(e)}\nkept ${csv}: npm run service:cli -- import --db <new file> --dir ${csv}`);
    });
    const problems: string[] = [];
    if (!summary.ok) problems.push(`the import was rejected (${summary.rejected} rows)`);
    const arrived = (t: string) => (summary.inserted[t] ?? 0) + (summary.skipped_duplicates[t] ?? 0);
    for (const t of tables) if (arrived(t) !== expected[t]) problems.push(`${t}: ${arrived(t)} inserted or already there, ${expected[t]} exported`);
    // Every row arrived as it was: the same fingerprint of each table's content in both files.
    if (problems.length === 0) {
      const db = await Database.open(target, { connections: 1 });
      try {
        await db.run(`ATTACH '${SOURCE}' AS source (READ_ONLY)`);
        const imported = exports(from);
        const exported = exports(from, "source.");
        // An order-free fingerprint of every row's exported text (the row as a struct, hashed).
        const fp = async (sql: string) => (await db.all<{ h: string }>(`SELECT bit_xor(hash(t))::VARCHAR AS h FROM (${sql}) t`))[0]!.h;
        for (const t of tables) if ((await fp(imported[t]!)) !== (await fp(exported[t]!))) problems.push(`${t}: content differs`);
      } finally {
        db.close();
      }
    }
    const peak = summary.peak_rss_mib;
    if (peak > CEILING_MIB) problems.push(`peak memory ${peak} MiB is over the ${CEILING_MIB} MiB ceiling`);

    console.log(`### Large import (${new Date().toISOString().slice(0, 10)})

Machine: ${machine()}. Source: ${SOURCE}, the ${DAYS} days from ${from}, exported as ${(bytes / 2 ** 30).toFixed(2)} GiB of CSV;
imported with \`service:cli import\` into ${BASE_DAYS > 0 ? `a file holding the ${BASE_DAYS} days before them (${baseAttempts.toLocaleString("en-US")} attempts)` : "an empty file"}, in a process of its own.

| table | rows | inserted | already there |
|---|---:|---:|---:|
${tables.map((t) => `| ${t} | ${expected[t]!.toLocaleString("en-US")} | ${(summary.inserted[t] ?? 0).toLocaleString("en-US")} | ${(summary.skipped_duplicates[t] ?? 0).toLocaleString("en-US")} |`).join("\n")}

Import (validation, load, checks, derived tables): ${seconds.toFixed(1)} s, peak memory ${peak} MiB (ceiling ${CEILING_MIB}).
Every row arrived with the same content: ${problems.length === 0 ? "yes" : "no"}.`);
    if (problems.length > 0) {
      console.error(problems.join("\n"));
      process.exitCode = 1;
    }
  } finally {
    if (!keep) rmSync(work, { recursive: true, force: true });
  }
}

await main();
