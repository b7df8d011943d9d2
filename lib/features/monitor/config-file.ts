/**
 * Reading a monitor configuration file (MONITOR_CONFIG): the pure part, free of `server-only` so that
 * tests and tools can use it. The server reads it once through `lib/features/monitor/config.ts`.
 *
 * Every failure is a `MonitorConfigError` naming the variable, the file and the problem (for content,
 * each bad field with its path, e.g. `programs.1.thresholds.0.until`). A file path is not a secret.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { DEFAULT_MONITOR_CONFIG, parseMonitorConfig, type MonitorConfig } from "./definitions";

/** A monitor configuration file that cannot be used; `file` is its absolute path. */
export class MonitorConfigError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`MONITOR_CONFIG (${file}): ${problem}`);
    this.name = "MonitorConfigError";
  }
}

/** The configuration in the JSON file at `path` (relative paths from the working directory), validated. */
export function readMonitorConfigFile(path: string): MonitorConfig {
  const file = resolve(path);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new MonitorConfigError(file, `cannot be read (${code ?? (e instanceof Error ? e.message : String(e))})`);
  }
  let json: unknown;
  try {
    // A byte-order mark, as some editors write, is not JSON.
    json = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (e) {
    throw new MonitorConfigError(file, `is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    return parseMonitorConfig(json);
  } catch (e) {
    throw new MonitorConfigError(file, e instanceof Error ? e.message : String(e));
  }
}

/** The configuration for a MONITOR_CONFIG value: the built-in defaults when it is unset. */
export function loadMonitorConfig(path: string | undefined): MonitorConfig {
  return path === undefined ? DEFAULT_MONITOR_CONFIG : readMonitorConfigFile(path);
}
