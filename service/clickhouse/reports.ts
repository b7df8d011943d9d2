/**
 * Reports answered by ClickHouse: the same requests, planned by the same compiler in ClickHouse's
 * dialect (./query.ts), records formatted by the same code as DuckDB's (service/reports/run.ts), so
 * the two engines' answers are equal record for record.
 */
import type { Operation, ReportRequest } from "@/lib/contract";
import { toRecords, type ReportResult } from "../reports/run";
import type { ClickHouseServers } from "./connection";
import { bindLiterals } from "./literals";
import { pageWindow, planClickHouseReport } from "./query";
import { currentVersion, type Published } from "./publish";

/** How long a report may use the version it last read before looking at the pointer again. */
const POINTER_TTL_MS = 2_000;
/** Memory a report's sort or aggregate may use before spilling to disk (ClickHouse's default query limit is 10 GB). */
const EXTERNAL_BYTES = 1_000_000_000;

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
  private async published(): Promise<Published> {
    if (Date.now() - this.pointer.at > POINTER_TTL_MS) this.pointer = { at: Date.now(), published: currentVersion(this.ch) };
    const published = await this.pointer.published;
    if (!published) throw new Error("ClickHouse holds no published version of the data");
    return published;
  }

  async run(op: Operation, req: ReportRequest): Promise<ReportResult> {
    const { database, uniqueGrain } = await this.published();
    const plan = planClickHouseReport(op, req, { database, cluster: this.ch.cluster, uniqueGrain });
    const settings = {
      // A reference name missing for a key reads as null, as a LEFT JOIN does in SQL.
      join_use_nulls: 1,
      // Reports read the same few hundred thousand pre-aggregated rows again and again: keeping
      // their decompressed blocks in memory saves decompressing them on every read, which was most
      // of an aggregating report's time (docs/benchmarks.md). Reads of more rows than the server's
      // merge_tree_max_rows_to_use_cache (1 M) bypass the cache, so the finest grain does not evict it.
      use_uncompressed_cache: 1,
      // A page deep in the finest grain sorts millions of rows: past these sizes the sort and the
      // aggregate spill to disk rather than fail on the server's memory limit.
      max_bytes_before_external_sort: EXTERNAL_BYTES,
      max_bytes_before_external_group_by: EXTERNAL_BYTES,
      // Over a cluster, shards send their partial aggregates in buckets, not all at once.
      ...(this.ch.cluster ? { distributed_aggregation_memory_efficient: 1 } : {}),
    };
    const answer = (data: ReportResult["data"], total: number): ReportResult => ({
      data,
      pagination: { total, limit: plan.limit, offset: plan.offset, has_more: plan.offset + data.length < total },
    });
    if (plan.perDate) {
      // The total from the records per date, then the page from the dates that hold it only.
      const counts = (await this.ch.first.columns(bindLiterals(plan.perDate.sql, plan.perDate.params), settings)).columns;
      const perDate = (counts.d ?? []).map((d, i) => ({ d: String(d), n: Number(counts.n?.[i]) }));
      const total = perDate.reduce((sum, r) => sum + r.n, 0);
      const window = pageWindow(perDate, plan.offset, plan.limit);
      if (!window) return answer([], total);
      const narrowed = planClickHouseReport(op, { ...req, start_date: window.from, end_date: window.to, offset: window.skip }, { database, cluster: this.ch.cluster, uniqueGrain, window: true });
      const page = await this.ch.first.columns(bindLiterals(narrowed.sql, narrowed.params), settings);
      return answer(toRecords(narrowed, page.rows, page.columns), total);
    }
    const page = await this.ch.first.columns(bindLiterals(plan.sql, plan.params), settings);
    const data = toRecords(plan, page.rows, page.columns);
    // A page short of its limit is the last, so the total is known: no second query. (A page past
    // the end, empty, says nothing of where the end is.)
    if (data.length < plan.limit && (data.length > 0 || plan.offset === 0)) return answer(data, plan.offset + data.length);
    const counted = await this.ch.first.columns(bindLiterals(plan.countSql, plan.countParams), settings);
    return answer(data, Number(counted.columns.n?.[0] ?? 0));
  }
}
