/**
 * Reports answered by ClickHouse: the same requests, plans from the same catalog
 * (./plan.ts), records formatted by the same code as DuckDB's (service/reports/run.ts), so the two
 * engines' answers are equal record for record.
 */
import type { Operation, ReportRequest } from "@/lib/contract";
import { toRecords, type ReportResult } from "../reports/run";
import type { ClickHouseServers } from "./connection";
import { bindLiterals } from "./literals";
import { planClickHouseReport } from "./plan";
import { currentVersion, type Published } from "./publish";

/** How long a report may use the version it last read before looking at the pointer again. */
const POINTER_TTL_MS = 2_000;

export class ClickHouseReports {
  private pointer: { at: number; published: Promise<Published | null> };

  constructor(
    private readonly ch: ClickHouseServers,
    published: Published,
  ) {
    this.pointer = { at: Date.now(), published: Promise.resolve(published) };
  }

  /**
   * The version reports read: another instance may have published since, so the pointer is read
   * again when the last reading is older than POINTER_TTL_MS (one reading shared by every report).
   */
  private async database(): Promise<string> {
    if (Date.now() - this.pointer.at > POINTER_TTL_MS) this.pointer = { at: Date.now(), published: currentVersion(this.ch) };
    const published = await this.pointer.published;
    if (!published) throw new Error("ClickHouse holds no published version of the data");
    return published.database;
  }

  async run(op: Operation, req: ReportRequest): Promise<ReportResult> {
    const plan = planClickHouseReport(op, req, { database: await this.database(), cluster: this.ch.cluster });
    // A reference name missing for a key reads as null, as a LEFT JOIN does in SQL.
    const settings = { join_use_nulls: 1 };
    const [page, counted] = await Promise.all([
      this.ch.first.columns(bindLiterals(plan.sql, plan.params), settings),
      this.ch.first.columns(bindLiterals(plan.countSql, plan.countParams), settings),
    ]);
    const total = Number(counted.columns.n?.[0] ?? 0);
    const data = toRecords(plan, page.rows, page.columns);
    return { data, pagination: { total, limit: plan.limit, offset: plan.offset, has_more: plan.offset + data.length < total } };
  }
}
