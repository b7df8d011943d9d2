// Prepares one e2e run: a fresh service database with generated data ending today, an API client,
// and dashboard users, all made with the project's own commands. Writes .e2e/env.json for the
// Playwright config and the specs. Secrets here are throwaway test values.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { copyTestPglite } from "../../lib/core/store/testing/pglite";
import { prepareOidc, type E2EOidc } from "./oidc";

export interface E2EEnv {
  dir: string;
  serviceDb: string;
  servicePort: number;
  serviceUrl: string;
  serviceTokenSecret: string;
  dashboardPort: number;
  dashboardUrl: string;
  dashboardDb: string;
  nextauthSecret: string;
  client: { client_id: string; client_secret: string };
  /** The dashboard's routing credential: a client with the routing-admin scope (UPSTREAM_ROUTING_CLIENT_ID/SECRET). */
  routingClient: { client_id: string; client_secret: string };
  users: Record<"admin" | "analyst" | "viewer", { email: string; password: string }>;
  endDate: string;
  /** The Mastercard gateway (MID) made to breach Mastercard's Excessive Chargeback Program in the month before endDate's (e2e/monitor.spec.ts). */
  monitorBreachGateway: number;
  /** That month, YYYY-MM. */
  monitorBreachMonth: string;
  /** Company sign-in: the test IdP the config starts, and its users (e2e/support/oidc.ts). */
  oidc: E2EOidc;
}

const DIR = process.env.E2E_DIR ?? ".e2e";
const tsx = (script: string, args: string[], env: Record<string, string> = {}) =>
  execFileSync(process.execPath, ["--import", "tsx", script, ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
const lastJson = <T>(out: string): T => JSON.parse(out.trim().split("\n").at(-1)!) as T;

// The data ends on the day the run starts, and the specs compare the dashboard's pages, which count
// days up to its today, with it: a run that crossed midnight UTC would compare yesterday's data
// with today's pages and fail where nothing is wrong. So a run starting less than this many minutes
// before midnight UTC (a whole browser run's length on the two-core machine, with room) waits for
// midnight first. E2E_MIDNIGHT_GUARD_MINUTES=0 turns the wait off.
const MIDNIGHT_GUARD_MINUTES = Number(process.env.E2E_MIDNIGHT_GUARD_MINUTES ?? 35);
const untilMidnightMs = 86_400_000 - (Date.now() % 86_400_000);
if (untilMidnightMs < MIDNIGHT_GUARD_MINUTES * 60_000) {
  const waitMs = untilMidnightMs + 5_000;
  console.log(`e2e: waiting ${Math.ceil(waitMs / 60_000)} min for midnight UTC before making the test data, so the run does not cross it (E2E_MIDNIGHT_GUARD_MINUTES=0 skips the wait)`);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, waitMs);
}

rmSync(DIR, { recursive: true, force: true });
mkdirSync(DIR, { recursive: true });
const serviceDb = join(DIR, "service.duckdb");
const dashboardDb = join(DIR, "dashboard");
const endDate = new Date().toISOString().slice(0, 10);

tsx("service/cli.ts", ["generate", "--db", serviceDb, "--days", "150", "--orders-per-day", "60", "--seed", "3", "--end-date", endDate]);
// The Monitor's breach: chargebacks received last month on one Mastercard gateway, at least 100 and
// 1.5 % of its Mastercard approvals of the month before, on its approved attempts of earlier months,
// picked from the data (service/testing/monitor-breach.ts) and loaded with the CLI's own import.
// Deterministic for a given end date; the other specs compare the dashboard with the same service.
const [endYear, endMonth] = endDate.split("-").map(Number) as [number, number];
const monitorBreachMonth = new Date(Date.UTC(endYear, endMonth - 2, 1)).toISOString().slice(0, 7);
const breachDir = join(DIR, "monitor-breach");
const breach = lastJson<{ gatewayId: number; added: number }>(tsx("service/testing/monitor-breach-cli.ts", ["--db", serviceDb, "--month", monitorBreachMonth, "--out", breachDir]));
const breachImport = lastJson<{ ok: boolean; inserted: Record<string, number> }>(tsx("service/cli.ts", ["import", "--db", serviceDb, "--dir", breachDir]));
if (!breachImport.ok || breachImport.inserted.chargebacks !== breach.added) throw new Error(`the Monitor's breach did not import: ${JSON.stringify(breachImport)}`);
const client = lastJson<{ client_id: string; client_secret: string }>(tsx("service/cli.ts", ["create-client", "--db", serviceDb, "--name", "e2e dashboard"]));
const routingClient = lastJson<{ client_id: string; client_secret: string }>(tsx("service/cli.ts", ["create-client", "--db", serviceDb, "--name", "e2e dashboard routing", "--scope", "routing-admin"]));
// The dashboard's store starts migrated (the unit tests' template): the migrations from nothing are
// the migrator's tests' to time, not every run's.
await copyTestPglite(dashboardDb);
const users = {} as E2EEnv["users"];
for (const role of ["admin", "analyst", "viewer"] as const) {
  const u = lastJson<{ email: string; password: string }>(tsx("scripts/users.ts", ["create", "--email", `${role}@e2e.test`, "--role", role], { DASHBOARD_DB: dashboardDb }));
  users[role] = { email: u.email, password: u.password };
}

const servicePort = Number(process.env.E2E_SERVICE_PORT ?? 4100);
const dashboardPort = Number(process.env.E2E_DASHBOARD_PORT ?? 3100);
const env: E2EEnv = {
  dir: DIR,
  serviceDb,
  servicePort,
  serviceUrl: `http://127.0.0.1:${servicePort}`,
  serviceTokenSecret: randomBytes(32).toString("base64url"),
  dashboardPort,
  dashboardUrl: `http://localhost:${dashboardPort}`,
  dashboardDb,
  nextauthSecret: randomBytes(32).toString("base64url"),
  client,
  routingClient,
  users,
  endDate,
  monitorBreachGateway: breach.gatewayId,
  monitorBreachMonth,
  oidc: await prepareOidc(DIR, `http://localhost:${dashboardPort}`),
};
writeFileSync(join(DIR, "env.json"), JSON.stringify(env, null, 2));
