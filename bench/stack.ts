/**
 * The whole product for a benchmark: a prepared dataset, API client and users (e2e/support/prepare),
 * the real service and the built dashboard (run `npx next build` first), and a signed-in session.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { dashboardEnvFor } from "../e2e/support/env";
import type { E2EEnv } from "../e2e/support/prepare";

export interface Stack {
  env: E2EEnv;
  /** Cookie header of the signed-in user (an analyst unless asked otherwise). */
  cookie: string;
  stop(): void;
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not come up`);
}

function start(args: string[], extra: Record<string, string>): ChildProcess {
  return spawn(process.execPath, args, { env: { ...process.env, ...extra }, stdio: ["ignore", "ignore", "inherit"] });
}

export async function startStack(dir: string, servicePort: number, dashboardPort: number, role: "analyst" | "admin" = "analyst"): Promise<Stack> {
  process.env.E2E_DIR = dir;
  process.env.E2E_SERVICE_PORT = String(servicePort);
  process.env.E2E_DASHBOARD_PORT = String(dashboardPort);
  execFileSync(process.execPath, ["--import", "tsx", "e2e/support/prepare.ts"], { stdio: ["ignore", "ignore", "inherit"] });
  const env = JSON.parse(readFileSync(`${dir}/env.json`, "utf8")) as E2EEnv;
  const service = start(["--import", "tsx", "service/main.ts"], {
    SERVICE_DB: env.serviceDb,
    SERVICE_PORT: String(env.servicePort),
    SERVICE_TOKEN_SECRET: env.serviceTokenSecret,
    REPORT_RATE_LIMIT: "100000",
    SERVICE_LOG: "json",
  });
  const dashboard = start(["node_modules/next/dist/bin/next", "start", "--port", String(env.dashboardPort), "--hostname", "localhost"], dashboardEnvFor(env, 100_000));
  const stop = () => {
    dashboard.kill("SIGTERM");
    service.kill("SIGTERM");
  };
  try {
    await waitFor(`${env.serviceUrl}/healthz`);
    await waitFor(`${env.dashboardUrl}/api/health`);
    // Sign in through next-auth's credentials endpoint, as the browser form does.
    const csrfRes = await fetch(`${env.dashboardUrl}/api/auth/csrf`);
    const csrfCookie = csrfRes.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
    const login = await fetch(`${env.dashboardUrl}/api/auth/callback/credentials`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie },
      body: new URLSearchParams({ csrfToken, email: env.users[role].email, password: env.users[role].password, json: "true" }).toString(),
    });
    const cookie = [csrfCookie, ...login.headers.getSetCookie().map((c) => c.split(";")[0])].join("; ");
    return { env, cookie, stop };
  } catch (e) {
    stop();
    throw e;
  }
}
