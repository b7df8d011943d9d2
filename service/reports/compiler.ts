/**
 * The report compiler: a report request → SQL statements with typed values. Pure: no I/O, so it is
 * unit-testable and the SQL can be inspected.
 *
 * Each operation's metrics are kept at their finest grain in a table (its grain: ./grain.ts, kept by
 * service/data/derived.ts, and by the publication in ClickHouse). A request filters the smallest of
 * those tables that holds its keys, re-aggregates it by the requested keys (or, at a table's finest
 * grain, reads its rows as they are), names the reference dimensions, orders and pages.
 *
 * One compiler, with dialects: ReportQuery is the core and writes DuckDB's SQL; an engine whose SQL
 * differs subclasses it and overrides only the hooks below that differ (service/clickhouse/query.ts).
 * What every dialect shares is decided here once: the grouped keys, the table read, the filters and
 * the date range, whether a row of it is a record, the non-zero test, the order and the page. Values
 * never become SQL text here: each is a placeholder `$n::TYPE` with its typed value (Literal), which
 * an engine binds (DuckDB as parameters, ClickHouse as checked literals).
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
import { DIMENSION_COLUMNS, type Reference } from "./columns";
import { GRAINS, grainTables, type Grain } from "./grain";

/** A value bound into a statement, one of three kinds. */
export type Literal =
  /** A calendar date `YYYY-MM-DD` (the contract's CalendarDate). */
  | { readonly date: string }
  /** A safe integer, or a bigint within Int64 (counts, cents, ids, limits and offsets). */
  | { readonly int: number | bigint }
  /** A string (a filter value or a reference name). */
  | { readonly text: string };

/** The type a placeholder is read as (`$n::DATE`), which its value's kind must match. */
type ParamType = "DATE" | "INTEGER" | "BIGINT" | "VARCHAR";

export interface ReportPlan {
  dimensions: DimensionName[];
  metrics: MetricName[];
  /** The page of records. */
  sql: string;
  params: Literal[];
  /** The number of records over every page (for a page past the end, or a dialect without window functions). */
  countSql: string;
  countParams: Literal[];
  limit: number;
  offset: number;
  /**
   * Records per date (`d`, `n`), in date order, when a dialect pages records ordered by date first in
   * two steps: the engine counts these (the total), and asks for its page over only the dates that
   * hold it (pageWindow), so it sorts a day or two, not the range.
   */
  perDate?: { sql: string; params: Literal[] };
}

type Filters = [DimensionName, FilterScalar | FilterScalar[]][];

/** The key dimension whose value a dimension is read through (itself for key dimensions). */
export function keyOf(name: DimensionName): DimensionName {
  const c = DIMENSION_COLUMNS[name];
  return c.kind === "ref" ? c.key : name;
}

function asList(v: FilterScalar | FilterScalar[] | undefined): FilterScalar[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/** A reference table joined to name keys, with the names read from it. */
export interface Join {
  ref: Reference;
  key: DimensionName;
  columns: string[];
}

/** A dialect's statements for a request (ReportQuery.statements). */
export interface Statements {
  sql: string;
  countSql: string;
  /** The values of the placeholders of `countSql` (and of `perDate`'s): those before the page's. */
  countParams: Literal[];
  perDate?: ReportPlan["perDate"];
}

/** What every dialect's statements are assembled from (ReportQuery.statements). */
export interface Parts {
  /** Key columns the records are grouped by: grouped key dimensions, and the keys of grouped names. */
  keys: DimensionName[];
  /** The table read, with its alias `g`, as the FROM clause names it. */
  from: string;
  /** The conditions on the table's rows (date range, filters), joined by AND. */
  where: string[];
  /** Each row of the table is a record, read as it is: there is nothing to aggregate. */
  scan: boolean;
  /** A record needs some asked metric non-zero (null when every row already has one): on `prefix`'s columns. */
  nonZero: ((prefix: string) => string) | null;
  /** What records are ordered by, and the ORDER BY clause (empty when none). */
  orderDims: DimensionName[];
  order: string;
  /** Every grouped name comes with its key: records are the key rows, named afterwards. */
  byKeys: boolean;
  /** The reference tables the grouped names are read from, by table. */
  joins: Join[];
}

/**
 * What records are ordered by: the requested dimensions, leaving out a name whose key comes earlier
 * (it cannot break a tie, and sorting by fewer, narrower columns is much cheaper). Every dialect
 * orders by these, so the engines' pages agree.
 */
function orderDimensions(dims: readonly DimensionName[]): DimensionName[] {
  return dims.filter((d, i) => {
    const c = DIMENSION_COLUMNS[d];
    return c.kind !== "ref" || !dims.slice(0, i).includes(c.key);
  });
}

/**
 * The compiler's core, in DuckDB's dialect. One instance compiles one request (`plan()`).
 */
export class ReportQuery {
  readonly dimensions: DimensionName[];
  readonly metrics: MetricName[];
  readonly limit: number;
  readonly offset: number;
  private readonly filters: Filters;
  private readonly values: Literal[] = [];

  constructor(
    protected readonly op: Operation,
    protected readonly req: ReportRequest,
  ) {
    this.dimensions = (req.group_by ?? dimensionsFor(op).map((d) => d.name)) as DimensionName[];
    this.metrics = (req.metrics ?? metricsFor(op).map((m) => m.name)) as MetricName[];
    this.filters = Object.entries(req.filters ?? {}) as Filters;
    this.limit = req.limit ?? LIMITS.maxPageSize;
    this.offset = req.offset ?? 0;
  }

  // ---- The dialect's hooks: DuckDB's forms here, overridden where an engine's differ. ----

  /** An identifier, quoted (names come from the catalog only). */
  protected ident(name: string): string {
    return `"${name}"`;
  }

  /** The FROM clause of a pre-aggregate, aliased `g`. */
  protected grainFrom(grain: Grain): string {
    return `${grain.table} g`;
  }

  /** A reference table as a query names it. */
  protected referenceTable(table: string): string {
    return table;
  }

  /** Whether each pre-aggregate holds one row per key combination (DuckDB's grains always do). */
  protected uniqueGrain(): boolean {
    return true;
  }

  /** The dates the engine can hold, when it cannot hold every date: a range is clamped to them. */
  protected dateBounds(): { min: string; max: string } | null {
    return null;
  }

  /** The condition that holds for no row (ClickHouse 18.16 reads no boolean literal). */
  protected never(): string {
    return "FALSE";
  }

  /** `IN` before a subquery over a reference table (a cluster may want it run once: `GLOBAL IN`). */
  protected inSubquery(negated: boolean): string {
    return negated ? "NOT IN" : "IN";
  }

  /** A metric's value in the key rows: the table's column as it is (`scan`), or its sum. */
  protected metricValue(m: MetricName, scan: boolean): string {
    const col = `g.${this.ident(m)}`;
    return scan ? `${col}::DOUBLE AS ${this.ident(m)}` : `COALESCE(SUM(${col}), 0)::DOUBLE AS ${this.ident(m)}`;
  }

  /**
   * The statements over the shared parts. DuckDB's: one statement of common table expressions that
   * counts the records with a window and, when each row is a record ordered by date first, finds
   * the dates holding the page before sorting only those.
   */
  protected statements(parts: Parts): Statements {
    const { keys, from, where, scan, nonZero, orderDims, order, byKeys, joins } = parts;
    const ident = (n: string) => this.ident(n);
    const group = !scan && keys.length ? ` GROUP BY ${keys.map(ident).join(", ")}` : "";
    const values = this.metrics.map((m) => this.metricValue(m, scan));
    // A scan is cheaper to read again (for the counts by date) than to materialize.
    let ctes =
      `WITH agg AS ${scan ? "NOT MATERIALIZED " : ""}(SELECT ${[...keys.map((k) => `g.${ident(k)}`), ...values].join(", ")} ` +
      `FROM ${from} WHERE ${where.join(" AND ")}${group})`;
    const nonZeroCondition = nonZero ? `(${nonZero("")})` : null;
    const nonZeroWhere = nonZeroCondition ? ` WHERE ${nonZeroCondition}` : "";

    const refs = joins.map((j) => ({ table: this.referenceTable(j.ref.table), alias: j.ref.alias, key: j.key }));
    const joined = (at: string) => refs.map((r) => `LEFT JOIN ${r.table} ${r.alias} ON ${r.alias}.${r.key} = ${at}.${ident(r.key)}`).join(" ");
    const named = (at: string) =>
      this.dimensions.map((d) => {
        const c = DIMENSION_COLUMNS[d];
        return c.kind === "ref" ? `${c.ref.alias}.${c.column} AS ${ident(d)}` : `${at}.${ident(d)} AS ${ident(d)}`;
      });
    const metricsOf = (at: string) => this.metrics.map((m) => `${at}.${ident(m)}`);

    let rows: string; // the records, before paging
    let select: (limit: string, offset: string) => string;
    if (scan && orderDims[0] === "date") {
      // Each grain row is a record, ordered by date first. Count the records of each date, find the
      // dates that hold the page, and sort only those: the total comes from the same counts, and a page
      // deep in a long range costs no more than the first (a window count or a full sort over
      // millions of wide rows cost up to a second).
      rows = "agg";
      select = (limit, offset) =>
        `, days AS (SELECT "date", COUNT(*) AS n FROM agg${nonZeroWhere} GROUP BY "date"), ` +
        `win AS (SELECT MIN("date") AS lo, MAX("date") AS hi, MIN(before) AS skip FROM ` +
        `(SELECT "date", n, SUM(n) OVER (ORDER BY "date" ROWS UNBOUNDED PRECEDING) - n AS before FROM days) ` +
        `WHERE before + n > ${offset} AND before < ${offset} + ${limit}), ` +
        `paged AS (SELECT * FROM agg WHERE "date" BETWEEN (SELECT lo FROM win) AND (SELECT hi FROM win)` +
        `${nonZeroCondition ? ` AND ${nonZeroCondition}` : ""}${order} LIMIT ${limit} OFFSET (${offset} - (SELECT skip FROM win))) ` +
        `SELECT ${[...named("paged"), ...metricsOf("paged"), "(SELECT SUM(n) FROM days)::DOUBLE AS __total"].join(", ")} ` +
        `FROM paged ${joined("paged")}${order}`;
    } else if (byKeys && orderDims.every((d) => DIMENSION_COLUMNS[d].kind === "key")) {
      // Every grouped name comes with its key, and the order needs only keys: page the key rows first
      // and name just the page.
      rows = "agg";
      select = (limit, offset) =>
        `, paged AS (SELECT *, COUNT(*) OVER ()::DOUBLE AS __total FROM agg${nonZeroWhere}${order} LIMIT ${limit} OFFSET ${offset}) ` +
        `SELECT ${[...named("paged"), ...metricsOf("paged"), "paged.__total"].join(", ")} FROM paged ${joined("paged")}${order}`;
    } else {
      // Grouped by a name without its key (say, bank alone): re-aggregate the key rows by the names.
      ctes +=
        `, named AS (SELECT ${[...named("agg"), ...this.metrics.map((m) => `SUM(agg.${ident(m)}) AS ${ident(m)}`)].join(", ")} FROM agg ${joined("agg")}` +
        `${this.dimensions.length ? ` GROUP BY ${this.dimensions.map((_, i) => i + 1).join(", ")}` : ""})`;
      rows = "named";
      select = (limit, offset) => ` SELECT *, COUNT(*) OVER ()::DOUBLE AS __total FROM named${nonZeroWhere}${order} LIMIT ${limit} OFFSET ${offset}`;
    }
    const countSql = `${ctes} SELECT COUNT(*)::DOUBLE AS n FROM ${rows}${nonZeroWhere}`;
    const countParams = this.paramsSoFar();
    return { countSql, countParams, sql: ctes + select(this.param({ int: this.limit }, "BIGINT"), this.param({ int: this.offset }, "BIGINT")) };
  }

  // ---- The core, the same for every dialect. ----

  /** A placeholder for `value`, read as `type`: the value is bound by the engine, never written into the SQL. */
  protected param(value: Literal, type: ParamType): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }

  /** The values of the placeholders so far. */
  protected paramsSoFar(): Literal[] {
    return [...this.values];
  }

  /** A filter value of a key dimension as a placeholder; null when it cannot equal any value of the column. */
  private keyValue(d: DimensionName, v: string | number): string | null {
    const c = DIMENSION_COLUMNS[d];
    if (c.kind !== "key") return this.param({ text: String(v) }, "VARCHAR");
    switch (c.sqlType) {
      case "DATE": {
        const bounds = this.dateBounds();
        const date = String(v);
        return bounds && (date < bounds.min || date > bounds.max) ? null : this.param({ date }, "DATE");
      }
      case "INTEGER":
        return typeof v === "number" && Number.isSafeInteger(v) ? this.param({ int: v }, "INTEGER") : null;
      case "CENTS": {
        const cents = typeof v === "number" ? exactCents(v) : null;
        return cents === null ? null : this.param({ int: cents }, "BIGINT");
      }
      case "VARCHAR":
        return this.param({ text: String(v) }, "VARCHAR");
    }
  }

  /**
   * The date range over the table's rows, clamped to the dates the engine holds (no row lies outside
   * them; a range wholly outside holds no record).
   */
  private rangeCondition(): string {
    const bounds = this.dateBounds();
    const start = bounds && this.req.start_date < bounds.min ? bounds.min : this.req.start_date;
    const end = bounds && this.req.end_date > bounds.max ? bounds.max : this.req.end_date;
    if (start > end) return this.never();
    return `g.${this.ident("date")} BETWEEN ${this.param({ date: start }, "DATE")} AND ${this.param({ date: end }, "DATE")}`;
  }

  /**
   * Conditions for the filters over the table's columns; a reference dimension is read through its
   * key. A refund_type or alert_type filter keeps only that family's rows: on the others the column is null.
   */
  private filterConditions(): string[] {
    const where: string[] = [];
    for (const [d, raw] of this.filters) {
      const values = asList(raw);
      const wantsNull = values.includes(null);
      const nonNull = values.filter((v): v is string | number => v !== null);
      const c = DIMENSION_COLUMNS[d];
      const target = `g.${this.ident(keyOf(d))}`;
      const parts: string[] = [];
      if (c.kind === "key") {
        const placeholders = nonNull.flatMap((v) => this.keyValue(d, v) ?? []);
        if (placeholders.length > 0) parts.push(`${target} IN (${placeholders.join(", ")})`);
        if (wantsNull) parts.push(`${target} IS NULL`);
      } else {
        const key = this.ident(c.ref.key);
        const table = this.referenceTable(c.ref.table);
        if (nonNull.length > 0) {
          const placeholders = nonNull.map((v) => this.keyValue(d, v)).join(", ");
          parts.push(`${target} ${this.inSubquery(false)} (SELECT ${key} FROM ${table} WHERE ${this.ident(c.column)} IN (${placeholders}))`);
        }
        if (wantsNull) parts.push(`${target} ${this.inSubquery(true)} (SELECT ${key} FROM ${table})`);
      }
      where.push(parts.length > 0 ? `(${parts.join(" OR ")})` : this.never());
    }
    return where;
  }

  /** The statements that answer the request, and the values of their placeholders. */
  plan(): ReportPlan {
    const dims = this.dimensions;
    const keys: DimensionName[] = [];
    for (const d of dims) if (!keys.includes(keyOf(d))) keys.push(keyOf(d));

    // The smallest pre-aggregate holding every key the request groups or filters by (the rollup
    // unless it needs a BIN or an affiliate).
    const needed = [...keys, ...this.filters.map(([d]) => keyOf(d))];
    const grain = grainTables(this.op).find((t) => needed.every((k) => t.keys.includes(k)))!;
    const where = [this.rangeCondition(), ...this.filterConditions()];
    // Records where every asked metric is zero are not records (the grains leave all-zero rows
    // out). Every row of a pre-aggregate is non-zero on some metric and metrics are never negative,
    // so when every metric is asked for the test is always true, at any grouping, and left out.
    const everyMetric = GRAINS[this.op].metrics.every((m) => this.metrics.includes(m));
    const nonZero = everyMetric ? null : (prefix: string) => this.metrics.map((m) => `${prefix}${this.ident(m)} != 0`).join(" OR ");

    const joins = new Map<string, Join>();
    for (const d of dims) {
      const c = DIMENSION_COLUMNS[d];
      if (c.kind !== "ref") continue;
      const j = joins.get(c.ref.table) ?? { ref: c.ref, key: c.key, columns: [] };
      j.columns.push(c.column);
      joins.set(c.ref.table, j);
    }
    const orderDims = orderDimensions(dims);
    const { sql, countSql, countParams, perDate } = this.statements({
      keys,
      from: this.grainFrom(grain),
      where,
      // At a unique table's finest grain each row is a record.
      scan: this.uniqueGrain() && grain.keys.every((k) => keys.includes(k)),
      nonZero,
      orderDims,
      order: orderDims.length ? ` ORDER BY ${orderDims.map((d) => `${this.ident(d)} ASC NULLS LAST`).join(", ")}` : "",
      byKeys: keys.every((k) => dims.includes(k)),
      joins: [...joins.values()],
    });
    return {
      dimensions: dims,
      metrics: this.metrics,
      sql,
      params: [...this.values],
      countSql,
      countParams,
      limit: this.limit,
      offset: this.offset,
      ...(perDate ? { perDate } : {}),
    };
  }
}

/** DuckDB's plan of a report. */
export function planReport(op: Operation, req: ReportRequest): ReportPlan {
  return new ReportQuery(op, req).plan();
}
