/**
 * Derived tables, changed in the same transaction as the facts: rebuilt by generation, added to by
 * imports (`addToDerived`). The facts tables stay the source of truth.
 *
 * - Each refund, chargeback and alert is stored with a copy of its attempt's attributes, so the
 *   report queries never join the (much larger) attempts table, once per event metric family and
 *   date basis.
 * - Each operation's grain holds all its metrics at its finest grain (`grainSql` and `grainSumSql`
 *   in service/reports/grain.ts). Reports read their grain instead of the facts: a report at the finest
 *   grain (no `group_by`) is then a filtered scan rather than an aggregate of millions of groups
 *   (docs/benchmarks.md has the measurements), and coarser ones re-aggregate it. The grains are built from the event facts, so they come after them.
 */
import { randomUUID } from "node:crypto";
import { addDays, daysBetween } from "../../lib/contract/dates";
import type { Operation } from "../../lib/contract/catalog";
import type { Tx } from "../db";
import type { FactSource } from "../reports/columns";
import { EVENT_FACTS, EVENT_TABLES_LIST, type EventTable } from "../reports/facts";
import { ALL_FACTS, GRAINS, grainMergeSql, grainSql, grainSumSql, grainTables, ROLLUPS, rollupSql, type FactTables } from "../reports/grain";

const ATTEMPT_COLUMNS =
  "a.attempt_id, a.customer_id, a.attempt_date, a.attempt_no, a.billing_cycle, a.sales_type, a.campaign_id, a.product_id, " +
  "a.gateway_id, a.bin, a.affid, a.sub_affid, a.price_point_cents, a.initial_date";

/** Each event table's date column and the derived table of its events with their attempt's columns. */
export const EVENT_FACT_TABLES = EVENT_FACTS;

const OPERATIONS = Object.keys(GRAINS) as Operation[];
const EVENT_TABLE_NAMES = EVENT_TABLES_LIST;

/** The SELECT of an event table's facts from `rows` (the event table, or some of its rows). */
export function eventFactsSql(table: EventTable, rows: string = table): string {
  const d = EVENT_FACT_TABLES[table];
  return `SELECT ${ATTEMPT_COLUMNS}, e.${d.date} AS event_date, e.amount_cents AS event_amount_cents,
            ${table === "refunds" ? "e.refund_type" : "NULL::VARCHAR"} AS refund_type,
            ${table === "alerts" ? "e.alert_type" : "NULL::VARCHAR"} AS alert_type
     FROM ${rows} e JOIN attempts a ON a.attempt_id = e.attempt_id`;
}

/**
 * Attempts a grain is rebuilt from at a time, at most. Every grain row has one date, so a grain is
 * the union of its rows date range by date range: each chunk's aggregate, join and sort hold a
 * bounded number of attempts, not the whole history, and memory stays flat as the data grows
 *. Measured: chunks of about 3.5 M attempts (two weeks at 100 M) kept a 100 M generation
 * under 3.6 GiB with DuckDB's 2GB limit; at 10 M, 100-day chunks rebuilt in 22 s where two-week ones
 * took 27.5 s (each chunk costs a few statements whatever its size; docs/benchmarks.md).
 */
export const REBUILD_CHUNK_ATTEMPTS = 3_000_000;

/**
 * Rebuilds every derived table from all the facts (the service's start on a file that lacks them,
 * and an import into an empty file), in `tx`. `chunkDays`: the dates built at a time (the result is
 * the same for any).
 */
export async function rebuildDerived(tx: Tx, opts: { chunkDays?: number } = {}): Promise<void> {
  await rebuildInSteps((_name, step) => step(tx), opts);
}

export type RebuildStep = "event facts" | "grains" | "rollups";

/**
 * The rebuild as three steps, each given to `run` in order with its name: the event facts; the
 * grains; the rollups, from the grains. `rebuildDerived` runs them in one transaction; generation, which holds
 * its file alone, commits each (`db.transaction`), because DuckDB scans the rows a transaction wrote
 * itself on one thread and committed ones on all: the grains then read committed event facts and
 * the rollups committed grains (docs/benchmarks.md). Generation drops every derived table first
 * and the rollups are made last, so a file whose generation stops between two steps lacks them:
 * `hasDerived` is false and the service rebuilds everything when it opens the file.
 *
 * Each grain is the attempts' own aggregate plus the (much smaller) events' aggregate, joined on
 * the keys: aggregating every branch together ran all of the grain's sums over every wide union
 * row, once per attempt and event (docs/benchmarks.md compares the two).
 */
export async function rebuildInSteps(
  run: (name: RebuildStep, step: (tx: Tx) => Promise<void>) => Promise<void>,
  opts: { chunkDays?: number } = {},
): Promise<void> {
  let chunks: [string, string][] = [];
  await run("event facts", async (tx) => {
    await stampDataVersion(tx);
    for (const table of EVENT_TABLE_NAMES) {
      // Ordered by event date so the date-range filters skip whole row groups.
      const d = EVENT_FACT_TABLES[table];
      await tx.run(`CREATE OR REPLACE TABLE ${d.facts} AS ${eventFactsSql(table)} ORDER BY e.${d.date}, e.attempt_id`);
    }
    chunks = dateChunks(await dateSpan(tx), opts.chunkDays ?? (await chunkDaysFor(tx)));
  });
  await run("grains", (tx) => buildGrains(tx, chunks));
  await run("rollups", (tx) => buildRollups(tx, chunks));
}

/** Rows of `sql` (a grain-shaped SELECT) whose date is in the range of parameters $1 and $2. */
const within = (sql: string) => `(SELECT * FROM (${sql}) WHERE "date" BETWEEN $1::DATE AND $2::DATE)`;

async function buildGrains(tx: Tx, chunks: readonly [string, string][]): Promise<void> {
  const { attempts, ...events } = ALL_FACTS;
  for (const op of OPERATIONS) {
    const ofAttempts = grainSql(op, { attempts });
    const ofEvents = grainSql(op, events);
    const { table } = GRAINS[op];
    // An empty table of its shape, filled a chunk of dates at a time, in date order (so date ranges
    // skip whole row groups).
    await tx.run(`CREATE OR REPLACE TABLE ${table} AS ${grainSql(op)} LIMIT 0`);
    for (const range of chunks) {
      if (ofAttempts === null || ofEvents === null) {
        // Metrics all from attempts, or all from events: there is one aggregate and nothing to add.
        await tx.run(`INSERT INTO ${table} SELECT * FROM ${within(grainSql(op))} ORDER BY "date"`, range);
      } else {
        await tx.run(`CREATE OR REPLACE TEMP TABLE grain_of_events AS SELECT * FROM ${within(ofEvents)}`, range);
        await tx.run(`INSERT INTO ${table} ${grainSumSql(op, within(ofAttempts), "grain_of_events", "FULL")} ORDER BY "date"`, range);
      }
    }
    await tx.run("DROP TABLE IF EXISTS grain_of_events");
  }
}

/** Each rollup from its grain, a chunk of dates at a time: a tenth of its rows, read by reports that need no BIN or affiliate. */
async function buildRollups(tx: Tx, chunks: readonly [string, string][]): Promise<void> {
  for (const op of OPERATIONS) {
    const rollup = ROLLUPS[op].table;
    await tx.run(`CREATE OR REPLACE TABLE ${rollup} AS ${rollupSql(op, GRAINS[op].table)} LIMIT 0`);
    for (const range of chunks) {
      await tx.run(`INSERT INTO ${rollup} ${rollupSql(op, within(`SELECT * FROM ${GRAINS[op].table}`))} ORDER BY "date"`, range);
    }
  }
}

/** Drops every derived table: `hasDerived` is then false, and whoever opens the file rebuilds them. */
export async function dropDerived(tx: Tx): Promise<void> {
  for (const t of DERIVED_TABLES) await tx.run(`DROP TABLE IF EXISTS ${t}`);
}

/**
 * Days per chunk so that no chunk holds more than REBUILD_CHUNK_ATTEMPTS attempts, from the busiest
 * date of either date basis (an order grain's date is the attempt's, a cohort grain's the customer's
 * initial date).
 */
async function chunkDaysFor(tx: Tx): Promise<number> {
  const [row] = await tx.all<{ n: string | null }>(
    `SELECT max(n)::BIGINT AS n FROM (
       SELECT count(*) AS n FROM attempts GROUP BY attempt_date
       UNION ALL SELECT count(*) FROM attempts GROUP BY initial_date)`,
  );
  const busiest = Number(row?.n ?? 0);
  return busiest === 0 ? 1 : Math.max(1, Math.floor(REBUILD_CHUNK_ATTEMPTS / busiest));
}

/** The first and last date of any fact (attempt, initial order or event), or null without facts. */
async function dateSpan(tx: Tx): Promise<[string, string] | null> {
  const spans = [
    "SELECT min(attempt_date) AS lo, max(attempt_date) AS hi FROM attempts",
    "SELECT min(initial_date), max(initial_date) FROM attempts",
    ...Object.values(EVENT_FACT_TABLES).map((d) => `SELECT min(event_date), max(event_date) FROM ${d.facts}`),
  ];
  const [row] = await tx.all<{ lo: string | null; hi: string | null }>(`SELECT min(lo)::VARCHAR AS lo, max(hi)::VARCHAR AS hi FROM (${spans.join(" UNION ALL ")})`);
  return row?.lo && row.hi ? [row.lo, row.hi] : null;
}

/** [first, last] date ranges of `days` days covering `span`, in order. */
function dateChunks(span: [string, string] | null, days: number): [string, string][] {
  if (!span) return [];
  const [lo, hi] = span;
  const out: [string, string][] = [];
  for (let from = lo; ; ) {
    const to = daysBetween(from, hi) < days ? hi : addDays(from, days - 1);
    out.push([from, to]);
    if (to === hi) return out;
    from = addDays(to, 1);
  }
}

/**
 * After an import added facts (`added`: for each fact table, a table of only its added rows, whole),
 * adds them to the derived tables: their event facts are appended, and each grain gets the sums of
 * the added facts added to its rows. Facts are only ever added, and every metric is a sum, so this
 * ends where a rebuild from scratch would, at a cost that follows the size of the import rather
 * than of the database. The sums are made and merged a range of dates at a time, each range holding
 * at most about REBUILD_CHUNK_ATTEMPTS added facts (or `chunkFacts`; `chunkDays` fixes the days per
 * range instead), so a large import's memory stays bounded as a rebuild's does; a usual import is one
 * range.
 */
export async function addToDerived(
  tx: Tx,
  added: Partial<Record<FactSource, string>>,
  opts: { chunkDays?: number; chunkFacts?: number } = {},
): Promise<void> {
  if (!(await hasDerived(tx))) return rebuildDerived(tx);
  await stampDataVersion(tx);
  const facts: FactTables = {};
  const temp: string[] = [];
  if (added.attempts) facts.attempts = added.attempts;
  for (const table of EVENT_TABLE_NAMES) {
    const rows = added[table];
    if (!rows) continue;
    const addedFacts = `added_${EVENT_FACT_TABLES[table].facts}`;
    await tx.run(`CREATE TEMP TABLE ${addedFacts} AS ${eventFactsSql(table, rows)}`);
    await tx.run(`INSERT INTO ${EVENT_FACT_TABLES[table].facts} SELECT * FROM ${addedFacts} ORDER BY event_date`);
    facts[table] = addedFacts;
    temp.push(addedFacts);
  }
  const chunks = await addedChunks(tx, facts, opts);
  for (const op of OPERATIONS) {
    const sql = grainSql(op, facts);
    if (sql === null) continue;
    const delta = `added_${GRAINS[op].table}`;
    const rolledUp = `added_${ROLLUPS[op].table}`;
    for (const range of chunks) {
      await tx.run(`CREATE OR REPLACE TEMP TABLE ${delta} AS SELECT * FROM ${within(sql)}`, range);
      for (const [statement, params] of grainMergeSql(op, delta, GRAINS[op], range)) await tx.run(statement, params);
      // The rollup gets the same rows rolled up: its cost follows the import too.
      await tx.run(`CREATE OR REPLACE TEMP TABLE ${rolledUp} AS ${rollupSql(op, delta)}`);
      for (const [statement, params] of grainMergeSql(op, rolledUp, ROLLUPS[op], range)) await tx.run(statement, params);
    }
    temp.push(delta, rolledUp);
  }
  for (const t of temp) await tx.run(`DROP TABLE IF EXISTS ${t}`);
}

/**
 * Date ranges covering every date a grain row of the added facts can have (an attempt's date and
 * initial date, an event's date and its attempt's), in order: each of `chunkDays` days, or else
 * consecutive dates taken while their facts stay within `chunkFacts` (a busier date alone). A fact
 * counts once per date it can give a row, so the bound holds for either grain.
 */
async function addedChunks(
  tx: Tx,
  facts: FactTables,
  { chunkDays, chunkFacts = REBUILD_CHUNK_ATTEMPTS }: { chunkDays?: number; chunkFacts?: number },
): Promise<[string, string][]> {
  const perDate: string[] = [];
  if (facts.attempts) for (const c of ["attempt_date", "initial_date"]) perDate.push(`SELECT ${c} AS d, count(*) AS n FROM ${facts.attempts} GROUP BY 1`);
  for (const table of EVENT_TABLE_NAMES) {
    const rows = facts[table];
    if (rows) for (const c of ["event_date", "attempt_date", "initial_date"]) perDate.push(`SELECT ${c} AS d, count(*) AS n FROM ${rows} GROUP BY 1`);
  }
  if (perDate.length === 0) return [];
  const dates = await tx.all<{ d: string; n: string }>(`SELECT d::VARCHAR AS d, sum(n)::VARCHAR AS n FROM (${perDate.join(" UNION ALL ")}) GROUP BY d ORDER BY d`);
  const first = dates[0]?.d;
  const last = dates.at(-1)?.d;
  if (!first || !last) return [];
  if (chunkDays !== undefined) return dateChunks([first, last], chunkDays);
  const out: [string, string][] = [];
  let from = first;
  let n = 0;
  dates.forEach(({ d, n: count }, i) => {
    n += Number(count);
    const next = dates[i + 1];
    if (!next || n + Number(next.n) > chunkFacts) {
      out.push([from, d]);
      if (next) from = next.d;
      n = 0;
    }
  });
  return out;
}

/**
 * Every change of the facts passes through here (rebuild or addition), in its transaction: a new
 * `data_version` tells a copy of the data elsewhere (ClickHouse: service/clickhouse/publish.ts) that
 * it is out of date.
 */
async function stampDataVersion(tx: Tx): Promise<void> {
  await tx.run("INSERT OR REPLACE INTO dataset_info (key, value) VALUES ('data_version', ?)", [randomUUID()]);
}

export async function dataVersion(db: { all: Tx["all"] }): Promise<string | null> {
  const rows = await db.all<{ value: string }>("SELECT value FROM dataset_info WHERE key = 'data_version'");
  return rows[0]?.value ?? null;
}

const DERIVED_TABLES = [...Object.values(EVENT_FACT_TABLES).map((d) => d.facts), ...OPERATIONS.flatMap((op) => grainTables(op).map((t) => t.table))];

/**
 * True when the derived tables exist and each grain has the catalog's columns: a file from before a
 * table was introduced, or from before a dimension or metric was added, needs a rebuild.
 */
export async function hasDerived(tx: Tx): Promise<boolean> {
  const tables = await tx.all<{ n: number }>(
    `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name IN (${DERIVED_TABLES.map((t) => `'${t}'`).join(", ")})`,
  );
  if (tables[0]?.n !== DERIVED_TABLES.length) return false;
  for (const { table, keys, metrics } of OPERATIONS.flatMap(grainTables)) {
    const columns = await tx.all<{ name: string }>(
      `SELECT column_name AS name FROM duckdb_columns() WHERE table_name = '${table}' ORDER BY column_index`,
    );
    if (columns.map((c) => c.name).join() !== [...keys, ...metrics].join()) return false;
  }
  return true;
}
