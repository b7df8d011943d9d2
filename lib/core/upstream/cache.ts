import "server-only";
/**
 * The gateway's answer cache: fetched answers kept for a TTL (longer for ranges that ended before
 * today, whose data no longer changes), bounded by entry count and by size, least recently used out
 * first. A lookup answers exactly from a cached answer or derives one from it (./derive.ts); an
 * expired answer no longer answers a lookup but stays, for `latest`, until the bounds push it out.
 * Separate from jobs and fetching because it knows nothing of queues or the upstream: it only holds
 * answers and says whether one fits a query.
 *
 * An answer asked for again exactly is also kept as the bytes the report routes send
 * (`serialized`), made at its first such hit, so a repeated report is not serialized again. Those
 * bytes count toward the size bound like the records do.
 */
import { todayIn, type Operation, type ReportRecord } from "@/lib/contract";
import { canDerive, derive } from "./derive";
import type { JobResult } from "./jobs";
import { canonicalQuery, queryKey, type ReportQuery } from "./records";

/** The cache's part of the gateway's configuration. */
export interface CacheConfig {
  ttlPastSeconds: number;
  ttlTodaySeconds: number;
  timeZone: string;
  /** The answer cache's size bound, besides its entry count (JSON size of the records). */
  cacheMaxBytes?: number;
}

export const CACHE_DEFAULTS = { cacheMaxBytes: 256 * 1024 * 1024 } as const;

const MAX_CACHE_ENTRIES = 500;

/** The body of an answer from cache, exact or derived, as the report routes send it. */
export function answerBody(result: JobResult, query: ReportQuery) {
  return { status: { state: "done" as const, result }, query };
}

/** A cached answer's body as sent: `answerBody` as UTF-8 JSON. */
export interface SerializedAnswer {
  json: Buffer<ArrayBuffer>;
}

/** The freshest answer the cache holds for a query, with how old it is; see `ReportCache.latest`. */
export interface LatestAnswer {
  result: JobResult;
  /** True while `lookup` would still answer with it. */
  fresh: boolean;
  /** Whole seconds since it was fetched. */
  ageSeconds: number;
  /** When it stops (or stopped) being fresh, ISO 8601. */
  expiresAt: string;
}

interface CacheEntry {
  op: Operation;
  query: ReportQuery;
  records: ReportRecord[];
  fetchedAt: number;
  /** When its oldest records were fetched, as the answer tells it: before `fetchedAt` for one put together from kept days. */
  asOf: number;
  expiresAt: number;
  upstreamCalls: number;
  /** The records' JSON size, plus the serialized body's bytes once made. */
  bytes: number;
  serialized?: SerializedAnswer;
}

export class ReportCache {
  private readonly entries = new Map<string, CacheEntry>();
  private totalBytes = 0;

  /** Read on every use, not copied, so the bound is always the configuration's. */
  constructor(private readonly config: CacheConfig) {}

  /** Answers held. */
  get size(): number {
    return this.entries.size;
  }

  /** Their JSON size together, the measure the byte bound is set in. */
  get bytes(): number {
    return this.totalBytes;
  }

  /**
   * Cached or derivable answer still fresh at `now`, or null. Expired answers are skipped, not
   * evicted: they stay for `latest` (a stale answer shown while a fresh one is fetched) until the
   * bounds push them out, least recently used first.
   */
  lookup(op: Operation, query: ReportQuery, now = Date.now()): JobResult | null {
    const key = queryKey(op, query);
    const exact = this.entries.get(key);
    if (exact && exact.expiresAt > now) {
      this.touch(key, exact);
      return this.answer(exact);
    }
    for (const [k, entry] of this.entries) {
      if (entry.expiresAt <= now) continue;
      if (entry.op === op && canDerive(op, query, entry.query)) {
        this.touch(k, entry);
        return this.answer(entry, op, query);
      }
    }
    return null;
  }

  /**
   * The exact answer to `query` still fresh at `now`, as the bytes of its body (`answerBody`), or
   * null when there is none (a derived answer is not kept as bytes: `lookup` makes it). Serialized
   * at its first hit and kept. Counts as a use for the least-recently-used order, as `lookup` does.
   */
  serialized(op: Operation, query: ReportQuery, now = Date.now()): SerializedAnswer | null {
    return this.serializedByKey(queryKey(op, query), now);
  }

  /** `serialized` for the query whose `queryKey` is `key` (the report routes keep keys per request body). */
  serializedByKey(key: string, now = Date.now()): SerializedAnswer | null {
    const entry = this.entries.get(key);
    if (!entry || entry.expiresAt <= now) return null;
    this.touch(key, entry);
    if (entry.serialized) return entry.serialized;
    // The canonical query is what the routes answer with: one spelling per key.
    const serialized: SerializedAnswer = { json: Buffer.from(JSON.stringify(answerBody(this.answer(entry), canonicalQuery(entry.op, entry.query)))) };
    if (this.grow(key, entry, serialized.json.length)) entry.serialized = serialized; // else too large to keep twice: served, not kept
    return serialized;
  }

  /**
   * Counts `bytes` more for the entry under `key` (the most recently used) and evicts the least
   * recently used past the bounds; false (nothing counted) when that alone would take the entry
   * past the size bound.
   */
  private grow(key: string, entry: CacheEntry, bytes: number): boolean {
    const max = this.config.cacheMaxBytes ?? CACHE_DEFAULTS.cacheMaxBytes;
    if (entry.bytes + bytes > max) return false;
    entry.bytes += bytes;
    this.totalBytes += bytes;
    this.enforceBounds();
    return this.entries.get(key) === entry;
  }

  private enforceBounds(): void {
    const max = this.config.cacheMaxBytes ?? CACHE_DEFAULTS.cacheMaxBytes;
    while (this.entries.size > MAX_CACHE_ENTRIES || this.totalBytes > max) this.evict(this.entries.keys().next().value!);
  }

  /**
   * The most recently fetched answer that fits the query, exactly or derived as `lookup` derives,
   * fresh or not; null when none fits. Ties go to the exact answer (no derivation to do).
   */
  latest(op: Operation, query: ReportQuery, now = Date.now()): LatestAnswer | null {
    const key = queryKey(op, query);
    let best: [string, CacheEntry] | null = null;
    for (const [k, entry] of this.entries) {
      if (entry.op !== op) continue;
      if (best && entry.fetchedAt < best[1].fetchedAt) continue;
      if (best && entry.fetchedAt === best[1].fetchedAt && best[0] === key) continue;
      if (k === key || canDerive(op, query, entry.query)) best = [k, entry];
    }
    if (!best) return null;
    const [k, entry] = best;
    this.touch(k, entry);
    return {
      result: k === key ? this.answer(entry) : this.answer(entry, op, query),
      fresh: entry.expiresAt > now,
      ageSeconds: Math.max(0, Math.floor((now - entry.asOf) / 1000)),
      expiresAt: new Date(entry.expiresAt).toISOString(),
    };
  }

  /** An entry's answer as it is (exact), or derived for `query` from it. */
  private answer(entry: CacheEntry, op?: Operation, query?: ReportQuery): JobResult {
    const fetchedAt = new Date(entry.asOf).toISOString();
    if (!op || !query) {
      return { source: "cache", fetched_at: fetchedAt, upstream_calls: 0, total: entry.records.length, data: entry.records };
    }
    const data = derive(op, query, entry.records);
    return { source: "derived", fetched_at: fetchedAt, derived_from: { query: entry.query, fetched_at: fetchedAt }, upstream_calls: 0, total: data.length, data };
  }

  /**
   * Keeps an answer fetched at `fetchedAt` (now, or another instance's time), evicting the least
   * recently used past either bound; returns when it stops being fresh. `asOf` is the time its
   * answers tell (`fetched_at`, the age): when its oldest records were fetched, for an answer put
   * together now from days kept earlier; `fetchedAt` unless given.
   */
  store(op: Operation, query: ReportQuery, records: ReportRecord[], calls: number, fetchedAt = Date.now(), asOf = fetchedAt): number {
    const today = todayIn(this.config.timeZone);
    const ttl = query.end_date < today ? this.config.ttlPastSeconds : this.config.ttlTodaySeconds;
    const now = fetchedAt;
    // The records' JSON size: what they cost to hold, near enough, and what the bound is set in.
    const bytes = JSON.stringify(records).length;
    const max = this.config.cacheMaxBytes ?? CACHE_DEFAULTS.cacheMaxBytes;
    const expiresAt = now + ttl * 1000;
    if (bytes > max) return expiresAt; // larger than the whole cache: served, not kept
    const key = queryKey(op, query);
    this.evict(key);
    this.entries.set(key, { op, query, records, fetchedAt: now, asOf: Math.min(asOf, now), expiresAt, upstreamCalls: calls, bytes });
    this.totalBytes += bytes;
    this.enforceBounds();
    return expiresAt;
  }

  private touch(key: string, entry: CacheEntry): void {
    this.entries.delete(key);
    this.entries.set(key, entry); // most recently used last
  }

  private evict(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.totalBytes -= e.bytes;
  }
}
