import "server-only";
/**
 * The dashboard process's background warmer for share links (policy in ./warm.ts): started once at
 * server start, never in tests or builds that do not call it.
 */
import { serverEnv } from "@/lib/env";
import { getStore } from "@/lib/store";
import { getGateway } from "@/lib/upstream";
import { Warmer } from "@/lib/upstream/warmer";
import { warmQueries } from "./warm";

const globalKey = Symbol.for("payments-analytics.share-warmer");
type WithWarmer = typeof globalThis & { [globalKey]?: Warmer };

export function startShareWarmer(): void {
  const env = serverEnv();
  const g = globalThis as WithWarmer;
  if (env.SHARE_WARM_DAYS === 0 || g[globalKey]) return;
  const gateway = getGateway();
  const warmer = new Warmer(gateway, async () => warmQueries(await getStore(), gateway, env.REPORT_TIMEZONE, env.SHARE_WARM_DAYS), {
    intervalMs: env.SHARE_WARM_INTERVAL_SECONDS * 1000,
    // Refreshed a little before they expire, so a visitor finds them fresh rather than just expired.
    refreshBeforeSeconds: Math.min(60, Math.floor(env.CACHE_TTL_TODAY_SECONDS / 5)),
  });
  warmer.start();
  g[globalKey] = warmer;
}
