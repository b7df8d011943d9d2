/**
 * Where reports are answered: the engine interface the service's routes call, DuckDB's engine (the
 * compiler's plan run on the file itself), and the records as every engine formats them for the
 * wire: amounts to 2 decimals from exact cents.
 */
import { getDimension, type DimensionName, type MetricName, type Operation, type Pagination, type ReportRecord, type ReportRequest } from "@/lib/contract";
import { fromCents, isAmountMetric } from "@/lib/contract/money";
import type { Database, SqlParam } from "../db";
import { DIMENSION_COLUMNS } from "./columns";
import { planReport, type Literal } from "./compiler";

export interface ReportResult {
  data: ReportRecord[];
  pagination: Pagination;
}

/** An engine that answers reports (chosen once, where the service is assembled: service/app.ts). */
export interface ReportEngine {
  run(op: Operation, req: ReportRequest): Promise<ReportResult>;
  close(): Promise<void>;
}

/** A plan's value as DuckDB binds it (the placeholder's cast gives its type). */
const bound = (v: Literal): SqlParam => ("date" in v ? v.date : "int" in v ? v.int : v.text);

// Converters from DuckDB's values (strings, numbers, bigints, date objects) to the wire's.
type Value = ReportRecord[string];
const asIs = (v: unknown): Value => (v ?? null) as Value;
const toNumber = (v: unknown): Value => (v === null || v === undefined ? null : Number(v));
/** Exact cents (a BIGINT) to a decimal amount: the one rounding step. */
const centsToAmount = (v: unknown): Value => (v === null || v === undefined ? null : fromCents(Number(v)));
/** A DATE as YYYY-MM-DD. */
const toText = (v: unknown): Value => (v === null || v === undefined ? null : String(v));

export async function runReport(db: Database, op: Operation, req: ReportRequest): Promise<ReportResult> {
  const plan = planReport(op, req);
  // Read by columns, and convert each column once with the converter its type needs.
  const { rows, columns } = await db.columns(plan.sql, plan.params.map(bound));
  let total = Number(columns.__total?.[0] ?? 0);
  if (rows === 0 && plan.offset > 0) {
    const counted = await db.all(plan.countSql, plan.countParams.map(bound));
    total = Number(counted[0]?.n ?? 0);
  }
  const data = toRecords(plan, rows, columns);
  return {
    data,
    pagination: { total, limit: plan.limit, offset: plan.offset, has_more: plan.offset + data.length < total },
  };
}

/**
 * A page's records from its columns as an engine read them (named as the dimensions and metrics;
 * counts and cents as numbers, bigints or numeric strings, dates as YYYY-MM-DD or date objects):
 * amounts divided from exact cents once, here.
 */
export function toRecords(plan: { dimensions: readonly DimensionName[]; metrics: readonly MetricName[] }, rows: number, columns: Record<string, unknown[]>): ReportRecord[] {
  const fields: [name: string, values: unknown[], convert: (v: unknown) => Value][] = [];
  for (const d of plan.dimensions) {
    const c = DIMENSION_COLUMNS[d];
    const type = getDimension(d)?.type;
    const convert = c.kind === "key" && c.sqlType === "CENTS" ? centsToAmount : type === "integer" ? toNumber : type === "date" ? toText : asIs;
    fields.push([d, columns[d] ?? [], convert]);
  }
  for (const m of plan.metrics) {
    const convert = isAmountMetric(m) ? centsToAmount : toNumber;
    fields.push([m, columns[m] ?? [], (v) => convert(v) ?? 0]);
  }

  // Every record starts as a copy of one shape with the keys in wire order (dimensions, then
  // metrics): filling copies costs a third of adding 45 keys to an empty object for each record.
  const shape: ReportRecord = Object.fromEntries(fields.map(([name]) => [name, null]));
  const data: ReportRecord[] = new Array<ReportRecord>(rows);
  for (let i = 0; i < rows; i++) {
    const rec: ReportRecord = { ...shape };
    for (const [name, values, convert] of fields) rec[name] = convert(values[i]);
    data[i] = rec;
  }
  return data;
}
