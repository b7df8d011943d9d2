/**
 * What several dashboard instances share when they run on one PostgreSQL database: the
 * upstream quota, the answer cache and the report jobs. Each part is optional; without them (PGlite,
 * one process) the gateway keeps everything in memory as before. Implementations: ./pg-quota.ts,
 * ./pg-cache.ts, ./pg-jobs.ts.
 */
import type { Operation, ReportRecord } from "@/lib/contract";
import type { DayStore } from "./day-store";
import type { PgJobs } from "./pg-jobs";
import type { ReportQuery } from "./records";

/** The global window: every instance takes a call from it before the call is made. */
export interface SharedQuota {
  /**
   * Resolves when this instance may make one reporting call now (the call is then counted in the
   * shared window); waits while the window is full. Rejects when `signal` aborts. While it waits out
   * a pause another instance set (a 429 it saw), `onPause` is told when the pause ends, so this
   * instance's own queue holds its other calls until then and tells their wait from it.
   */
  acquire(signal?: AbortSignal, onPause?: (until: number) => void): Promise<void>;
  /** A 429 from upstream: every instance pauses until `until` (ms since epoch). */
  pause(until: number): Promise<void>;
}

export interface SharedAnswer {
  /** The query the answer is for: the asked one, or the finer one it was derived from. */
  query: ReportQuery;
  records: ReportRecord[];
  /** When it was kept: what its lifetime counts from. */
  fetchedAt: number;
  /** When its oldest records were fetched, as its answers tell: before `fetchedAt` for one put together from kept days. */
  asOf: number;
  derived: boolean;
}

/** Answers fetched by any instance, with the same TTL rules and derivation as the memory cache. */
export interface SharedCache {
  /** A fresh answer for the query, exact or derived from a cached one; null when none. */
  find(op: Operation, query: ReportQuery, now?: number): Promise<SharedAnswer | null>;
  /** Keeps an answer until `expiresAt` (and within the shared bound); `asOf` as in SharedAnswer, `fetchedAt` unless given. */
  put(op: Operation, query: ReportQuery, records: ReportRecord[], fetchedAt: number, expiresAt: number, asOf?: number): Promise<void>;
}

export interface SharedState {
  /**
   * Answers kept per day in the dashboard's store (./day-store.ts): with PGlite this process's, with
   * PostgreSQL every instance's.
   */
  days?: DayStore;
  quota?: SharedQuota;
  cache?: SharedCache;
  /** Job rows (./pg-jobs.ts); needs `cache` too, where a done job's records are read from. */
  jobs?: PgJobs;
}

/**
 * A shared part that fails costs the instances calls (an answer, a job or a day not shared), never a
 * report: it is logged as a warning and the work goes on here.
 */
export function logShared(msg: string, e: unknown): void {
  console.error(JSON.stringify({ level: "warn", msg, error: e instanceof Error ? e.message : String(e) }));
}
