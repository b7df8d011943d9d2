/**
 * Derived tables, rebuilt in the same transaction as every change to the facts (generation, import).
 * The facts tables stay the source of truth.
 *
 * - Each refund, chargeback and alert is stored with a copy of its attempt's attributes, so the
 *   report queries never join the (much larger) attempts table: on 10 M attempts that join cost
 *   25–45 ms per event metric family and date basis.
 * - Each operation's grain holds all its metrics at its finest grain (`grainSql` in
 *   service/reports/plan.ts). Reports read their grain instead of the facts: a report at the finest
 *   grain (no `group_by`) is then a filtered scan rather than an aggregate of millions of groups
 *   (order summaries on 10 M attempts: 7.5 s → 55 ms; docs/benchmarks.md), and coarser ones
 *   re-aggregate it. The grains are built from the event facts, so they come after them.
 */
import type { Operation } from "../../lib/contract/catalog";
import type { Tx } from "../db";
import { GRAINS, grainSql } from "../reports/plan";

const ATTEMPT_COLUMNS =
  "a.attempt_id, a.customer_id, a.attempt_date, a.attempt_no, a.billing_cycle, a.sales_type, a.campaign_id, a.product_id, " +
  "a.gateway_id, a.bin, a.affid, a.sub_affid, a.price_point_cents, a.initial_date";

export const EVENT_FACT_TABLES = {
  chargebacks: { facts: "chargeback_facts", date: "cb_date" },
  refunds: { facts: "refund_facts", date: "refund_date" },
  alerts: { facts: "alert_facts", date: "alert_date" },
} as const;

/** An inclusive range of dates, `YYYY-MM-DD`. */
export interface DateRange {
  start: string;
  end: string;
}

const OPERATIONS = Object.keys(GRAINS) as Operation[];

/** Rebuilds every derived table from all the facts (generation, and files that lack them). */
export async function rebuildDerived(tx: Tx): Promise<void> {
  await rebuildEventFacts(tx);
  for (const op of OPERATIONS) {
    const grain = grainSql(op);
    await tx.run(`CREATE OR REPLACE TABLE ${GRAINS[op].table} AS ${grain.sql}`, grain.params);
  }
}

/**
 * After an import added facts: rebuilds the event facts, and each grain's rows of the dates the new
 * facts touch there (`touched`, null when none), since every grain row a new fact feeds is dated by
 * one of them. An import of a few days thus costs a few days of grain, not the whole database.
 */
export async function refreshDerived(tx: Tx, touched: Record<Operation, DateRange | null>): Promise<void> {
  if (!(await hasDerived(tx))) return rebuildDerived(tx);
  await rebuildEventFacts(tx);
  for (const op of OPERATIONS) {
    const range = touched[op];
    if (range === null) continue;
    const { table } = GRAINS[op];
    await tx.run(`DELETE FROM ${table} WHERE "date" BETWEEN ?::DATE AND ?::DATE`, [range.start, range.end]);
    const grain = grainSql(op, range);
    await tx.run(`INSERT INTO ${table} ${grain.sql}`, grain.params);
  }
}

async function rebuildEventFacts(tx: Tx): Promise<void> {
  for (const [table, d] of Object.entries(EVENT_FACT_TABLES)) {
    // Ordered by event date so the date-range filters skip whole row groups.
    await tx.run(
      `CREATE OR REPLACE TABLE ${d.facts} AS
       SELECT ${ATTEMPT_COLUMNS}, e.${d.date} AS event_date, e.amount_cents AS event_amount_cents,
              ${table === "refunds" ? "e.refund_type" : "NULL::VARCHAR"} AS refund_type,
              ${table === "alerts" ? "e.alert_type" : "NULL::VARCHAR"} AS alert_type
       FROM ${table} e JOIN attempts a ON a.attempt_id = e.attempt_id
       ORDER BY e.${d.date}, e.attempt_id`,
    );
  }
}

const DERIVED_TABLES = [...Object.values(EVENT_FACT_TABLES).map((d) => d.facts), ...OPERATIONS.map((op) => GRAINS[op].table)];

/**
 * True when the derived tables exist and each grain has the catalog's columns: a file from before a
 * table was introduced, or from before a dimension or metric was added, needs a rebuild.
 */
export async function hasDerived(tx: Tx): Promise<boolean> {
  const tables = await tx.all<{ n: number }>(
    `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name IN (${DERIVED_TABLES.map((t) => `'${t}'`).join(", ")})`,
  );
  if (tables[0]?.n !== DERIVED_TABLES.length) return false;
  for (const op of OPERATIONS) {
    const { table, keys, metrics } = GRAINS[op];
    const columns = await tx.all<{ name: string }>(
      `SELECT column_name AS name FROM duckdb_columns() WHERE table_name = '${table}' ORDER BY column_index`,
    );
    if (columns.map((c) => c.name).join() !== [...keys, ...metrics].join()) return false;
  }
  return true;
}
