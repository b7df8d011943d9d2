// Prepares one e2e run: a fresh service database with generated data ending today, an API client,
// and dashboard users, all made with the project's own commands. Writes .e2e/env.json for the
// Playwright config and the specs. Secrets here are throwaway test values.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

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
  users: Record<"admin" | "analyst" | "viewer", { email: string; password: string }>;
  endDate: string;
}

const DIR = process.env.E2E_DIR ?? ".e2e";
const tsx = (script: string, args: string[], env: Record<string, string> = {}) =>
  execFileSync(process.execPath, ["--import", "tsx", script, ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
const lastJson = <T>(out: string): T => JSON.parse(out.trim().split("\n").at(-1)!) as T;

rmSync(DIR, { recursive: true, force: true });
mkdirSync(DIR, { recursive: true });
const serviceDb = join(DIR, "service.duckdb");
const dashboardDb = join(DIR, "dashboard");
const endDate = new Date().toISOString().slice(0, 10);

tsx("service/cli.ts", ["generate", "--db", serviceDb, "--days", "150", "--orders-per-day", "60", "--seed", "3", "--end-date", endDate]);
const client = lastJson<{ client_id: string; client_secret: string }>(tsx("service/cli.ts", ["create-client", "--db", serviceDb, "--name", "e2e dashboard"]));
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
  users,
  endDate,
};
writeFileSync(join(DIR, "env.json"), JSON.stringify(env, null, 2));
