/** Executes a report plan and formats records for the wire: amounts to 2 decimals from exact cents. */
import { getDimension, getMetric, type Operation, type Pagination, type ReportRecord, type ReportRequest } from "@/lib/contract";
import type { Database } from "../db";
import { DIMENSION_COLUMNS } from "./columns";
import { planReport } from "./plan";

export interface ReportResult {
  data: ReportRecord[];
  pagination: Pagination;
}

export async function runReport(db: Database, op: Operation, req: ReportRequest): Promise<ReportResult> {
  const plan = planReport(op, req);
  const rows = await db.all(plan.sql, plan.params);
  let total = Number(rows[0]?.__total ?? 0);
  if (rows.length === 0 && plan.offset > 0 && plan.countSql) {
    const counted = await db.all(plan.countSql, plan.countParams ?? []);
    total = Number(counted[0]?.n ?? 0);
  }

  const centsDims = plan.dimensions.filter((d) => {
    const c = DIMENSION_COLUMNS[d];
    return c.kind === "key" && c.sqlType === "CENTS";
  });
  const amountMetrics = plan.metrics.filter((m) => getMetric(m)?.type === "amount");
  const intDims = plan.dimensions.filter((d) => getDimension(d)?.type === "integer");

  const data = rows.map((row) => {
    const rec: ReportRecord = {};
    for (const d of plan.dimensions) rec[d] = (row[d] ?? null) as string | number | null;
    for (const d of intDims) if (rec[d] !== null) rec[d] = Number(rec[d]);
    for (const d of centsDims) if (rec[d] !== null) rec[d] = Number(rec[d]) / 100;
    for (const m of plan.metrics) rec[m] = Number(row[m] ?? 0);
    // Sums are exact integer cents; this is the one rounding step.
    for (const m of amountMetrics) rec[m] = (rec[m] as number) / 100;
    return rec;
  });
  return {
    data,
    pagination: { total, limit: plan.limit, offset: plan.offset, has_more: plan.offset + data.length < total },
  };
}
