/**
 * The catalog's SQL fragments (service/reports/columns.ts), written for DuckDB, in ClickHouse's
 * dialect. The fragments are fixed strings of our own, so a few exact rewrites cover them; a
 * fragment none of them fits throws at start rather than reaching a query.
 *
 * In ClickHouse the facts are stored denormalized (service/clickhouse/schema.ts): each attempt and
 * event row carries its customer's initial-order columns (`cu_*`) and its campaign's CPA, so a grain
 * branch reads one table and joins nothing.
 */
import type { DimensionName, MetricName, Operation } from "@/lib/contract";
import { DIMENSION_COLUMNS, METRIC_COLUMNS, rangeColumn, type FactSource } from "../reports/columns";

/** A column reference of the DuckDB fragments, as the denormalized ClickHouse fact row names it. */
function column(expr: string): string {
  return expr.replace(/\bcu\.(\w+)/g, "a.cu_$1").replace(/\bcp\.cpa_cents\b/g, "a.cpa_cents");
}

/**
 * A metric's aggregate: `count(*) FILTER (c)` → `countIf(c)`, `sum(x) FILTER (c)` → `sumIf(x, c)`,
 * `count(*)` → `count()`, `sum(x)` → `sum(x)`; as Int64, 0 where no row qualifies (ClickHouse's
 * conditional aggregates give 0, not null, over no rows).
 */
export function chAggregate(agg: string): string {
  const filtered = /^(count|sum)\((\*|[\w.]+)\) FILTER \((.+)\)$/.exec(agg);
  if (filtered) {
    const [, fn, arg, cond] = filtered as unknown as [string, string, string, string];
    return fn === "count" ? `toInt64(countIf(${column(cond)}))` : `toInt64(sumIf(${column(arg)}, ${column(cond)}))`;
  }
  const plain = /^(count|sum)\((\*|[\w.]+)\)$/.exec(agg);
  if (plain) {
    const [, fn, arg] = plain as unknown as [string, string, string];
    return fn === "count" ? "toInt64(count())" : `toInt64(sum(${column(arg)}))`;
  }
  throw new Error(`no ClickHouse form for the aggregate ${agg}`);
}

export function metricAggregate(m: MetricName): string {
  return chAggregate(METRIC_COLUMNS[m].agg);
}

/** A key dimension's expression in a branch of `op` over `source` (null when the branch lacks it). */
export function keyExpression(op: Operation, d: DimensionName, source: FactSource, byEventDate: boolean): string | null {
  const c = DIMENSION_COLUMNS[d];
  if (c.kind !== "key") throw new Error(`not a key dimension: ${d}`);
  if ("onlyOn" in c && c.onlyOn !== source) return null;
  const expr = op === "orders" ? c.orders : c.cohort;
  return column(expr === "$date" ? rangeColumn(op, source, byEventDate) : expr);
}

/** An identifier, quoted for ClickHouse (names come from the catalog only). */
export const ident = (name: string) => {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a catalog identifier: ${name}`);
  return `"${name}"`;
};
