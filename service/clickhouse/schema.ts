/**
 * The service's tables in ClickHouse, derived from the catalog like DuckDB's (service/reports/grain.ts):
 *
 * - facts, denormalized as ClickHouse wants them: each attempt and event row carries the columns the
 *   grains group and sum by, its customer's initial-order columns (`cu_*`, for cohorts) and its
 *   campaign's CPA, so no grain needs a join;
 * - the four reference tables that name keys (products, campaigns, gateways, BINs);
 * - each operation's grain, kept by materialized views: one per branch of the grain (fact table ×
 *   date basis), each inserting its block's aggregate into the grain table as facts are inserted.
 *   A grain is a SummingMergeTree by its whole key: until merged, a key combination may have
 *   several rows (one per insert block), which reports re-aggregate; on one node a publish merges
 *   each grain fully and checks it, and reports then read its rows as they are
 *   (service/clickhouse/query.ts).
 *
 * With a cluster, each node holds local tables and `*_all` Distributed tables over them; facts are
 * inserted through the Distributed tables (sharded by customer), each node's views aggregate what it
 * receives and send each grain row to the shard of its key (sharded by the whole key), and reports
 * read `*_all`. Reference tables are small and copied to every node.
 */
import { createHash } from "node:crypto";
import type { Operation } from "@/lib/contract";
import { GRAINS, grainTables, type Grain } from "../reports/grain";
import { METRIC_COLUMNS, type FactSource } from "../reports/columns";
import { DIMENSION_COLUMNS } from "../reports/columns";
import type { DimensionName } from "@/lib/contract";
import { ident, keyExpression, metricAggregate } from "./dialect";

const OPERATIONS = Object.keys(GRAINS) as Operation[];

/** A column shipped from DuckDB: its ClickHouse name and type, and the DuckDB expression giving it. */
type Column = readonly [name: string, type: string, from: string];

/** A table shipped from DuckDB: its ClickHouse columns and the DuckDB rows that fill it. */
export interface ShippedTable {
  name: string;
  columns: readonly Column[];
  /** The DuckDB FROM clause (with joins) the columns' expressions read. */
  from: string;
  /** Where ClickHouse keeps it sorted (and partitioned by month, for the dated facts). */
  orderBy: string;
  partitionByMonthOf?: string;
  /** Facts are sharded over a cluster; reference tables are copied to every node. */
  kind: "fact" | "reference";
}

/** The DuckDB query whose rows are a shipped table's, its columns named and in order. */
export const sourceSql = (t: ShippedTable) => `SELECT ${t.columns.map(([name, , from]) => `${from} AS ${name}`).join(", ")} FROM ${t.from}`;

const own = (names: [string, string][], alias = "a"): Column[] => names.map(([n, type]) => [n, type, `${alias}.${n}`] as const);
const attemptColumns = own([
  ["customer_id", "Int64"],
  ["attempt_date", "Date"],
  ["initial_date", "Date"],
  ["attempt_no", "Int32"],
  ["billing_cycle", "Int32"],
  ["sales_type", "String"],
  ["campaign_id", "Int32"],
  ["product_id", "Int32"],
  ["gateway_id", "Int32"],
  ["bin", "String"],
  ["affid", "Nullable(String)"],
  ["sub_affid", "Nullable(String)"],
  ["price_point_cents", "Int64"],
]);
/** The customer's initial order, for cohorts (service/clickhouse/dialect.ts reads `cu.x` as `cu_x`). */
const customerColumns: Column[] = own(
  [
    ["campaign_id", "Int32"],
    ["product_id", "Int32"],
    ["affid", "Nullable(String)"],
    ["sub_affid", "Nullable(String)"],
    ["price_point_cents", "Int64"],
  ],
  "cu",
).map(([n, type, from]) => [`cu_${n}`, type, from] as const);
/** Every fact row has its customer (the importer checks it); LEFT keeps a row should one lack it. */
const customerJoin = "LEFT JOIN customers cu ON cu.customer_id = a.customer_id";

const eventTable = (facts: string): ShippedTable => ({
  name: facts,
  kind: "fact",
  // DuckDB's event facts already carry their attempt's columns (service/data/derived.ts).
  columns: [
    ...attemptColumns,
    ...own([
      ["event_date", "Date"],
      ["event_amount_cents", "Int64"],
      ["refund_type", "Nullable(String)"],
      ["alert_type", "Nullable(String)"],
    ]),
    ...customerColumns,
  ],
  from: `${facts} a ${customerJoin}`,
  orderBy: "event_date",
  partitionByMonthOf: "event_date",
});

const reference = (name: string, key: [string, string], names: string[]): ShippedTable => ({
  name,
  kind: "reference",
  columns: [key, ...names.map((n): [string, string] => [n, "String"])].map(([n, type]) => [n, type, n] as const),
  from: name,
  orderBy: key[0],
});

/** The tables shipped to ClickHouse, in load order (references first). */
export const SHIPPED_TABLES: readonly ShippedTable[] = [
  reference("gateways", ["gateway_id", "Int32"], ["gateway_alias", "acquirer", "mcc"]),
  reference("campaigns", ["campaign_id", "Int32"], ["campaign_name", "campaign_type"]),
  reference("products", ["product_id", "Int32"], ["product_name", "product_group"]),
  reference("bins", ["bin", "String"], ["bank", "card_brand", "card_type"]),
  {
    name: "attempts",
    kind: "fact",
    columns: [
      ...attemptColumns,
      ["is_cascade", "UInt8", "a.is_cascade::UTINYINT"],
      ["approved", "UInt8", "a.approved::UTINYINT"],
      ["amount_cents", "Int64", "a.amount_cents"],
      ...customerColumns,
      ["cpa_cents", "Int64", "cp.cpa_cents"],
    ],
    from: `attempts a ${customerJoin} LEFT JOIN campaigns cp ON cp.campaign_id = a.campaign_id`,
    orderBy: "attempt_date",
    partitionByMonthOf: "attempt_date",
  },
  eventTable("chargeback_facts"),
  eventTable("refund_facts"),
  eventTable("alert_facts"),
];

/**
 * A key dimension's column type in a grain: nullable where some row can lack it (a family's own
 * dimension outside that family, or a fact column that can be null), so join keys keep their type.
 */
export function keyType(d: DimensionName): string {
  const c = DIMENSION_COLUMNS[d];
  if (c.kind !== "key") throw new Error(`not a key dimension: ${d}`);
  const base = c.sqlType === "DATE" ? "Date" : c.sqlType === "INTEGER" ? "Int32" : c.sqlType === "CENTS" ? "Int64" : "String";
  const attempts = SHIPPED_TABLES.find((t) => t.name === "attempts")!;
  const nullable =
    "onlyOn" in c ||
    (["orders", "cohort"] as const).some((op) => {
      const column = keyExpression(op, d, "attempts", false)?.replace(/^a\./, "");
      return attempts.columns.some(([n, type]) => n === column && type.startsWith("Nullable"));
    });
  return nullable ? `Nullable(${base})` : base;
}

/** The ClickHouse table each fact source's rows are in. */
const FACT_TABLE_OF: Record<FactSource, string> = { attempts: "attempts", chargebacks: "chargeback_facts", refunds: "refund_facts", alerts: "alert_facts" };

/** Where a table is read from: the Distributed table over a cluster, else the table itself. */
export const readable = (table: string, cluster: string | null) => (cluster ? `${table}_all` : table);

function engine(order: string, partition?: string): string {
  return `ENGINE = MergeTree()${partition ? ` PARTITION BY toYYYYMM(${partition})` : ""} ORDER BY ${order}`;
}

/** One branch of a grain: the metrics a fact table gives on one date basis. */
interface Branch {
  source: FactSource;
  byEventDate: boolean;
}

function branches(op: Operation): Branch[] {
  const out: Branch[] = [];
  for (const m of GRAINS[op].metrics) {
    const c = METRIC_COLUMNS[m];
    const byEventDate = op === "orders" && c.byEventDate;
    if (!out.some((b) => b.source === c.source && b.byEventDate === byEventDate)) out.push({ source: c.source, byEventDate });
  }
  return out;
}

/** The SELECT of a branch's aggregate over `from` (a fact table aliased `a`), shaped like `t`. */
function branchSelect(op: Operation, t: Grain, b: Branch, from: string): string {
  const grain = GRAINS[op];
  // Each column exactly of its target's type: a Distributed target (on a cluster) converts nothing.
  const keys = t.keys.map((k) => `CAST(${keyExpression(op, k, b.source, b.byEventDate) ?? "NULL"} AS ${keyType(k)}) AS ${ident(k)}`);
  const metrics = grain.metrics.filter((m) => {
    const c = METRIC_COLUMNS[m];
    return c.source === b.source && (op === "orders" && c.byEventDate) === b.byEventDate;
  });
  // A view must give every column of its target (ClickHouse 18.16 fills none by default).
  const sums = grain.metrics.map((m) => `${metrics.includes(m) ? metricAggregate(m) : "toInt64(0)"} AS ${ident(m)}`);
  // A key whose every metric is zero adds nothing to any sum, so it is left out: every row of a grain
  // is then non-zero on some metric (metrics are never negative), at any stage of merging, which
  // lets a report asking for every metric skip that test (the report compiler, service/reports/compiler.ts).
  const nonZero = metrics.map((m) => `${ident(m)} != 0`).join(" OR ");
  return `SELECT ${[...keys, ...sums].join(", ")} FROM ${from} AS a GROUP BY ${t.keys.map(ident).join(", ")} HAVING ${nonZero}`;
}

const viewName = (t: Grain, b: Branch) => `${t.table}_from_${b.source}${b.byEventDate ? "_by_event_date" : ""}`;

/**
 * The statements that create one version's tables in `db` on one node. `cluster`: the cluster the
 * Distributed tables span (null on a single node).
 */
export function createStatements(db: string, cluster: string | null): string[] {
  const out: string[] = [`CREATE DATABASE IF NOT EXISTS ${db}`];
  const distributed = (table: string, shardBy: string) =>
    cluster ? [`CREATE TABLE ${db}.${table}_all AS ${db}.${table} ENGINE = Distributed(${cluster}, ${db}, ${table}, ${shardBy})`] : [];
  for (const t of SHIPPED_TABLES) {
    const cols = t.columns.map(([n, type]) => `${ident(n)} ${type}`).join(", ");
    out.push(`CREATE TABLE ${db}.${t.name} (${cols}) ${engine(t.orderBy, t.partitionByMonthOf)}`);
    // Sharded by customer, so a customer's attempts and events are on one node.
    if (t.kind === "fact") out.push(...distributed(t.name, "intHash64(customer_id)"));
  }
  for (const op of OPERATIONS) {
    const metrics = GRAINS[op].metrics;
    for (const t of grainTables(op)) {
      const cols = [...t.keys.map((k) => `${ident(k)} ${keyType(k)}`), ...metrics.map((m) => `${ident(m)} Int64`)].join(", ");
      // Summed by the whole key (a nullable key as its value and whether it is null: 18.16 sorts by
      // no nullable column), so once merged each key combination is one row (see publish.ts).
      const sortKey = t.keys.map((k) => (keyType(k).startsWith("Nullable") ? `ifNull(${ident(k)}, ${nullDefault(k)}), isNull(${ident(k)})` : ident(k)));
      out.push(
        `CREATE TABLE ${db}.${t.table} (${cols}) ENGINE = SummingMergeTree((${metrics.map(ident).join(", ")})) ` +
          `PARTITION BY toYYYYMM(${ident("date")}) ORDER BY (${sortKey.join(", ")})`,
      );
      // Sharded by the whole key: every row of a key combination lands on one node, so merging each
      // node's table makes the key unique over the cluster too.
      out.push(...distributed(t.table, `cityHash64(${sortKey.join(", ")})`));
      for (const b of branches(op)) {
        // Each node's view aggregates the facts it receives and, on a cluster, sends each row to its
        // key's shard through the Distributed table.
        out.push(`CREATE MATERIALIZED VIEW ${db}.${viewName(t, b)} TO ${db}.${readable(t.table, cluster)} AS ${branchSelect(op, t, b, `${db}.${FACT_TABLE_OF[b.source]}`)}`);
      }
    }
  }
  return out;
}

/** The value a nullable key sorts by when null (beside `isNull`, so it never meets a real value). */
function nullDefault(k: DimensionName): string {
  return keyType(k) === "Nullable(String)" ? "''" : "0";
}

/** The views that keep the grains, to drop once a version's facts are all in (nothing inserts later). */
export function viewNames(): string[] {
  return OPERATIONS.flatMap((op) => grainTables(op).flatMap((t) => branches(op).map((b) => viewName(t, b))));
}

/** A short hash of the tables' definitions: a catalog change makes a new version even on the same data. */
export function schemaHash(): string {
  return createHash("sha256").update(createStatements("db", null).join("\n")).digest("hex").slice(0, 12);
}

