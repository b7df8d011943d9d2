/**
 * An operation's grain (the table of every metric at its finest grain that reports read, kept by
 * service/data/derived.ts): its shape, and the SQL that builds it from the facts (`grainSql`), sums
 * two of them (`grainSumSql`) and adds facts to it in place (`grainMergeSql`). The data layer builds
 * grains from here without importing the query planner.
 */
import { dimensionsFor, metricsFor, type DimensionName, type MetricName, type Operation } from "@/lib/contract";
import { DIMENSION_COLUMNS, EVENT_TABLES, METRIC_COLUMNS, rangeColumn, type DimensionColumn, type FactSource } from "./columns";

/** A column name, quoted. */
export const q = (name: string) => `"${name}"`;

export function dimColumn(name: DimensionName): DimensionColumn {
  return DIMENSION_COLUMNS[name];
}

interface Branch {
  source: FactSource;
  byEventDate: boolean;
  metrics: MetricName[];
}

/**
 * An operation's grain: a table of every metric of the operation at its finest grain, one row per
 * combination of its key dimensions (named as the dimensions; `date` is the operation's date), the
 * metrics as exact integers (counts and cents) named as the metrics.
 */
export interface Grain {
  table: string;
  keys: readonly DimensionName[];
  metrics: readonly MetricName[];
}

function grainOf(op: Operation, table: string): Grain {
  return {
    table,
    keys: dimensionsFor(op)
      .map((d) => d.name as DimensionName)
      .filter((d) => dimColumn(d).kind === "key"),
    metrics: metricsFor(op).map((m) => m.name as MetricName),
  };
}

export const GRAINS: Record<Operation, Grain> = { orders: grainOf("orders", "order_grain"), cohort: grainOf("cohort", "cohort_grain") };

/**
 * The keys with thousands of values or more: BINs and affiliates. Almost every grain row differs by
 * them, so a table without them is an order of magnitude smaller.
 */
const HIGH_CARDINALITY_KEYS: readonly DimensionName[] = ["bin", "affid", "sub_affid"];

/** Each operation's rollup: its grain summed without the high-cardinality keys. */
export const ROLLUPS: Record<Operation, Grain> = {
  orders: { ...GRAINS.orders, table: "order_grain_rollup", keys: GRAINS.orders.keys.filter((k) => !HIGH_CARDINALITY_KEYS.includes(k)) },
  cohort: { ...GRAINS.cohort, table: "cohort_grain_rollup", keys: GRAINS.cohort.keys.filter((k) => !HIGH_CARDINALITY_KEYS.includes(k)) },
};

/**
 * Each operation's pre-aggregates, smallest first: its rollup, then its grain. A report reads the
 * first whose keys hold every key it groups or filters by (both engines' planners).
 */
export function grainTables(op: Operation): Grain[] {
  return [ROLLUPS[op], GRAINS[op]];
}

/**
 * The SELECT of an operation's rollup from `from`, a table shaped like its grain (the grain, or rows
 * to add to it): no all-zero row, since no grain row is one and metrics are never negative.
 */
export function rollupSql(op: Operation, from: string): string {
  const { keys, metrics } = ROLLUPS[op];
  return `SELECT ${[...keys.map(q), ...metrics.map((m) => `SUM(${q(m)})::BIGINT AS ${q(m)}`)].join(", ")} FROM ${from} GROUP BY ${keys.map(q).join(", ")}`;
}

/** The table each fact source is read from: a fact table, or a table of only some of its rows. */
export type FactTables = Partial<Record<FactSource, string>>;

/** Every fact table, as the grains are built from scratch. */
export const ALL_FACTS: Record<FactSource, string> = {
  attempts: "attempts",
  chargebacks: EVENT_TABLES.chargebacks.table,
  refunds: EVENT_TABLES.refunds.table,
  alerts: EVENT_TABLES.alerts.table,
};

/**
 * One aggregate per (fact source, date basis) that a metric needs and `facts` provides: the branch's
 * metrics per combination of the key columns (null where a branch lacks the dimension, e.g.
 * refund_type outside refunds), as exact integers; `produced` says which metrics they give.
 */
function factBranches(op: Operation, grain: Grain, facts: FactTables): { selects: string[]; produced: Set<MetricName> } {
  const branches: Branch[] = [];
  for (const m of grain.metrics) {
    const c = METRIC_COLUMNS[m];
    const byEventDate = op === "orders" && c.byEventDate;
    let b = branches.find((x) => x.source === c.source && x.byEventDate === byEventDate);
    if (!b) branches.push((b = { source: c.source, byEventDate, metrics: [] }));
    b.metrics.push(m);
  }

  const keyExpr = (d: DimensionName, b: Branch): string | null => {
    const c = dimColumn(d);
    if (c.kind !== "key") throw new Error(`not a key dimension: ${d}`);
    if ("onlyOn" in c && c.onlyOn !== b.source) return null;
    const expr = op === "orders" ? c.orders : c.cohort;
    return expr === "$date" ? rangeColumn(op, b.source, b.byEventDate) : expr;
  };

  const selects: string[] = [];
  const produced = new Set<MetricName>();
  for (const b of branches) {
    const table = facts[b.source];
    if (table === undefined) continue;
    const groupBy: number[] = [];
    const cols = grain.keys.map((k, i) => {
      const e = keyExpr(k, b);
      const c = dimColumn(k);
      const nullType = c.kind === "key" && c.sqlType !== "CENTS" ? c.sqlType : "BIGINT";
      // A key the branch lacks is the same null in every row: grouping by it would only cost hashing.
      if (e !== null) groupBy.push(i + 1);
      return `${e ?? `NULL::${nullType}`} AS ${q(k)}`;
    });
    for (const m of b.metrics) cols.push(`COALESCE(${METRIC_COLUMNS[m].agg}, 0)::BIGINT AS ${q(m)}`);

    let from = `${table} a`;
    if (b.metrics.some((m) => "needsCampaign" in METRIC_COLUMNS[m])) from += " JOIN campaigns cp ON cp.campaign_id = a.campaign_id";
    if (op === "cohort" && cols.some((s) => s.includes("cu."))) from += " JOIN customers cu ON cu.customer_id = a.customer_id";
    selects.push(`SELECT ${cols.join(", ")} FROM ${from} GROUP BY ${groupBy.join(", ")}`);
    for (const m of b.metrics) produced.add(m);
  }
  return { selects, produced };
}

/** Two grain rows (aliases `a` and `b`) have the same key combination; keys can be null. */
const sameKeys = (grain: Grain, a: string, b: string) => grain.keys.map((k) => `${a}.${q(k)} IS NOT DISTINCT FROM ${b}.${q(k)}`).join(" AND ");

/** True when a grain row holds no count and no amount: the grains leave such rows out. */
const allZero = (grain: Grain, alias: string) => grain.metrics.map((m) => `${alias}.${q(m)} = 0`).join(" AND ");

/**
 * The SELECT of an operation's grain over `facts` (by default all of them): every metric per key
 * combination in exact integers, leaving out combinations where every metric is zero (a declined
 * cascade attempt counts nowhere), in no particular order. Each branch aggregates its own facts;
 * several branches are then summed per key combination. Null when `facts` provides no source the
 * operation reads.
 */
export function grainSql(op: Operation): string;
export function grainSql(op: Operation, facts: FactTables): string | null;
export function grainSql(op: Operation, facts: FactTables = ALL_FACTS): string | null {
  const grain = GRAINS[op];
  const { selects, produced } = factBranches(op, grain, facts);
  if (selects.length === 0) return null;
  const keyList = grain.keys.map(q).join(", ");
  // One branch is already one row per key combination: summing it again would cost as much as the
  // branch itself (the attempts branch of a rebuild is nearly one row per attempt).
  const one = selects.length === 1;
  const sums = grain.metrics.map((m) => {
    if (!produced.has(m)) return `0::BIGINT AS ${q(m)}`;
    return one ? q(m) : `COALESCE(SUM(${q(m)}), 0)::BIGINT AS ${q(m)}`;
  });
  const rows = one ? `(${selects[0]})` : `(${selects.join(" UNION ALL BY NAME ")}) GROUP BY ${keyList}`;
  return `SELECT * FROM (SELECT ${keyList}, ${sums.join(", ")} FROM ${rows}) s WHERE NOT (${allZero(grain, "s")})`;
}

/**
 * The SELECT of the sum of two tables (or parenthesized SELECTs) shaped like an operation's grain,
 * unique keys each: a row per key combination, its metrics added. `FULL` keeps the rows of both;
 * `RIGHT` only the key combinations of `y`, with what `x` holds for them added. Metrics are never
 * negative, so no sum is all zero.
 */
export function grainSumSql(op: Operation, x: string, y: string, join: "FULL" | "RIGHT", grain: Grain = GRAINS[op]): string {
  // A grain's date is never null, so a null x.date means the row comes from y alone.
  const keys = grain.keys.map((k) => `CASE WHEN x."date" IS NULL THEN y.${q(k)} ELSE x.${q(k)} END AS ${q(k)}`);
  const sums = grain.metrics.map((m) => `COALESCE(x.${q(m)}, 0) + COALESCE(y.${q(m)}, 0) AS ${q(m)}`);
  return `SELECT ${[...keys, ...sums].join(", ")} FROM ${x} x ${join} JOIN ${y} y ON ${sameKeys(grain, "x", "y")}`;
}

/**
 * Statements that add `delta` (a table shaped like the grain, or like `grain`, unique keys) into an
 * operation's grain (or `grain`, its rollup) in place: the rows with the same keys as a delta row are
 * replaced by their sum, the other delta rows are added (in date order, so date ranges keep skipping
 * whole row groups). Each statement comes with its parameters: `dates`, when every delta row's date
 * is in that range, so that only the grain's rows of those dates are read.
 */
export function grainMergeSql(op: Operation, delta: string, grain: Grain = GRAINS[op], dates?: readonly [string, string]): [string, string[]][] {
  const inRange = (alias: string) => (dates ? `${alias}."date" BETWEEN $1::DATE AND $2::DATE` : "TRUE");
  const params = dates ? [...dates] : [];
  return [
    [`CREATE TEMP TABLE ${delta}_sum AS ${grainSumSql(op, `(SELECT * FROM ${grain.table} g WHERE ${inRange("g")})`, delta, "RIGHT", grain)}`, params],
    [`DELETE FROM ${grain.table} g USING ${delta} d WHERE ${inRange("g")} AND ${sameKeys(grain, "g", "d")}`, params],
    [`INSERT INTO ${grain.table} SELECT * FROM ${delta}_sum ORDER BY "date"`, []],
    [`DROP TABLE ${delta}_sum`, []],
  ];
}
