/**
 * Report request → one SQL statement with bound parameters. Pure: no I/O, so it is unit-testable and
 * the SQL can be inspected.
 *
 * Cohorts: resolve names → pick fact branches → per-branch SELECT with filters → UNION ALL →
 * aggregate by key columns → name the reference dimensions → page.
 * Orders: the same union, aggregated once to the finest grain, is kept as a table (`order_grain`,
 * rebuilt with the facts by service/data/derived.ts); a request filters and re-aggregates it, then
 * names and pages as above. At the finest grain (no `group_by`) a request is a filtered scan.
 */
import {
  dimensionsFor,
  metricsFor,
  type DimensionName,
  type FilterScalar,
  type MetricName,
  type Operation,
  type ReportRequest,
} from "@/lib/contract";
import type { SqlParam } from "../db";
import { DIMENSION_COLUMNS, EVENT_TABLES, METRIC_COLUMNS, rangeColumn, type DimensionColumn, type FactSource } from "./columns";

export interface ReportPlan {
  dimensions: DimensionName[];
  metrics: MetricName[];
  /**
   * Null when the filters exclude every fact branch of a cohort (e.g. a refund_type filter with only
   * attempt metrics): the answer is empty. Order summaries always have SQL: the grain holds every branch.
   */
  sql: string | null;
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

/** Exact cents of a decimal price (39.95 → 3995); null when it has finer precision than cents. */
export function toCents(v: number): number | null {
  const cents = Math.round(v * 100);
  return Math.abs(cents - v * 100) < 1e-6 ? cents : null;
}

interface Branch {
  source: FactSource;
  byEventDate: boolean;
  metrics: MetricName[];
}

/** The table that holds every order-summary metric at the finest grain (one row per key combination). */
export const ORDER_GRAIN_TABLE = "order_grain";
/** Its key columns: every key dimension of the orders operation, named as the dimension. */
export const ORDER_GRAIN_KEYS: readonly DimensionName[] = dimensionsFor("orders")
  .map((d) => d.name as DimensionName)
  .filter((d) => dimColumn(d).kind === "key");
/** Its metric columns (exact integers: counts and cents), named as the metric. */
export const ORDER_GRAIN_METRICS: readonly MetricName[] = metricsFor("orders").map((m) => m.name as MetricName);

type Filters = [DimensionName, FilterScalar | FilterScalar[]][];

/**
 * WHERE conditions for the filters, given how a key dimension's column is read (`column`); a ref
 * dimension is read through its key. Null when a filter can keep nothing: it names a dimension that
 * is null on every row (`column` gives null) and does not ask for the null bucket.
 */
function filterConditions(filters: Filters, column: (key: DimensionName) => string | null, p: Params): string[] | null {
  const where: string[] = [];
  for (const [d, raw] of filters) {
    const values = asList(raw);
    const wantsNull = values.includes(null);
    const nonNull = values.filter((v): v is string | number => v !== null);
    const c = dimColumn(d);
    const target = column(c.kind === "ref" ? c.key : d);
    if (target === null) {
      if (!wantsNull) return null;
      continue; // the null bucket is every row
    }
    const parts: string[] = [];
    if (c.kind === "key") {
      const placeholders: string[] = [];
      for (const v of nonNull) {
        if (c.sqlType === "CENTS") {
          const cents = typeof v === "number" ? toCents(v) : null;
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

/**
 * One SELECT per (fact table, date basis) that a metric needs, each giving the key columns and the
 * metrics' per-row contributions. `range` null reads every date (the order grain's build). Branches
 * the filters empty are left out; `produced` says which metrics some branch still gives.
 */
function factSelects(
  op: Operation,
  keys: readonly DimensionName[],
  metrics: readonly MetricName[],
  filters: Filters,
  range: { start: string; end: string } | null,
  p: Params,
): { selects: string[]; produced: Set<MetricName> } {
  const branches: Branch[] = [];
  for (const m of metrics) {
    const c = METRIC_COLUMNS[m];
    const byEventDate = op === "orders" && c.byEventDate;
    let b = branches.find((x) => x.source === c.source && x.byEventDate === byEventDate);
    if (!b) branches.push((b = { source: c.source, byEventDate, metrics: [] }));
    b.metrics.push(m);
  }

  const keyExpr = (d: DimensionName, b: Branch): string | null => {
    const c = dimColumn(d);
    if (c.kind !== "key") throw new Error(`not a key dimension: ${d}`);
    if ("onlyOn" in c && c.onlyOn !== b.source) return null; // e.g. refund_type outside refund facts
    const expr = op === "orders" ? c.orders : c.cohort;
    return expr === "$date" ? rangeColumn(op, b.source, b.byEventDate) : expr;
  };

  const selects: string[] = [];
  const produced = new Set<MetricName>();
  for (const b of branches) {
    const paramMark = p.values.length;
    const where: string[] = [];
    const rangeCol = rangeColumn(op, b.source, b.byEventDate);
    if (range) where.push(`${rangeCol} BETWEEN ${p.add(range.start, "DATE")} AND ${p.add(range.end, "DATE")}`);
    const conditions = filterConditions(filters, (k) => keyExpr(k, b), p);
    if (conditions === null) {
      p.values.length = paramMark; // placeholders are positional: forget this branch's values
      continue;
    }
    where.push(...conditions);

    const cols = keys.map((k) => {
      const e = keyExpr(k, b);
      const c = dimColumn(k);
      const nullType = c.kind === "key" && c.sqlType !== "CENTS" ? c.sqlType : "BIGINT";
      return `${e ?? `NULL::${nullType}`} AS ${q(k)}`;
    });
    for (const m of b.metrics) cols.push(`${METRIC_COLUMNS[m].expr} AS ${q(m)}`);

    let from = b.source === "attempts" ? "attempts a" : `${EVENT_TABLES[b.source].table} a`;
    if (b.metrics.some((m) => "needsCampaign" in METRIC_COLUMNS[m])) from += " JOIN campaigns cp ON cp.campaign_id = a.campaign_id";
    const usesCustomer = op === "cohort" && [...cols, ...where].some((s) => s.includes("cu."));
    if (usesCustomer) from += " JOIN customers cu ON cu.customer_id = a.customer_id";

    selects.push(`SELECT ${cols.join(", ")} FROM ${from}${where.length ? ` WHERE ${where.join(" AND ")}` : ""}`);
    for (const m of b.metrics) produced.add(m);
  }
  return { selects, produced };
}

/**
 * The SELECT that fills the order grain from the facts: every orders metric summed per key
 * combination in exact integers, leaving out combinations where every metric is zero (a declined
 * cascade attempt counts nowhere). Ordered by date, so date ranges skip whole row groups. With a
 * range, it gives exactly the grain rows dated in it (each branch is dated by its own basis).
 */
export function orderGrainSql(range?: { start: string; end: string }): { sql: string; params: SqlParam[] } {
  const p = new Params();
  const { selects } = factSelects("orders", ORDER_GRAIN_KEYS, ORDER_GRAIN_METRICS, [], range ?? null, p);
  const keyList = ORDER_GRAIN_KEYS.map(q).join(", ");
  const sums = ORDER_GRAIN_METRICS.map((m) => `COALESCE(SUM(${q(m)}), 0)::BIGINT AS ${q(m)}`);
  const nonZero = ORDER_GRAIN_METRICS.map((m) => `${q(m)} <> 0`).join(" OR ");
  const sql =
    `SELECT * FROM (SELECT ${keyList}, ${sums.join(", ")} FROM (${selects.join(" UNION ALL BY NAME ")}) GROUP BY ${keyList}) ` +
    `WHERE ${nonZero} ORDER BY "date"`;
  return { sql, params: p.values };
}

export function planReport(op: Operation, req: ReportRequest): ReportPlan {
  const dims = (req.group_by ?? dimensionsFor(op).map((d) => d.name)) as DimensionName[];
  const metrics = (req.metrics ?? metricsFor(op).map((m) => m.name)) as MetricName[];
  const filters = Object.entries(req.filters ?? {}) as Filters;
  const limit = req.limit ?? 1000;
  const offset = req.offset ?? 0;
  const p = new Params();

  // Key columns the aggregate groups by: grouped key dimensions, and the keys of grouped names.
  const keys: DimensionName[] = [];
  for (const d of dims) if (!keys.includes(keyOf(d))) keys.push(keyOf(d));
  const keyList = keys.map(q).join(", ");

  let ctes: string;
  /** True when each row of `agg` is read as is from one grain row: then there is no aggregate to share. */
  let scan = false;
  /** True when no row of `agg` can have every metric zero, so the non-zero filter can be left out. */
  let allNonZero = false;
  if (op === "orders") {
    const where = [`g."date" BETWEEN ${p.add(req.start_date, "DATE")} AND ${p.add(req.end_date, "DATE")}`];
    // Every key dimension is a column of the grain, so no filter empties it outright.
    where.push(...(filterConditions(filters, (k) => `g.${q(k)}`, p) ?? ["FALSE"]));
    scan = ORDER_GRAIN_KEYS.every((k) => keys.includes(k));
    allNonZero = scan && ORDER_GRAIN_METRICS.every((m) => metrics.includes(m));
    const values = metrics.map((m) => (scan ? `g.${q(m)}::DOUBLE AS ${q(m)}` : `COALESCE(SUM(g.${q(m)}), 0)::DOUBLE AS ${q(m)}`));
    const group = !scan && keys.length ? ` GROUP BY ${keyList}` : "";
    // A scan is cheaper to read again (for the counts by date) than to materialize.
    ctes = `WITH agg AS ${scan ? "NOT MATERIALIZED " : ""}(SELECT ${[...keys.map((k) => `g.${q(k)}`), ...values].join(", ")} ` +
      `FROM ${ORDER_GRAIN_TABLE} g WHERE ${where.join(" AND ")}${group})`;
  } else {
    const { selects, produced } = factSelects(op, keys, metrics, filters, { start: req.start_date, end: req.end_date }, p);
    if (selects.length === 0) return { dimensions: dims, metrics, sql: null, params: [], limit, offset };
    // A metric whose branch the filters removed is zero everywhere.
    const sums = metrics.map((m) => (produced.has(m) ? `COALESCE(SUM(${q(m)}), 0)::DOUBLE AS ${q(m)}` : `0::DOUBLE AS ${q(m)}`));
    ctes = `WITH facts AS (${selects.join(" UNION ALL BY NAME ")}), agg AS (SELECT ${[...keys.map(q), ...sums].join(", ")} FROM facts${keys.length ? ` GROUP BY ${keyList}` : ""})`;
  }

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
