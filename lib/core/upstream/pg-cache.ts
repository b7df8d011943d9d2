/**
 * The answer cache shared by every dashboard instance on one PostgreSQL database, in
 * `report_cache` (migration 8): an answer any instance fetched answers the others, exactly or derived
 * (./derive.ts) as the memory cache does (./cache.ts). Bounded like it, by JSON size and entry count,
 * least recently used out first; an answer larger than the whole bound is not kept.
 *
 * Round trips: an exact hit or a miss is one statement; a derived hit is two (the candidates' queries
 * without their records, then the chosen one's records); a put is two (upsert, then evict).
 *
 * Freshness is judged by the times the instances give (`fetchedAt`, `expiresAt`, `now`), as the
 * interface has them; recency of use (`used_at`) is the database's clock.
 */
import type { Operation, ReportRecord } from "@/lib/contract";
import type { Sql } from "@/lib/core/store/sql";
import { canDerive } from "./derive";
import { canonicalQuery, queryKey, type ReportQuery } from "./records";
import type { SharedAnswer, SharedCache } from "./shared";

/** The memory cache's entry bound (./cache.ts), the default here too. */
export const PG_CACHE_MAX_ENTRIES = 500;

export interface PgCacheOptions {
  db: Sql;
  /** Bound on the records' JSON size together (the memory cache's measure). */
  maxBytes: number;
  maxEntries?: number;
}

interface FindRow {
  key: string;
  query: ReportQuery;
  /** Only on the exact hit: candidates come without their records. */
  records: ReportRecord[] | null;
  fetched_at: Date | null;
  as_of: Date | null;
  bytes: number;
  exact: boolean;
}

interface HitRow {
  query: ReportQuery;
  records: ReportRecord[];
  fetched_at: Date;
  as_of: Date | null;
}

/**
 * The exact answer if fresh (touched), else the fresh answers of the same op whose range covers the
 * wanted one, with their size but without their records. $1 key, $2 op, $3 now, $4 start, $5 end.
 */
const FIND = `
  WITH hit AS (
    UPDATE report_cache SET used_at = clock_timestamp()
    WHERE key = $1 AND expires_at > $3
    RETURNING key, query, records, fetched_at, as_of
  )
  SELECT key, query, records, fetched_at, as_of, 0 AS bytes, true AS exact FROM hit
  UNION ALL
  SELECT key, query, NULL::json, NULL::timestamptz, NULL::timestamptz, bytes, false
  FROM report_cache
  WHERE op = $2 AND expires_at > $3 AND key <> $1
    AND NOT EXISTS (SELECT 1 FROM hit)
    AND (query->>'start_date') COLLATE "C" <= $4 AND (query->>'end_date') COLLATE "C" >= $5
`;

/** A candidate's records, if it is still there and fresh; touched. $1 key, $2 now. */
const TAKE = `
  UPDATE report_cache SET used_at = clock_timestamp()
  WHERE key = $1 AND expires_at > $2
  RETURNING query, records, fetched_at, as_of
`;

const PUT = `
  INSERT INTO report_cache (key, op, query, records, bytes, fetched_at, expires_at, as_of, used_at)
  VALUES ($1, $2, $3::jsonb, $4::json, $5, $6, $7, $8, clock_timestamp())
  ON CONFLICT (key) DO UPDATE SET
    query = EXCLUDED.query, records = EXCLUDED.records, bytes = EXCLUDED.bytes,
    fetched_at = EXCLUDED.fetched_at, as_of = EXCLUDED.as_of, expires_at = EXCLUDED.expires_at, used_at = EXCLUDED.used_at
  WHERE report_cache.fetched_at <= EXCLUDED.fetched_at
`;

/**
 * Keeps the longest most-recently-used run of answers within both bounds (what evicting the least
 * recently used one at a time until both hold keeps), and drops the expired ones: nobody is answered
 * from them. $1 max bytes, $2 max entries, $3 now.
 */
const EVICT = `
  DELETE FROM report_cache WHERE key IN (
    SELECT key FROM (
      SELECT key, expires_at,
             sum(bytes) OVER (ORDER BY used_at DESC, key DESC ROWS UNBOUNDED PRECEDING) AS bytes_upto,
             row_number() OVER (ORDER BY used_at DESC, key DESC) AS n
      FROM report_cache
    ) ranked
    WHERE bytes_upto > $1 OR n > $2 OR expires_at <= $3
  )
`;

export class PgCache implements SharedCache {
  private readonly db: Sql;
  readonly maxBytes: number;
  readonly maxEntries: number;

  constructor(opts: PgCacheOptions) {
    this.db = opts.db;
    this.maxBytes = opts.maxBytes;
    this.maxEntries = opts.maxEntries ?? PG_CACHE_MAX_ENTRIES;
  }

  async find(op: Operation, query: ReportQuery, now = Date.now()): Promise<SharedAnswer | null> {
    const wanted = canonicalQuery(op, query);
    const at = new Date(now);
    const rows = await this.db.query<FindRow>(FIND, [queryKey(op, wanted), op, at, wanted.start_date, wanted.end_date]);
    const exact = rows.find((r) => r.exact);
    if (exact?.records && exact.fetched_at) {
      return { query: exact.query, records: exact.records, fetchedAt: exact.fetched_at.getTime(), asOf: (exact.as_of ?? exact.fetched_at).getTime(), derived: false };
    }
    // The smallest answer that derives the wanted one: the least to read and to re-aggregate.
    rows.sort((a, b) => a.bytes - b.bytes || (a.key < b.key ? -1 : 1));
    for (const c of rows) {
      if (!canDerive(op, wanted, c.query)) continue;
      const [hit] = await this.db.query<HitRow>(TAKE, [c.key, at]);
      // Gone or expired since the look (another instance evicted it): the next candidate may do.
      if (!hit) continue;
      if (!canDerive(op, wanted, hit.query)) continue;
      return { query: hit.query, records: hit.records, fetchedAt: hit.fetched_at.getTime(), asOf: (hit.as_of ?? hit.fetched_at).getTime(), derived: true };
    }
    return null;
  }

  async put(op: Operation, query: ReportQuery, records: ReportRecord[], fetchedAt: number, expiresAt: number, asOf = fetchedAt): Promise<void> {
    const json = JSON.stringify(records);
    const bytes = json.length; // the memory cache's measure
    if (bytes > this.maxBytes) return; // larger than the whole cache: served, not kept
    const q = canonicalQuery(op, query);
    await this.db.query(PUT, [queryKey(op, q), op, JSON.stringify(q), json, bytes, new Date(fetchedAt), new Date(expiresAt), asOf < fetchedAt ? new Date(asOf) : null]);
    await this.db.query(EVICT, [this.maxBytes, this.maxEntries, new Date()]);
  }
}
