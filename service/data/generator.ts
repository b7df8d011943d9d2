/**
 * Deterministic synthetic payment data (SPEC.md §5). This is the entry point: it checks the options,
 * runs the simulation, and replaces the payment and reference tables with its output (one
 * INSERT … SELECT per table from the staging tables) in one transaction, then rebuilds the derived
 * tables in transactions of their own (`rebuildInSteps`). The first transaction drops the derived
 * tables, so a file whose generation stopped after it lacks some, and the service builds them all
 * when it opens the file (`createService`); no one reads the file meanwhile, since generation holds
 * it (one process per DuckDB file). Rebuilding inside the first transaction, over facts it had just
 * written and not yet committed, took twice the time and up to 1.3 GB more memory: DuckDB scans a
 * transaction's own rows on one thread (docs/benchmarks.md).
 *
 * The parts, in generator/: the reference world, the same for every `seed` (world.ts); the
 * customers and events drawn from `seed` (simulation.ts), on a worker thread for a large data set
 * (simulation-worker.ts), so that drawing and appending to DuckDB overlap; the rows they fill
 * (rows.ts) and the staging tables those go through (staging.ts).
 *
 * Determinism: every draw comes from the seeded generator in prng.ts, in a fixed order, and IDs are
 * handed out in generation order; nothing reads the clock or Math.random. Same options ⇒ identical
 * table contents.
 */
import { INTEGER, VARCHAR, BIGINT, type DuckDBConnection } from "@duckdb/node-api";
import { dropDerived, rebuildInSteps } from "./derived";
import { transactionOn, type Database, type Tx } from "../db";
import { ALERT_TYPES, REFUND_TYPES, SALES_TYPES } from "../../lib/contract/catalog";
import { fromEpochDay, isCalendarDate, toEpochDay } from "../../lib/contract/dates";
import { buildWorld, type World } from "./generator/world";
import { appendRows, MAX_ID, openStages, PACK_A, PACK_B, STAGES, stageTable, type StageName } from "./generator/staging";
import { dailyVolumes, Simulation, simulateDays } from "./generator/simulation";
import { simulateInWorker } from "./generator/simulation-worker";

export interface GenerateOptions {
  /** Number of days of data, ending on `endDate`. */
  days: number;
  /** Mean number of new customers (initial orders) per day. */
  ordersPerDay: number;
  seed: number;
  /** YYYY-MM-DD, the last day of data. */
  endDate: string;
  onProgress?: (msg: string) => void;
  /** Run the simulation on a worker thread (the same rows either way); by default when it is large. */
  simulateInWorker?: boolean;
}

/** The demo data set of `npm start` (ending today), about 1.5 M attempts; the invariant tests use its days and seed. */
export const DEMO_DATASET = { days: 400, ordersPerDay: 1500, seed: 42 } as const;

export interface GenerateSummary {
  customers: number;
  attempts: number;
  refunds: number;
  chargebacks: number;
  alerts: number;
  startDate: string;
  endDate: string;
  seconds: number;
}

/** Upper bounds that keep IDs and packed fields inside their INTEGER staging columns. */
export const GENERATE_LIMITS = { maxDays: 3660, maxOrdersPerDay: 1_000_000 } as const;

// ---------------------------------------------------------------------------------------------
// Loading

const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;
const sqlList = (values: readonly (string | number)[]): string =>
  `[${values.map((v) => (typeof v === "number" ? String(v) : sqlString(v))).join(", ")}]`;
/** `list[index + 1]`: DuckDB lists are 1-based. */
const lookup = (values: readonly (string | number)[], indexSql: string): string => `${sqlList(values)}[${indexSql} + 1]`;
const asDate = (daySql: string): string => `(DATE '1970-01-01' + ${daySql})`;

async function loadReferenceTables(conn: DuckDBConnection, world: World): Promise<void> {
  const { gateways, campaigns, products, banks, bins } = world;
  await appendRows(conn, "gateways", [INTEGER, VARCHAR, VARCHAR, VARCHAR], [
    gateways.map((g) => g.id),
    gateways.map((g) => g.alias),
    gateways.map((g) => g.acquirer),
    gateways.map((g) => g.mcc),
  ]);
  await appendRows(conn, "campaigns", [INTEGER, VARCHAR, VARCHAR, BIGINT], [
    campaigns.map((c) => c.id),
    campaigns.map((c) => c.name),
    campaigns.map((c) => c.type),
    campaigns.map((c) => BigInt(c.cpaCents)),
  ]);
  await appendRows(conn, "products", [INTEGER, VARCHAR, VARCHAR], [
    products.map((p) => p.id),
    products.map((p) => p.name),
    products.map((p) => p.group),
  ]);
  await appendRows(conn, "bins", [VARCHAR, VARCHAR, VARCHAR, VARCHAR], [
    bins.map((b) => b.bin),
    bins.map((b) => banks[b.bank]?.name ?? ""),
    bins.map((b) => b.brand),
    bins.map((b) => b.type),
  ]);
}

async function loadFactTables(tx: Tx, world: World): Promise<void> {
  const campaignIds = world.campaigns.map((c) => c.id);
  const productIds = world.products.map((p) => p.id);
  const gatewayIds = world.gateways.map((g) => g.id);
  const affids = world.subAffiliates.map((s) => s.affid);
  const subAffids = world.subAffiliates.map((s) => s.subAffid);
  const bins = world.bins.map((b) => b.bin);
  const b = (key: "cycle" | "campaign" | "product" | "sub") => PACK_B.sql("b", key);
  const a = (key: "sod" | "attemptNo" | "cascade" | "approved" | "salesType" | "gateway") => PACK_A.sql("a", key);

  await tx.run(`INSERT INTO customers
    SELECT customer_id, ${asDate("initial_day")}, ${lookup(campaignIds, b("campaign"))}, ${lookup(productIds, b("product"))},
           ${lookup(affids, b("sub"))}, ${lookup(subAffids, b("sub"))}, price
    FROM ${stageTable("customers")}`);
  await tx.run(`INSERT INTO attempts
    SELECT attempt_id, order_id, customer_id,
           make_timestamp((day::BIGINT * 86400 + ${a("sod")}) * 1000000),
           ${asDate("day")}, ${a("attemptNo")}, ${a("cascade")} = 1, ${a("approved")} = 1, amount,
           ${b("cycle")}, ${lookup(SALES_TYPES, a("salesType"))},
           ${lookup(campaignIds, b("campaign"))}, ${lookup(productIds, b("product"))}, ${lookup(gatewayIds, a("gateway"))},
           ${lookup(bins, "bin")}, ${lookup(affids, b("sub"))}, ${lookup(subAffids, b("sub"))},
           amount, ${asDate("initial_day")}
    FROM ${stageTable("attempts")}`);
  await tx.run(`INSERT INTO refunds
    SELECT refund_id, attempt_id, ${asDate("day")}, amount, ${lookup(REFUND_TYPES, "type")} FROM ${stageTable("refunds")}`);
  await tx.run(`INSERT INTO chargebacks
    SELECT chargeback_id, attempt_id, ${asDate("day")}, amount FROM ${stageTable("chargebacks")}`);
  await tx.run(`INSERT INTO alerts
    SELECT alert_id, attempt_id, ${asDate("day")}, amount, ${lookup(ALERT_TYPES, "type")} FROM ${stageTable("alerts")}`);
}

/** Replaced by every generation; api_clients and schema_migrations are never touched. */
const REPLACED_TABLES = ["alerts", "chargebacks", "refunds", "attempts", "customers", "bins", "products", "campaigns", "gateways", "dataset_info"] as const;

/** The packed staging fields must hold every index the world and the date range can produce. */
function assertLayoutFits(world: World, days: number): void {
  const fits: [string, number, number][] = [
    ["gateways", world.gateways.length - 1, PACK_A.max.gateway],
    ["campaigns", world.campaigns.length - 1, PACK_B.max.campaign],
    ["products", world.products.length - 1, PACK_B.max.product],
    ["sub-affiliates", world.subAffiliates.length - 1, PACK_B.max.sub],
    // A subscriber is billed at most once per 14 days (the shortest rebill interval).
    ["billing cycles", Math.ceil(days / 14), PACK_B.max.cycle],
    ["sales types", SALES_TYPES.length - 1, PACK_A.max.salesType],
  ];
  for (const [what, needed, max] of fits) {
    if (needed > max) throw new Error(`generator staging layout cannot hold ${what} (${needed} > ${max})`);
  }
}

function validate(opts: GenerateOptions): void {
  const { days, ordersPerDay, seed, endDate } = opts;
  if (!Number.isInteger(days) || days < 1 || days > GENERATE_LIMITS.maxDays) {
    throw new RangeError(`days must be an integer from 1 to ${GENERATE_LIMITS.maxDays}, got ${days}`);
  }
  if (!Number.isFinite(ordersPerDay) || ordersPerDay < 0 || ordersPerDay > GENERATE_LIMITS.maxOrdersPerDay) {
    throw new RangeError(`ordersPerDay must be a number from 0 to ${GENERATE_LIMITS.maxOrdersPerDay}, got ${ordersPerDay}`);
  }
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  if (typeof endDate !== "string" || !isCalendarDate(endDate)) throw new RangeError(`endDate must be a YYYY-MM-DD date, got ${endDate}`);
}

let worldCache: World | undefined;

/**
 * Customers from which the simulation runs on a worker thread (`simulateInWorker`) unless told
 * otherwise (about 2.5 M attempts): starting the worker takes about 0.2 s, and the appending it
 * overlaps about 0.13 s per million attempts, so below this it would gain little or nothing.
 */
const WORKER_MIN_CUSTOMERS = 1_000_000;

/**
 * Replaces all payment and reference data with a synthetic data set (api_clients untouched).
 * Assumes migrations were applied. Same options ⇒ identical table contents.
 */
export async function generate(db: Database, opts: GenerateOptions): Promise<GenerateSummary> {
  validate(opts);
  const started = performance.now();
  const progress = opts.onProgress ?? (() => undefined);
  const world = (worldCache ??= buildWorld());
  assertLayoutFits(world, opts.days);
  const endDay = toEpochDay(opts.endDate);
  const startDay = endDay - (opts.days - 1);
  const volumes = dailyVolumes(opts, startDay);
  const totalCustomers = volumes.reduce((a, b) => a + b, 0);
  if (totalCustomers > MAX_ID) throw new RangeError("too many customers for one data set");

  const summary = await db.withConnection(async (conn) => {
    // The staging tables are filled and committed before the transaction that replaces the tables
    // begins: DuckDB scans rows a transaction wrote itself on one thread, committed ones on all of
    // them, and the loading is mostly that scan (10 M attempts: 6.5 s on one core, 3.3 s on two;
    // docs/benchmarks.md). They are temporary tables of this connection, dropped whatever happens.
    const stages = await openStages(conn);
    try {
      // The simulation's per-customer state (hundreds of MB at 100 M attempts) is garbage once its
      // rows are staged: only its counts are kept through the loading and the rebuild.
      const inWorker = opts.simulateInWorker ?? totalCustomers >= WORKER_MIN_CUSTOMERS;
      const counts = inWorker
        ? await simulateInWorker(
            { seed: opts.seed, endDay, startDay, volumes, totalCustomers },
            (stage, columns, rows) => stages[stage].append(columns, rows),
            progress,
          )
        : await simulateDays(new Simulation(world, stages, opts.seed, endDay, totalCustomers), startDay, volumes, progress, () => new Promise<void>((resolve) => setImmediate(resolve)));
      for (const s of Object.values(stages)) s.close();

      progress("replacing tables");
      await transactionOn(conn, async (tx) => {
        for (const t of REPLACED_TABLES) await tx.run(`DELETE FROM ${t}`);
        await loadReferenceTables(conn, world);
        await loadFactTables(tx, world);
        const info: [string, string][] = [
          ["seed", String(opts.seed)],
          ["days", String(opts.days)],
          ["orders_per_day", String(opts.ordersPerDay)],
          ["start_date", fromEpochDay(startDay)],
          ["end_date", opts.endDate],
        ];
        for (const [k, v] of info) await tx.run("INSERT INTO dataset_info (key, value) VALUES (?, ?)", [k, v]);
        await dropDerived(tx);
      });
      return {
        ...counts,
        startDate: fromEpochDay(startDay),
        endDate: opts.endDate,
      };
    } finally {
      for (const s of Object.values(stages)) s.dispose();
      for (const name of Object.keys(STAGES) as StageName[]) await conn.run(`DROP TABLE IF EXISTS ${stageTable(name)}`).catch(() => undefined);
    }
  });
  await rebuildInSteps((name, step) => {
    progress(`rebuilding derived tables: ${name}`);
    return db.transaction(step);
  });
  // Folds the WAL into the file so it is compact on disk. Best effort: DuckDB refuses a checkpoint
  // while another connection has a transaction open, and the data is committed either way.
  progress("checkpointing");
  await db.checkpoint().catch((err: unknown) => progress(`checkpoint skipped: ${err instanceof Error ? err.message : String(err)}`));
  const seconds = Math.round((performance.now() - started) / 10) / 100;
  progress(`done in ${seconds}s`);
  return { ...summary, seconds };
}
