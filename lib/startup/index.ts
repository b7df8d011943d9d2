import "server-only";
/**
 * What the dashboard does once when its server starts (called from instrumentation.ts): validate the
 * environment, so a bad configuration stops the server with each variable named, read the Monitor's
 * programmes (MONITOR_CONFIG), so a bad file stops it with the file and the field named, take the
 * embedded store, so that other processes (`npm run users`) see that the dashboard holds it, and start
 * the background work (./background.ts) unless SEPARATE_WORKER says another process runs it.
 */
import { EnvError, serverEnv, type ServerEnv } from "@/lib/core/env/env";
import { addressNotice } from "@/lib/core/http/client-address";
import { MonitorConfigError, monitorConfig } from "@/lib/features/monitor/config";
import { StoreLockedError, getStore } from "@/lib/core/store";
import { startBackgroundWork } from "./background";

function fail(message: string): never {
  console.error(`dashboard: ${message}`);
  // Next only logs a failing register() and keeps serving 500s; a misconfigured server should stop.
  process.exit(1);
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

export async function onServerStart(): Promise<void> {
  let env: ServerEnv;
  try {
    env = serverEnv();
  } catch (e) {
    if (e instanceof EnvError) fail(e.message);
    throw e;
  }
  try {
    monitorConfig();
  } catch (e) {
    if (e instanceof MonitorConfigError) fail(e.message);
    throw e;
  }
  // Said once at start: with no trusted proxy the throttles cannot tell clients apart by address.
  const notice = addressNotice(env.TRUSTED_PROXY_HOPS);
  if (notice) console.warn(JSON.stringify({ level: "warn", msg: notice }));
  // next-auth reads NEXTAUTH_URL from process.env itself; give it the same default we document.
  process.env.NEXTAUTH_URL ??= env.NEXTAUTH_URL;
  // Alerts, scheduled reports, mail, share warming and audit retention: here, or in `npm run worker`
  // beside any number of web servers on one PostgreSQL database.
  const background = async () => {
    if (env.SEPARATE_WORKER) {
      console.info(JSON.stringify({ level: "info", msg: "background work left to the separate worker (SEPARATE_WORKER=true)" }));
      return;
    }
    await startBackgroundWork(env).catch((e: unknown) =>
      console.error(JSON.stringify({ level: "error", msg: "alerts and scheduled reports not started", error: errorText(e) })),
    );
  };
  if (env.DATABASE_URL) {
    void background();
    // PostgreSQL may come up after us; the first request that needs it retries.
    getStore().catch((e: unknown) => console.error(JSON.stringify({ level: "error", msg: "dashboard store unavailable", error: errorText(e) })));
    return;
  }
  try {
    await getStore();
  } catch (e) {
    fail(e instanceof StoreLockedError ? e.message : `could not open the dashboard store: ${errorText(e)}`);
  }
  await background();
}
