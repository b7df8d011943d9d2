import "server-only";
/**
 * The reporting time zone (REPORT_TIMEZONE, default UTC), read on the server from the validated
 * environment. Pages resolve "today" with it once and hand both to the browser, which shows it.
 */
import { serverEnv } from "@/lib/core/env/env";

export function reportTimeZone(): string {
  return serverEnv().REPORT_TIMEZONE;
}
