/**
 * The Chromium that prints PDFs (and that the browser tests drive) where CHROMIUM_PATH does not
 * name one: Debian's headless shell (package chromium-headless-shell) where it is installed, else the
 * full browser (package chromium). Both only ever run headless here; the shell is Chromium's renderer
 * without the desktop browser around it, and drew the browser tests' pages for about 40 % less CPU
 * (docs/testing.md). Kept free of `server-only`: the test and start scripts read it too.
 */
import { existsSync } from "node:fs";

const HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell";
const FULL_CHROMIUM = "/usr/bin/chromium";

export function defaultChromiumPath(): string {
  return existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : FULL_CHROMIUM;
}

/** CHROMIUM_PATH when set (and not blank), else the default above. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.CHROMIUM_PATH?.trim() || defaultChromiumPath();
}
