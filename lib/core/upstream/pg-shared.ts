import "server-only";
/**
 * Everything one dashboard instance shares with the others on one PostgreSQL database: the global
 * quota window, the answer cache and the job rows. Built when DATABASE_URL is set.
 */
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import type { Store } from "@/lib/core/store/sql";
import { CACHE_DEFAULTS } from "./cache";
import { PgCache } from "./pg-cache";
import { PgJobs } from "./pg-jobs";
import { PgQuota } from "./pg-quota";
import type { SharedState } from "./shared";

/** host:pid:random — pids repeat across restarts and containers. */
export function instanceId(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

export function pgSharedState(
  db: Store,
  config: { reportRateLimit: number; rateWindowSeconds: number; cacheMaxBytes?: number },
  instance = instanceId(),
  opts: { jobLeaseSeconds?: number } = {},
): SharedState {
  return {
    quota: new PgQuota({ db, limit: config.reportRateLimit, windowMs: config.rateWindowSeconds * 1000, instance }),
    cache: new PgCache({ db, maxBytes: config.cacheMaxBytes ?? CACHE_DEFAULTS.cacheMaxBytes }),
    jobs: new PgJobs(db, instance, opts.jobLeaseSeconds === undefined ? {} : { leaseSeconds: opts.jobLeaseSeconds }),
  };
}
