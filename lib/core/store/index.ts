import "server-only";
/**
 * The dashboard process's one store, opened on first use (or at start by instrumentation.ts) and
 * kept on globalThis so dev reloads and separately bundled routes share it: a PGlite directory may
 * only be opened once per process.
 */
import { serverEnv } from "@/lib/core/env/env";
import { storeConfigFrom } from "./config";
import { openStore } from "./open";
import type { Store } from "./sql";

export type { Store } from "./sql";
export { StoreLockedError } from "./lock";

const storeKey = Symbol.for("payments-analytics.dashboard-store");
type WithStore = typeof globalThis & { [storeKey]?: Promise<Store> };

export function getStore(): Promise<Store> {
  const g = globalThis as WithStore;
  if (!g[storeKey]) {
    const opening = openStore(storeConfigFrom(serverEnv()), { owner: "dashboard" });
    // A failed open (PostgreSQL not up yet) is retried by the next caller rather than cached.
    opening.catch(() => {
      if (g[storeKey] === opening) delete g[storeKey];
    });
    g[storeKey] = opening;
  }
  return g[storeKey];
}
