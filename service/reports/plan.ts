/**
 * Report request → one SQL statement with bound parameters. Pure: no I/O, so it is unit-testable and
 * the SQL can be inspected.
 *
 * Each operation's metrics are kept at its finest grain in a table (its grain, kept by
 * service/data/derived.ts with `grainSql`: an aggregate per fact branch by every key dimension,
 * summed across branches; and `grainMergeSql` to add facts to it). A request filters its grain,
 * re-aggregates it by the requested keys (or, at the finest grain, reads its rows as they are),
 * names the reference dimensions, and pages.
 */
import {
  LIMITS,
  dimensionsFor,
  metricsFor,
  type DimensionName,
  type FilterScalar,
  type MetricName,
  type Operation,
  type ReportRequest,
} from "@/lib/contract";
import { exactCents } from "@/lib/contract/money";
import type { SqlParam } from "../db";
import { DIMENSION_COLUMNS, EVENT_TABLES, METRIC_COLUMNS, rangeColumn, type DimensionColumn, type FactSource } from "./columns";

export interface ReportPlan {
  dimensions: DimensionName[];
  metrics: MetricName[];
  sql: string;
  params: SqlParam[];
  /** The total number of records, for a page past the end (where the window count has no row). */
  countSql?: string;
  countParams?: SqlParam[];
  limit: number;
  offset: number;
}

class Params {
  readonly values: SqlParam[] = [];
  add(v: SqlParam, cast?: string): string {
    this.values.push(v);
    return cast ? `$${this.values.length}::${cast}` : `$${this.values.length}`;
  }
}

const q = (name: string) => `"${name}"`;

function dimColumn(name: DimensionName): DimensionColumn {
  return DIMENSION_COLUMNS[name];
}

/** The key dimension whose value a dimension is read through (itself for key dimensions). */
function keyOf(name: DimensionName): DimensionName {
  const c = dimColumn(name);
  return c.kind === "ref" ? c.key : name;
}

function asList(v: FilterScalar | FilterScalar[] | undefined): FilterScalar[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
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

type Filters = [DimensionName, FilterScalar | FilterScalar[]][];

/**
 * WHERE conditions for the filters over the grain's columns; a ref dimension is read through its key.
 * A refund_type or alert_type filter keeps only that family's rows: on the others the column is null.
 */
function filterConditions(filters: Filters, p: Params): string[] {
  const where: string[] = [];
  for (const [d, raw] of filters) {
    const values = asList(raw);
    const wantsNull = values.includes(null);
    const nonNull = values.filter((v): v is string | number => v !== null);
    const c = dimColumn(d);
    const target = `g.${q(c.kind === "ref" ? c.key : d)}`;
    const parts: string[] = [];
    if (c.kind === "key") {
      const placeholders: string[] = [];
      for (const v of nonNull) {
        if (c.sqlType === "CENTS") {
          const cents = typeof v === "number" ? exactCents(v) : null;
          if (cents !== null) placeholders.push(p.add(cents, "BIGINT"));
        } else {
          placeholders.push(p.add(v, c.sqlType));
        }
      }
      if (placeholders.length > 0) parts.push(`${target} IN (${placeholders.join(", ")})`);
      if (wantsNull) parts.push(`${target} IS NULL`);
    } else {
      const { table, key } = c.ref;
      if (nonNull.length > 0) {
        const placeholders = nonNull.map((v) => p.add(v, "VARCHAR")).join(", ");
        parts.push(`${target} IN (SELECT ${key} FROM ${table} WHERE ${c.column} IN (${placeholders}))`);
      }
      if (wantsNull) parts.push(`${target} NOT IN (SELECT ${key} FROM ${table})`);
    }
    where.push(parts.length > 0 ? `(${parts.join(" OR ")})` : "FALSE");
  }
  return where;
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
    const cols = grain.keys.map((k) => {
      const e = keyExpr(k, b);
      const c = dimColumn(k);
      const nullType = c.kind === "key" && c.sqlType !== "CENTS" ? c.sqlType : "BIGINT";
      return `${e ?? `NULL::${nullType}`} AS ${q(k)}`;
    });
    const keyCount = cols.length;
    for (const m of b.metrics) cols.push(`COALESCE(${METRIC_COLUMNS[m].agg}, 0)::BIGINT AS ${q(m)}`);

    let from = `${table} a`;
    if (b.metrics.some((m) => "needsCampaign" in METRIC_COLUMNS[m])) from += " JOIN campaigns cp ON cp.campaign_id = a.campaign_id";
    if (op === "cohort" && cols.some((s) => s.includes("cu."))) from += " JOIN customers cu ON cu.customer_id = a.customer_id";
    const groupBy = Array.from({ length: keyCount }, (_, i) => i + 1).join(", ");
    selects.push(`SELECT ${cols.join(", ")} FROM ${from} GROUP BY ${groupBy}`);
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
export function grainSumSql(op: Operation, x: string, y: string, join: "FULL" | "RIGHT"): string {
  const grain = GRAINS[op];
  // A grain's date is never null, so a null x.date means the row comes from y alone.
  const keys = grain.keys.map((k) => `CASE WHEN x."date" IS NULL THEN y.${q(k)} ELSE x.${q(k)} END AS ${q(k)}`);
  const sums = grain.metrics.map((m) => `COALESCE(x.${q(m)}, 0) + COALESCE(y.${q(m)}, 0) AS ${q(m)}`);
  return `SELECT ${[...keys, ...sums].join(", ")} FROM ${x} x ${join} JOIN ${y} y ON ${sameKeys(grain, "x", "y")}`;
}

/**
 * Statements that add `delta` (a table shaped like the grain, unique keys) into an operation's
 * grain in place: the grain's rows with the same keys as a delta row are replaced by their sum, the
 * other delta rows are added (in date order, so date ranges keep skipping whole row groups).
 */
export function grainMergeSql(op: Operation, delta: string): string[] {
  const grain = GRAINS[op];
  return [
    `CREATE TEMP TABLE ${delta}_sum AS ${grainSumSql(op, grain.table, delta, "RIGHT")}`,
    `DELETE FROM ${grain.table} g USING ${delta} d WHERE ${sameKeys(grain, "g", "d")}`,
    `INSERT INTO ${grain.table} SELECT * FROM ${delta}_sum ORDER BY "date"`,
    `DROP TABLE ${delta}_sum`,
  ];
}

export function planReport(op: Operation, req: ReportRequest): ReportPlan {
  const dims = (req.group_by ?? dimensionsFor(op).map((d) => d.name)) as DimensionName[];
  const metrics = (req.metrics ?? metricsFor(op).map((m) => m.name)) as MetricName[];
  const filters = Object.entries(req.filters ?? {}) as Filters;
  const limit = req.limit ?? LIMITS.maxPageSize;
  const offset = req.offset ?? 0;
  const p = new Params();

  // Key columns the aggregate groups by: grouped key dimensions, and the keys of grouped names.
  const keys: DimensionName[] = [];
  for (const d of dims) if (!keys.includes(keyOf(d))) keys.push(keyOf(d));
  const keyList = keys.map(q).join(", ");

  // The grain is filtered, and re-aggregated unless the request asks for its own grain.
  const grain = GRAINS[op];
  const where = [`g."date" BETWEEN ${p.add(req.start_date, "DATE")} AND ${p.add(req.end_date, "DATE")}`];
  where.push(...filterConditions(filters, p));
  /** Each row of `agg` is one grain row, read as is: there is no aggregate to share. */
  const scan = grain.keys.every((k) => keys.includes(k));
  /** No row of `agg` can have every metric zero, so the non-zero filter can be left out. */
  const allNonZero = scan && grain.metrics.every((m) => metrics.includes(m));
  const values = metrics.map((m) => (scan ? `g.${q(m)}::DOUBLE AS ${q(m)}` : `COALESCE(SUM(g.${q(m)}), 0)::DOUBLE AS ${q(m)}`));
  const group = !scan && keys.length ? ` GROUP BY ${keyList}` : "";
  // A scan is cheaper to read again (for the counts by date) than to materialize.
  let ctes =
    `WITH agg AS ${scan ? "NOT MATERIALIZED " : ""}(SELECT ${[...keys.map((k) => `g.${q(k)}`), ...values].join(", ")} ` +
    `FROM ${grain.table} g WHERE ${where.join(" AND ")}${group})`;

  // Order by the requested dimensions, leaving out names whose key comes earlier: they cannot break
  // a tie, and sorting by fewer, narrower columns is much cheaper on fine-grained answers.
  const orderDims = dims.filter((d, i) => {
    const c = dimColumn(d);
    return c.kind !== "ref" || !dims.slice(0, i).includes(c.key);
  });
  const order = orderDims.length ? ` ORDER BY ${orderDims.map((d) => `${q(d)} ASC NULLS LAST`).join(", ")}` : "";
  const nonZeroCondition = allNonZero ? null : `(${metrics.map((m) => `${q(m)} <> 0`).join(" OR ")})`;
  const nonZero = nonZeroCondition ? ` WHERE ${nonZeroCondition}` : "";

  const refs = new Map<string, { table: string; alias: string; key: DimensionName }>();
  for (const d of dims) {
    const c = dimColumn(d);
    if (c.kind === "ref") refs.set(c.ref.alias, { table: c.ref.table, alias: c.ref.alias, key: c.key });
  }
  const joins = (from: string) =>
    [...refs.values()].map((r) => `LEFT JOIN ${r.table} ${r.alias} ON ${r.alias}.${r.key} = ${from}.${q(r.key)}`).join(" ");
  const named = (from: string) =>
    dims.map((d) => {
      const c = dimColumn(d);
      return c.kind === "ref" ? `${c.ref.alias}.${c.column} AS ${q(d)}` : `${from}.${q(d)} AS ${q(d)}`;
    });

  let rows: string; // the records, before paging
  let select: (limit: string, offset: string) => string;
  if (scan && orderDims[0] === "date") {
    // Each grain row is a record, ordered by date first. Count the records of each date, find the
    // dates that hold the page, and sort only those: the total comes from the same counts, and a page
    // deep in a long range costs no more than the first (a window count or a full sort over
    // millions of wide rows cost up to a second).
    rows = "agg";
    select = (limit, offset) =>
      `, days AS (SELECT "date", COUNT(*) AS n FROM agg${nonZero} GROUP BY "date"), ` +
      `win AS (SELECT MIN("date") AS lo, MAX("date") AS hi, MIN(before) AS skip FROM ` +
      `(SELECT "date", n, SUM(n) OVER (ORDER BY "date" ROWS UNBOUNDED PRECEDING) - n AS before FROM days) ` +
      `WHERE before + n > ${offset} AND before < ${offset} + ${limit}), ` +
      `paged AS (SELECT * FROM agg WHERE "date" BETWEEN (SELECT lo FROM win) AND (SELECT hi FROM win)` +
      `${nonZeroCondition ? ` AND ${nonZeroCondition}` : ""}${order} LIMIT ${limit} OFFSET (${offset} - (SELECT skip FROM win))) ` +
      `SELECT ${[...named("paged"), ...metrics.map((m) => `paged.${q(m)}`), "(SELECT SUM(n) FROM days)::DOUBLE AS __total"].join(", ")} ` +
      `FROM paged ${joins("paged")}${order}`;
  } else if (keys.every((k) => dims.includes(k)) && orderDims.every((d) => dimColumn(d).kind === "key")) {
    // Every grouped name comes with its key, and the order needs only keys: page the key rows first
    // and name just the page.
    rows = "agg";
    select = (limit, offset) =>
      `, paged AS (SELECT *, COUNT(*) OVER ()::DOUBLE AS __total FROM agg${nonZero}${order} LIMIT ${limit} OFFSET ${offset}) ` +
      `SELECT ${[...named("paged"), ...metrics.map((m) => `paged.${q(m)}`), "paged.__total"].join(", ")} FROM paged ${joins("paged")}${order}`;
  } else {
    // Grouped by a name without its key (say, bank alone): re-aggregate the key rows by the names.
    ctes +=
      `, named AS (SELECT ${[...named("agg"), ...metrics.map((m) => `SUM(agg.${q(m)}) AS ${q(m)}`)].join(", ")} FROM agg ${joins("agg")}` +
      `${dims.length ? ` GROUP BY ${dims.map((_, i) => i + 1).join(", ")}` : ""})`;
    rows = "named";
    select = (limit, offset) => ` SELECT *, COUNT(*) OVER ()::DOUBLE AS __total FROM named${nonZero}${order} LIMIT ${limit} OFFSET ${offset}`;
  }
  const countSql = `${ctes} SELECT COUNT(*)::DOUBLE AS n FROM ${rows}${nonZero}`;
  const countParams = [...p.values];
  const sql = ctes + select(p.add(limit, "BIGINT"), p.add(offset, "BIGINT"));
  return { dimensions: dims, metrics, sql, params: p.values, countSql, countParams, limit, offset };
}
