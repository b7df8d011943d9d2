import "server-only";
/**
 * The process-wide report gateway, built from the validated server environment. One instance per
 * dashboard process (kept on globalThis so dev reloads don't create a second queue); with
 * DATABASE_URL it shares its quota, cache and jobs with the other instances (./pg-shared.ts). Either
 * way the answers it fetched are kept in the dashboard's store: per day (./day-store.ts), or whole
 * (./pg-cache.ts) for questions not kept by day.
 */
import { serverEnv } from "@/lib/core/env/env";
import { lazyStore } from "@/lib/core/store/lazy";
import { CACHE_DEFAULTS } from "./cache";
import { DayStore } from "./day-store";
import { ReportGateway, type GatewayConfig } from "./gateway";
import { PgCache } from "./pg-cache";
import { pgSharedState } from "./pg-shared";

const globalKey = Symbol.for("payments-analytics.report-gateway");
type WithGateway = typeof globalThis & { [globalKey]?: ReportGateway };

export function getGateway(): ReportGateway {
  const g = globalThis as WithGateway;
  if (!g[globalKey]) {
    const env = serverEnv();
    const config: GatewayConfig = {
      baseUrl: env.UPSTREAM_BASE_URL.replace(/\/$/, ""),
      clientId: env.UPSTREAM_CLIENT_ID,
      clientSecret: env.UPSTREAM_CLIENT_SECRET,
      ...(env.UPSTREAM_ACCESS_TOKEN ? { accessToken: env.UPSTREAM_ACCESS_TOKEN } : {}),
      ...(env.UPSTREAM_TOKEN_URL ? { tokenUrl: env.UPSTREAM_TOKEN_URL } : {}),
      reportRateLimit: env.UPSTREAM_REPORT_RATE_LIMIT,
      rateWindowSeconds: env.UPSTREAM_RATE_WINDOW_SECONDS,
      pageCap: env.UPSTREAM_PAGE_CAP,
      ttlPastSeconds: env.CACHE_TTL_PAST_SECONDS,
      ttlTodaySeconds: env.CACHE_TTL_TODAY_SECONDS,
      timeZone: env.REPORT_TIMEZONE,
      maxJobsPerOwner: env.REPORT_JOBS_PER_USER,
      maxJobs: env.REPORT_JOBS_MAX,
      cacheMaxBytes: env.CACHE_MAX_MB * 1024 * 1024,
    };
    // Several instances on one PostgreSQL database share the quota, the answers and the jobs; with
    // the embedded store (one process) everything stays in this process's memory.
    // The day store is in the dashboard's store either way: PGlite keeps it across restarts of this
    // process, PostgreSQL for every instance.
    const store = lazyStore(env.DATABASE_URL ? "postgres" : "pglite");
    const days = new DayStore(store, {
      timeZone: env.REPORT_TIMEZONE,
      ttlTodaySeconds: env.CACHE_TTL_TODAY_SECONDS,
      ttlPastSeconds: env.CACHE_TTL_PAST_SECONDS,
      maxBytes: env.DAY_STORE_MAX_MB * 1024 * 1024,
    });
    // Whole answers (those not kept by day) are kept in the store too, so a restart keeps them.
    const kept = env.DATABASE_URL ? pgSharedState(store, config) : { cache: new PgCache({ db: store, maxBytes: config.cacheMaxBytes ?? CACHE_DEFAULTS.cacheMaxBytes }) };
    g[globalKey] = new ReportGateway(config, { ...kept, days });
  }
  return g[globalKey];
}
