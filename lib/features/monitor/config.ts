import "server-only";
/**
 * The Monitor's programmes and alert prices for this deployment: the JSON file named by MONITOR_CONFIG,
 * or the built-in defaults when it is unset. Read and validated once, on first use; `lib/startup/`
 * calls it when the server starts, so a bad file stops the server with the problem named instead of
 * failing on the first visit to the Monitor.
 */
import { serverEnv } from "@/lib/core/env/env";
import { loadMonitorConfig } from "./config-file";
import type { MonitorConfig } from "./definitions";

export { MonitorConfigError } from "./config-file";

let cached: MonitorConfig | undefined;

/** Throws `MonitorConfigError` (file unreadable, not JSON, or invalid) until the file is fixed. */
export function monitorConfig(): MonitorConfig {
  cached ??= loadMonitorConfig(serverEnv().MONITOR_CONFIG);
  return cached;
}
