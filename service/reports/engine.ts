/**
 * Where reports are answered (`SERVICE_ENGINE`): the DuckDB file itself, or ClickHouse, which is
 * first brought up to date with the file (service/clickhouse/publish.ts). Both take the same
 * validated request and answer the same records.
 */
import type { Operation, ReportRequest } from "@/lib/contract";
import type { ServiceConfig } from "../config";
import type { Database } from "../db";
import { ClickHouseServers } from "../clickhouse/connection";
import { ensurePublished } from "../clickhouse/publish";
import { ClickHouseReports } from "../clickhouse/reports";
import type { Logger } from "../http/log";
import { runReport, type ReportResult } from "./run";

export interface ReportEngine {
  run(op: Operation, req: ReportRequest): Promise<ReportResult>;
  close(): Promise<void>;
}

export async function openReportEngine(db: Database, config: ServiceConfig, logger: Logger): Promise<ReportEngine> {
  if (config.SERVICE_ENGINE === "duckdb") return { run: (op, req) => runReport(db, op, req), close: async () => undefined };
  const ch = new ClickHouseServers({ urls: config.CLICKHOUSE_URL ?? [], cluster: config.CLICKHOUSE_CLUSTER ?? null, database: config.CLICKHOUSE_DATABASE });
  try {
    const published = await ensurePublished(db, ch, (message) => logger.info("clickhouse", { message }));
    logger.info("clickhouse", { message: `reports read ${published.database}`, servers: ch.nodes.length, cluster: ch.cluster });
    const reports = new ClickHouseReports(ch, published);
    return { run: (op, req) => reports.run(op, req), close: () => ch.close() };
  } catch (e) {
    await ch.close();
    throw e;
  }
}
