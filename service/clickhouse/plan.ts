/**
 * Report request → ClickHouse SQL over the grains (service/clickhouse/schema.ts), from the same
 * catalog as DuckDB's compiler (service/reports/plan.ts), written for what ClickHouse 18.16 accepts:
 * no WITH subqueries (nested subqueries instead), no window functions (the total is its own count
 * query), one JOIN per SELECT (reference names joined one level at a time, `ANY LEFT JOIN … USING`).
 *
 * Pure: values are placeholders (`$1`, …) with typed literals, rendered by ./literals.ts only.
 * A report reads the smallest pre-aggregate holding the keys it needs (the grain's rollup unless
 * it needs a BIN or an affiliate). A pre-aggregate may hold several rows per key combination (one
 * per insert block) unless its version was merged at publish, so a report aggregates, except one
 * that groups by exactly a merged table's keys, which reads its rows: either way the answers equal
 * DuckDB's record for record.
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
import { DIMENSION_COLUMNS, type Reference } from "../reports/columns";
import { GRAINS, grainTables } from "../reports/grain";
import { asList, keyOf, orderDimensions } from "../reports/plan";
import { ident } from "./dialect";
import { DATE_RANGE, type Literal } from "./literals";
import { readable } from "./schema";

export interface ClickHousePlan {
  dimensions: DimensionName[];
  metrics: MetricName[];
  /** The page of records. */
  sql: string;
  params: Literal[];
  /** The number of records over every page. */
  countSql: string;
  countParams: Literal[];
  limit: number;
  offset: number;
  /**
   * Records per date (`d`, `n`), in date order, when the records are ordered by date first and each
   * is one row of a merged table: the report then counts these (the total), and asks for its page
   * over only the dates that hold it (ClickHouseReports), so it sorts a day or two, not the range.
   */
  perDate?: { sql: string; params: Literal[] };
}

class Params {
  readonly values: Literal[] = [];
  add(v: Literal): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}


/** A filter value as the literal its column's type takes; null when it cannot equal any value of it. */
function literalFor(d: DimensionName, v: string | number): Literal | null {
  const c = DIMENSION_COLUMNS[d];
  if (c.kind === "ref") return { text: String(v) };
  switch (c.sqlType) {
    case "DATE":
      return String(v) >= DATE_RANGE.min && String(v) <= DATE_RANGE.max ? { date: String(v) } : null;
    case "INTEGER":
      return typeof v === "number" && Number.isSafeInteger(v) ? { int: v } : null;
    case "CENTS": {
      const cents = typeof v === "number" ? exactCents(v) : null;
      return cents === null ? null : { int: cents };
    }
    case "VARCHAR":
      return { text: String(v) };
  }
}

function filterConditions(filters: [DimensionName, FilterScalar | FilterScalar[]][], p: Params, database: string, cluster: string | null): string[] {
  const where: string[] = [];
  for (const [d, raw] of filters) {
    const values = asList(raw);
    const wantsNull = values.includes(null);
    const nonNull = values.filter((v): v is string | number => v !== null);
    const c = DIMENSION_COLUMNS[d];
    const target = `g.${ident(keyOf(d))}`;
    const parts: string[] = [];
    if (c.kind === "key") {
      const placeholders = nonNull.flatMap((v) => {
        const lit = literalFor(d, v);
        return lit ? [p.add(lit)] : [];
      });
      if (placeholders.length > 0) parts.push(`${target} IN (${placeholders.join(", ")})`);
      if (wantsNull) parts.push(`${target} IS NULL`);
    } else {
      // Over a cluster the subquery runs once, on the node that asks, and its set goes to every shard.
      const global = cluster ? "GLOBAL " : "";
      const { table, key } = c.ref;
      if (nonNull.length > 0) {
        const placeholders = nonNull.map((v) => p.add({ text: String(v) })).join(", ");
        parts.push(`${target} ${global}IN (SELECT ${ident(key)} FROM ${database}.${table} WHERE ${ident(c.column)} IN (${placeholders}))`);
      }
      if (wantsNull) parts.push(`${target} ${global}NOT IN (SELECT ${ident(key)} FROM ${database}.${table})`);
    }
    where.push(parts.length > 0 ? `(${parts.join(" OR ")})` : "0");
  }
  return where;
}

/**
 * `at.window`: the request is already narrowed to the dates holding its page (no `perDate` again).
 */
export function planClickHouseReport(
  op: Operation,
  req: ReportRequest,
  at: { database: string; cluster: string | null; uniqueGrain: boolean; window?: boolean },
): ClickHousePlan {
  const { database, cluster } = at;
  const dims = (req.group_by ?? dimensionsFor(op).map((d) => d.name)) as DimensionName[];
  const metrics = (req.metrics ?? metricsFor(op).map((m) => m.name)) as MetricName[];
  const filters = Object.entries(req.filters ?? {}) as [DimensionName, FilterScalar | FilterScalar[]][];
  const limit = req.limit ?? LIMITS.maxPageSize;
  const offset = req.offset ?? 0;
  const p = new Params();

  const keys: DimensionName[] = [];
  for (const d of dims) if (!keys.includes(keyOf(d))) keys.push(keyOf(d));

  // The smallest pre-aggregate that holds every key the request groups or filters by.
  const needed = [...keys, ...filters.map(([d]) => keyOf(d))];
  const grain = grainTables(op).find((t) => needed.every((k) => t.keys.includes(k)))!;
  // ClickHouse's Date holds DATE_RANGE only (a publish refuses facts outside it): a range is
  // clamped to it, and one wholly outside it holds no record.
  const start = req.start_date < DATE_RANGE.min ? DATE_RANGE.min : req.start_date;
  const end = req.end_date > DATE_RANGE.max ? DATE_RANGE.max : req.end_date;
  const range = start <= end ? `g.${ident("date")} BETWEEN ${p.add({ date: start })} AND ${p.add({ date: end })}` : "0";
  const where = [range, ...filterConditions(filters, p, database, cluster)];
  // Records where every asked metric is zero are not records (as in DuckDB's grain, which leaves
  // all-zero rows out); metrics are never negative, so this can be decided on the key rows. Every
  // row of a pre-aggregate is non-zero on some metric (schema.ts), so asking for all of them, the
  // test is always true and left out.
  const everyMetric = GRAINS[op].metrics.every((m) => metrics.includes(m));
  const nonZero = (from: string) => (everyMetric ? [] : [`(${metrics.map((m) => `${from}${ident(m)} != 0`).join(" OR ")})`]);
  const table = `${database}.${readable(grain.table, cluster)}`;
  // At the finest grain of a merged grain each row is a record: read as it is, no aggregate.
  const scan = at.uniqueGrain && grain.keys.every((k) => keys.includes(k));
  const keyRows = scan
    ? `SELECT ${[...keys, ...metrics].map((c) => `g.${ident(c)} AS ${ident(c)}`).join(", ")} FROM ${table} AS g WHERE ${[...where, ...nonZero("g.")].join(" AND ")}`
    : `SELECT * FROM (SELECT ${[...keys.map((k) => `g.${ident(k)} AS ${ident(k)}`), ...metrics.map((m) => `sum(g.${ident(m)}) AS ${ident(m)}`)].join(", ")} ` +
      `FROM ${table} AS g WHERE ${where.join(" AND ")}${keys.length ? ` GROUP BY ${keys.map((k) => `g.${ident(k)}`).join(", ")}` : ""})${nonZero("").map((c) => ` WHERE ${c}`).join("")}`;

  // The key combinations alone, when no metric decides whether one is a record: what counting needs,
  // without summing every metric (each sum reads a column).
  const keyCombinations = everyMetric
    ? scan
      ? `SELECT 1 FROM ${table} AS g WHERE ${where.join(" AND ")}`
      : `SELECT 1 FROM ${table} AS g WHERE ${where.join(" AND ")}${keys.length ? ` GROUP BY ${keys.map((k) => `g.${ident(k)}`).join(", ")}` : ""}`
    : keyRows;

  // Reference names, one join at a time (ANY LEFT JOIN: one name row per key, so no row is added or lost).
  const refs = new Map<string, { ref: Reference; key: DimensionName; columns: string[] }>();
  for (const d of dims) {
    const c = DIMENSION_COLUMNS[d];
    if (c.kind !== "ref") continue;
    const r = refs.get(c.ref.table) ?? { ref: c.ref, key: c.key, columns: [] };
    r.columns.push(c.column);
    refs.set(c.ref.table, r);
  }
  const withNames = (rows: string) => {
    for (const r of refs.values()) {
      const cols = [r.key, ...r.columns].map(ident).join(", ");
      rows = `SELECT * FROM (${rows}) ANY LEFT JOIN (SELECT ${cols} FROM ${database}.${r.ref.table}) USING ${ident(r.key)}`;
    }
    return rows;
  };
  const named = dims.map((d) => {
    const c = DIMENSION_COLUMNS[d];
    return c.kind === "ref" ? `${ident(c.column)} AS ${ident(d)}` : ident(d);
  });

  // The same order as DuckDB's, nulls last.
  const orderDims = orderDimensions(dims);
  const order = orderDims.length ? ` ORDER BY ${orderDims.map((d) => `${ident(d)} ASC NULLS LAST`).join(", ")}` : "";
  const countParams = [...p.values];
  const page = () => `LIMIT ${p.add({ int: offset })}, ${p.add({ int: limit })}`;

  // A name grouped without its key (say, bank alone) re-aggregates the key rows by the names.
  const byNames = !keys.every((k) => dims.includes(k));
  let sql: string;
  let countSql: string;
  if (byNames) {
    const records = `SELECT ${[...named, ...metrics.map((m) => `sum(${ident(m)}) AS ${ident(m)}`)].join(", ")} FROM (${withNames(keyRows)})${dims.length ? ` GROUP BY ${dims.map(ident).join(", ")}` : ""}`;
    sql = `SELECT * FROM (${records})${order} ${page()}`;
    countSql = `SELECT count() AS n FROM (${records})`;
  } else if (orderDims.every((d) => DIMENSION_COLUMNS[d].kind === "key")) {
    // The order needs only keys: page the key rows first and name just the page (then sort the page
    // again, as a join keeps no order).
    sql = `SELECT ${[...named, ...metrics.map(ident)].join(", ")} FROM (${withNames(`SELECT * FROM (${keyRows})${order} ${page()}`)})${order}`;
    countSql = `SELECT count() AS n FROM (${keyCombinations})`;
  } else {
    sql = `SELECT * FROM (SELECT ${[...named, ...metrics.map(ident)].join(", ")} FROM (${withNames(keyRows)}))${order} ${page()}`;
    countSql = `SELECT count() AS n FROM (${keyCombinations})`;
  }
  // Ordered by date first, each record one row: the page lies within the dates that hold it.
  const perDate =
    scan && !byNames && !at.window && orderDims[0] === "date"
      ? {
          sql: `SELECT toString(g.${ident("date")}) AS d, count() AS n FROM ${table} AS g WHERE ${[...where, ...nonZero("g.")].join(" AND ")} GROUP BY g.${ident("date")} ORDER BY g.${ident("date")}`,
          params: countParams,
        }
      : undefined;
  return {
    dimensions: dims,
    metrics,
    sql,
    params: p.values,
    countSql,
    countParams,
    limit,
    offset,
    ...(perDate ? { perDate } : {}),
  };
}

/**
 * The dates whose records hold the page [offset, offset + limit) of records ordered by date first,
 * from the number of records on each date (in date order), and how many records of those dates
 * come before the page; null when the page is past the last record.
 */
export function pageWindow(perDate: readonly { d: string; n: number }[], offset: number, limit: number): { from: string; to: string; skip: number } | null {
  let before = 0;
  let window: { from: string; skip: number } | null = null;
  for (const { d, n } of perDate) {
    if (!window && before + n > offset) window = { from: d, skip: offset - before };
    before += n;
    if (window && before >= offset + limit) return { ...window, to: d };
  }
  const last = perDate.at(-1);
  return window && last ? { ...window, to: last.d } : null;
}
