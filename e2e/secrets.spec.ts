/**
 * Runs after every other spec: the upstream client secret, any access token, the token-signing
 * secret and the session secret appear nowhere the browser or a log can see.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, sep } from "node:path";
import { expect, request as playwrightRequest, test } from "./support/test";
import { e2eEnvs } from "./support/env";

// Every access token of the service starts with this encoded header.
const TOKEN_PREFIX = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

/** Every worker's secrets (its servers run over copies of one prepared run, so they are the same ones). */
function secrets(): [string, string][] {
  return e2eEnvs().flatMap((env, i) => [
    [`upstream client secret (worker ${i})`, env.client.client_secret],
    [`routing client secret (worker ${i})`, env.routingClient.client_secret],
    [`service token secret (worker ${i})`, env.serviceTokenSecret],
    [`session secret (worker ${i})`, env.nextauthSecret],
    [`company sign-in client secret (worker ${i})`, env.oidc.client.client_secret],
    ["access token", TOKEN_PREFIX],
  ]);
}

function expectClean(where: string, text: string) {
  for (const [name, value] of secrets()) {
    expect(text.includes(value), `${name} found in ${where}`).toBe(false);
  }
}

test("the client bundle holds no secret", () => {
  const all = files(".next/static");
  expect(all.length).toBeGreaterThan(10);
  for (const f of all) expectClean(f, readFileSync(f, "utf8"));
});

test("no page's HTML and no API response holds a secret, on any worker's dashboard", async () => {
  for (const env of e2eEnvs()) {
    for (const role of ["analyst", "viewer", "admin"] as const) {
      const ctx = await playwrightRequest.newContext({ baseURL: env.dashboardUrl, storageState: join(env.dir, `${role}.json`) });
      for (const path of ["/", "/definitions", "/explore", "/cohorts", "/bin-lookup", "/reports", "/users", "/login", "/api/users", "/api/upstream/status", "/api/health", "/api/auth/session"]) {
        const res = await ctx.get(path);
        expectClean(`${role} ${path} at ${env.dashboardUrl}`, await res.text());
      }
      const report = await ctx.post("/api/reports/cohort", { data: { start_date: env.endDate, end_date: env.endDate } });
      expectClean(`${role} POST /api/reports/cohort at ${env.dashboardUrl}`, await report.text());
    }
  }
});

test("every dashboard's log output during the whole run holds no secret", () => {
  for (const [i, env] of e2eEnvs().entries()) {
    const log = readFileSync(join(env.dir, "dashboard.log"), "utf8");
    expect(log.length, `worker ${i}'s dashboard log`).toBeGreaterThan(0);
    expectClean(`worker ${i}'s dashboard log`, log);
    // The dashboards a spec starts beside it (with mail on, say) log in a folder of their own.
    for (const f of files(env.dir).filter((f) => f !== join(env.dir, "dashboard.log") && f.endsWith(`${sep}dashboard.log`))) expectClean(f, readFileSync(f, "utf8"));
  }
});
