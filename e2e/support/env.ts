import { readFileSync } from "node:fs";
import type { E2EEnv } from "./prepare";

export type { E2EEnv };

/** The current run's environment, written by prepare.ts when the Playwright config loaded. */
export function e2eEnv(): E2EEnv {
  return JSON.parse(readFileSync(`${process.env.E2E_DIR ?? ".e2e"}/env.json`, "utf8")) as E2EEnv;
}
