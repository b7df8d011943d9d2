import "server-only";
/**
 * The validated server environment, parsed once on first use and cached. `instrumentation.ts`
 * calls `serverEnv()` when the server starts, so a bad configuration stops `next start` / `next dev`
 * with a message naming each variable instead of failing on the first request that needs it.
 */
import { parseServerEnv, type ServerEnv } from "./env-schema";

export { EnvError, type ServerEnv } from "./env-schema";

let cached: ServerEnv | undefined;

export function serverEnv(): ServerEnv {
  cached ??= parseServerEnv(process.env);
  return cached;
}
