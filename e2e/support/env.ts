import { readFileSync } from "node:fs";
import { join } from "node:path";
import { oidcEnvFor } from "./oidc";
import type { E2EEnv } from "./prepare";

export type { E2EEnv };

const DIR = process.env.E2E_DIR ?? ".e2e";

/** How many workers the run has servers for (e2e/support/workers.ts wrote it when the Playwright config loaded). */
export function e2eWorkers(): number {
  return (JSON.parse(readFileSync(join(DIR, "workers.json"), "utf8")) as { count: number }).count;
}

/** The environment of worker `index`: its own service and dashboard, over copies of the prepared data. */
export function e2eEnvOf(index: number): E2EEnv {
  const count = e2eWorkers();
  if (index >= count) throw new Error(`e2e: worker ${index} has no servers; the run started ${count} (E2E_WORKERS sets how many, not --workers)`);
  return JSON.parse(readFileSync(join(DIR, `w${index}`, "env.json"), "utf8")) as E2EEnv;
}

/** Every worker's environment. */
export function e2eEnvs(): E2EEnv[] {
  return Array.from({ length: e2eWorkers() }, (_, i) => e2eEnvOf(i));
}

/** The current worker's environment (Playwright numbers its running workers 0…workers−1 in TEST_PARALLEL_INDEX). */
export function e2eEnv(): E2EEnv {
  return e2eEnvOf(Number(process.env.TEST_PARALLEL_INDEX ?? 0));
}

/** The saved session of a role on the current worker's dashboard (e2e/support/auth.setup.ts signs each in). */
export function authFile(role: "admin" | "analyst" | "viewer"): string {
  return join(e2eEnv().dir, `${role}.json`);
}

/**
 * The arguments that start a built dashboard on `port`, as `npm start` does but with a keep-alive
 * idle of 65 s: Playwright's request contexts reuse a pooled connection without reading the
 * server's keep-alive hint, so with Node's 5 s a spec's API call after a few seconds in the browser
 * could be written to a socket the server was closing, and fail with ECONNRESET. (A dashboard with
 * such a keep-alive does not stop on SIGTERM while a page keeps polling it: `next start` waits for
 * its connections to go idle. Specs stop theirs with SIGKILL.)
 */
export function nextStartArgs(port: number | string): string[] {
  return ["node_modules/next/dist/bin/next", "start", "--port", String(port), "--hostname", "localhost", "--keepAliveTimeout", "65000"];
}

/** The dashboard's server environment for a prepared run (the service at `env.serviceUrl`). */
export function dashboardEnvFor(env: E2EEnv, reportRateLimit: number, rateWindowSeconds = 60): Record<string, string> {
  return {
    NEXTAUTH_SECRET: env.nextauthSecret,
    NEXTAUTH_URL: env.dashboardUrl,
    DASHBOARD_DB: env.dashboardDb,
    UPSTREAM_BASE_URL: env.serviceUrl,
    UPSTREAM_TOKEN_URL: `${env.serviceUrl}/api/auth/token`,
    UPSTREAM_CLIENT_ID: env.client.client_id,
    UPSTREAM_CLIENT_SECRET: env.client.client_secret,
    UPSTREAM_ROUTING_CLIENT_ID: env.routingClient.client_id,
    UPSTREAM_ROUTING_CLIENT_SECRET: env.routingClient.client_secret,
    // The routing workspace as a team runs it: a change is applied once a second editor approves it.
    ROUTING_TWO_PERSON: "true",
    UPSTREAM_REPORT_RATE_LIMIT: String(reportRateLimit),
    UPSTREAM_RATE_WINDOW_SECONDS: String(rateWindowSeconds),
    REPORT_TIMEZONE: "UTC",
    // Specs count the upstream calls their own pages cost; a background refresh of the links other
    // specs viewed would spend the same small quota at moments no spec controls. The warmer is
    // tested against the real service in lib/core/upstream/warmer.test.ts and lib/features/warming/warm.test.ts.
    SHARE_WARM_DAYS: "0",
    ...oidcEnvFor(env.oidc),
  };
}
