// The specs' `test`: Playwright's, with each worker's pages, API requests and contexts pointed at that
// worker's own dashboard (e2e/support/workers.ts). Specs import everything Playwright's module
// exports from here; the config sets no baseURL, so a relative URL in a spec that imported `test`
// from "@playwright/test" instead fails at once rather than reaching another worker's servers.
import { test as base } from "@playwright/test";
import { e2eEnvOf } from "./env";

export * from "@playwright/test";

export const test = base.extend({
  baseURL: async ({}, provide, testInfo) => {
    await provide(e2eEnvOf(testInfo.parallelIndex).dashboardUrl);
  },
});
