/**
 * The report compiler's ClickHouse dialect (service/reports/compiler.ts is the core): what
 * ClickHouse 18.16 reads differently from DuckDB, and nothing else.
 *
 * - No WITH subqueries (nested subqueries instead), no window functions (the total is its own count
 *   query, and a page ordered by date first is found from the records per date: `perDate`), one
 *   JOIN per SELECT (reference names joined one level at a time, `ANY LEFT JOIN … USING`).
 * - Tables live in the published version's database (service/clickhouse/publish.ts); over a cluster
 *   reports read the Distributed tables, and a subquery over a reference table runs once (`GLOBAL`).
 * - Dates only within DATE_RANGE: a range is clamped to it, a date filter outside it matches nothing.
 * - A pre-aggregate may hold several rows per key combination (one per insert block) unless its
 *   version was merged at publish, so a report aggregates, except one that groups by exactly a
 *   merged table's keys, which reads its rows: either way the answers equal DuckDB's record for record.
 * - Values stay placeholders with typed literals, rendered by ./literals.ts only.
 */
import type { MetricName, Operation, ReportRequest } from "@/lib/contract";
import { ReportQuery, type Parts, type ReportPlan, type Statements } from "../reports/compiler";
import type { Grain } from "../reports/grain";
import { DIMENSION_COLUMNS } from "../reports/columns";
import { ident } from "./dialect";
import { DATE_RANGE } from "./literals";
import { readable } from "./schema";

/**
 * Where a report reads: the published version's database, the cluster (null on one node), whether
 * its pre-aggregates were merged to one row per key, and (`window`) whether the request is already
 * narrowed to the dates holding its page (no `perDate` again).
 */
interface ReadFrom {
  database: string;
  cluster: string | null;
  uniqueGrain: boolean;
  window?: boolean;
}

class ClickHouseQuery extends ReportQuery {
  constructor(
    op: Operation,
    req: ReportRequest,
    private readonly at: ReadFrom,
  ) {
    super(op, req);
  }

  protected override ident(name: string): string {
    return ident(name);
  }

  protected override grainFrom(grain: Grain): string {
    return `${this.at.database}.${readable(grain.table, this.at.cluster)} AS g`;
  }

  protected override referenceTable(table: string): string {
    return `${this.at.database}.${table}`;
  }

  protected override uniqueGrain(): boolean {
    return this.at.uniqueGrain;
  }

  // ClickHouse's Date holds DATE_RANGE only (a publish refuses facts outside it).
  protected override dateBounds(): { min: string; max: string } {
    return DATE_RANGE;
  }

  protected override never(): string {
    return "0";
  }

  // Over a cluster the subquery runs once, on the node that asks, and its set goes to every shard.
  protected override inSubquery(negated: boolean): string {
    return `${this.at.cluster ? "GLOBAL " : ""}${negated ? "NOT IN" : "IN"}`;
  }

  protected override metricValue(m: MetricName, scan: boolean): string {
    return scan ? `g.${ident(m)} AS ${ident(m)}` : `sum(g.${ident(m)}) AS ${ident(m)}`;
  }

  protected override statements(parts: Parts): Statements {
    const { keys, from, where, scan, nonZero, orderDims, order, byKeys, joins } = parts;
    const dims = this.dimensions;
    const metrics = this.metrics;
    const nonZeroOn = (prefix: string) => (nonZero ? [`(${nonZero(prefix)})`] : []);
    const groupBy = keys.length ? ` GROUP BY ${keys.map((k) => `g.${ident(k)}`).join(", ")}` : "";
    // Records where every asked metric is zero are not records; metrics are never negative, so this
    // can be decided on the key rows.
    const keyRows = scan
      ? `SELECT ${[...keys.map((k) => `g.${ident(k)} AS ${ident(k)}`), ...metrics.map((m) => this.metricValue(m, true))].join(", ")} FROM ${from} WHERE ${[...where, ...nonZeroOn("g.")].join(" AND ")}`
      : `SELECT * FROM (SELECT ${[...keys.map((k) => `g.${ident(k)} AS ${ident(k)}`), ...metrics.map((m) => this.metricValue(m, false))].join(", ")} ` +
        `FROM ${from} WHERE ${where.join(" AND ")}${groupBy})${nonZeroOn("").map((c) => ` WHERE ${c}`).join("")}`;

    // The key combinations alone, when no metric decides whether one is a record: what counting needs,
    // without summing every metric (each sum reads a column).
    const keyCombinations = nonZero ? keyRows : `SELECT 1 FROM ${from} WHERE ${where.join(" AND ")}${scan ? "" : groupBy}`;

    // Reference names, one join at a time (ANY LEFT JOIN: one name row per key, so no row is added or lost).
    const withNames = (rows: string) => {
      for (const j of joins) {
        const cols = [j.key, ...j.columns].map(ident).join(", ");
        rows = `SELECT * FROM (${rows}) ANY LEFT JOIN (SELECT ${cols} FROM ${this.referenceTable(j.ref.table)}) USING ${ident(j.key)}`;
      }
      return rows;
    };
    const named = dims.map((d) => {
      const c = DIMENSION_COLUMNS[d];
      return c.kind === "ref" ? `${ident(c.column)} AS ${ident(d)}` : ident(d);
    });

    const countParams = this.paramsSoFar();
    const page = () => `LIMIT ${this.param({ int: this.offset }, "BIGINT")}, ${this.param({ int: this.limit }, "BIGINT")}`;
    let sql: string;
    let countSql: string;
    if (!byKeys) {
      // A name grouped without its key (say, bank alone) re-aggregates the key rows by the names.
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
      scan && byKeys && !this.at.window && orderDims[0] === "date"
        ? {
            sql: `SELECT toString(g.${ident("date")}) AS d, count() AS n FROM ${from} WHERE ${[...where, ...nonZeroOn("g.")].join(" AND ")} GROUP BY g.${ident("date")} ORDER BY g.${ident("date")}`,
            params: countParams,
          }
        : undefined;
    return { sql, countSql, countParams, ...(perDate ? { perDate } : {}) };
  }
}

/** ClickHouse's plan of a report over the published version `at`. */
export function planClickHouseReport(op: Operation, req: ReportRequest, at: ReadFrom): ReportPlan {
  return new ClickHouseQuery(op, req, at).plan();
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
