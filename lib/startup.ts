import "server-only";
/**
 * What the dashboard does once when its server starts (called from instrumentation.ts): validate the
 * environment, so a bad configuration stops the server with each variable named, read the Monitor's
 * programmes (MONITOR_CONFIG), so a bad file stops it with the file and the field named, and take the
 * embedded store, so that other processes (`npm run users`) see that the dashboard holds it.
 */
import { EnvError, serverEnv, type ServerEnv } from "./env";
import { MonitorConfigError, monitorConfig } from "./programs/config";
import { StoreLockedError, getStore } from "./store";
import { startShareWarmer } from "./sharing/warmer";
import { startNotifications } from "./notify/runtime";
import { startAuditRetention } from "./audit/retention";

function fail(message: string): never {
  console.error(`dashboard: ${message}`);
  // Next only logs a failing register() and keeps serving 500s; a misconfigured server should stop.
  process.exit(1);
}

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
  // next-auth reads NEXTAUTH_URL from process.env itself; give it the same default we document.
  process.env.NEXTAUTH_URL ??= env.NEXTAUTH_URL;
  startShareWarmer();
  // The audit log's retention: pruned now and daily, each run logged with what it deleted.
  startAuditRetention(getStore, env.AUDIT_RETENTION_DAYS);
  // Alerts and scheduled reports: once the store is open (it may come up after us on PostgreSQL).
  const notifications = () =>
    startNotifications().catch((e: unknown) =>
      console.error(JSON.stringify({ level: "error", msg: "alerts and scheduled reports not started", error: e instanceof Error ? e.message : String(e) })),
    );
  if (env.DATABASE_URL) {
    void notifications();
    // PostgreSQL may come up after us; the first request that needs it retries.
    getStore().catch((e: unknown) =>
      console.error(JSON.stringify({ level: "error", msg: "dashboard store unavailable", error: e instanceof Error ? e.message : String(e) })),
    );
    return;
  }
  try {
    await getStore();
  } catch (e) {
    fail(e instanceof StoreLockedError ? e.message : `could not open the dashboard store: ${e instanceof Error ? e.message : String(e)}`);
  }
  await notifications();
}
