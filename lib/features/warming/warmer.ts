import "server-only";
/**
 * The dashboard process's background warmer for what people use (policy in ./warm.ts): started once
 * at server start, never in tests or builds that do not call it.
 */
import { serverEnv } from "@/lib/core/env/env";
import { getStore } from "@/lib/core/store";
import { getGateway } from "@/lib/core/upstream";
import { Warmer } from "@/lib/core/upstream/warmer";
import { warmQueries } from "./warm";

const globalKey = Symbol.for("payments-analytics.warmer");
type WithWarmer = typeof globalThis & { [globalKey]?: Warmer };

export function startWarmer(): void {
  const env = serverEnv();
  const g = globalThis as WithWarmer;
  if (env.SHARE_WARM_DAYS === 0 || g[globalKey]) return;
  const gateway = getGateway();
  const since = () => Date.now() - env.SHARE_WARM_DAYS * 86_400_000;
  // Shared links first (people outside wait on them), then what signed-in people opened, then every
  // kept question used recently: saved reports, dashboards, alerts and the Monitor all leave their
  // shapes in the day store.
  const source = async () => [...(await warmQueries(await getStore(), gateway, env.REPORT_TIMEZONE, env.SHARE_WARM_DAYS)), ...((await gateway.days?.recentShapeQueries(since())) ?? [])];
  const warmer = new Warmer(gateway, source, {
    intervalMs: env.SHARE_WARM_INTERVAL_SECONDS * 1000,
    // Refreshed a little before they expire, so a visitor finds them fresh rather than just expired.
    refreshBeforeSeconds: Math.min(60, Math.floor(env.CACHE_TTL_TODAY_SECONDS / 5)),
  });
  warmer.start();
  g[globalKey] = warmer;
}
