import { readFileSync } from "node:fs";
import { oidcEnvFor } from "./oidc";
import type { E2EEnv } from "./prepare";

export type { E2EEnv };

/** The current run's environment, written by prepare.ts when the Playwright config loaded. */
export function e2eEnv(): E2EEnv {
  return JSON.parse(readFileSync(`${process.env.E2E_DIR ?? ".e2e"}/env.json`, "utf8")) as E2EEnv;
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
    // tested against the real service in lib/core/upstream/warmer.test.ts and lib/features/sharing/warm.test.ts.
    SHARE_WARM_DAYS: "0",
    ...oidcEnvFor(env.oidc),
  };
}
