/** Where the dashboard store lives: an embedded PGlite directory, or PostgreSQL when DATABASE_URL is set. */
import { resolve } from "node:path";
import type { StoreEnv } from "@/lib/core/env/env-schema";

export type StoreConfig = { kind: "pglite"; dir: string } | { kind: "postgres"; url: string };

export function storeConfigFrom(env: StoreEnv): StoreConfig {
  if (env.DATABASE_URL) return { kind: "postgres", url: env.DATABASE_URL };
  return { kind: "pglite", dir: resolve(env.DASHBOARD_DB) };
}

