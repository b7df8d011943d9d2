/**
 * Report request → one SQL statement with bound parameters. Pure: no I/O, so it is unit-testable and
 * the SQL can be inspected.
 *
 * Each operation's metrics are kept at its finest grain in a table (its grain: ./grain.ts, kept by
 * service/data/derived.ts). A request filters its grain,
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
import { dimColumn, grainTables, q } from "./grain";

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


/** The key dimension whose value a dimension is read through (itself for key dimensions). */
export function keyOf(name: DimensionName): DimensionName {
  const c = dimColumn(name);
  return c.kind === "ref" ? c.key : name;
}

export function asList(v: FilterScalar | FilterScalar[] | undefined): FilterScalar[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}


/**
 * What records are ordered by: the requested dimensions, leaving out a name whose key comes earlier
 * (it cannot break a tie, and sorting by fewer, narrower columns is much cheaper). Every engine
 * orders by these, so their pages agree.
 */
export function orderDimensions(dims: readonly DimensionName[]): DimensionName[] {
  return dims.filter((d, i) => {
    const c = dimColumn(d);
    return c.kind !== "ref" || !dims.slice(0, i).includes(c.key);
  });
}

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

  // The smallest pre-aggregate holding every key the request groups or filters by (the rollup unless
  // it needs a BIN or an affiliate), filtered, and re-aggregated unless the request asks for its own grain.
  const needed = [...keys, ...filters.map(([d]) => keyOf(d))];
  const grain = grainTables(op).find((t) => needed.every((k) => t.keys.includes(k)))!;
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

  const orderDims = orderDimensions(dims);
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
