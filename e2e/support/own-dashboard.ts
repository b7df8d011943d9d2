// A dashboard a spec starts beside its worker's: the run's build over a store of its own, with a
// setting the worker's dashboard does not have (mail on, a one-minute quota window, SSO only).
import { execFileSync, spawn } from "node:child_process";
import { createWriteStream, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { copyTestPglite } from "../../lib/core/store/testing/pglite";
import { freePort } from "../../lib/core/testing/free-port";
import { nextStartArgs } from "./env";

export interface OwnDashboard {
  url: string;
  /** Kills the server and waits for it to exit (a no-op once it has). */
  stop(): Promise<void>;
}

/**
 * Empties `dir` for a dashboard of a spec's own and returns its store's path (`dir/dashboard`), a
 * migrated store with no one in it yet; the dashboard's log goes to `dir/dashboard.log`, which the
 * secrets scan reads with the worker's own.
 */
export async function ownDashboardStore(dir: string): Promise<string> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const store = join(dir, "dashboard");
  await copyTestPglite(store);
  return store;
}

/** A user made in a dashboard's store with the project's command, before its server opens the store (the command refuses while one runs). */
export function createUser(db: string, email: string, role: "admin" | "analyst" | "viewer"): { email: string; password: string } {
  const out = execFileSync(process.execPath, ["--import", "tsx", "scripts/users.ts", "create", "--email", email, "--role", role], {
    encoding: "utf8",
    env: { ...process.env, DASHBOARD_DB: db },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return JSON.parse(out.trim().split("\n").at(-1)!) as { email: string; password: string };
}

/**
 * Starts the built dashboard over `dir`'s store with `env` (the worker's dashboard environment and
 * the spec's settings; this sets the URL and the store), on `port` or a free one, and waits until it
 * answers. A server that exits first is an error naming its log; the wait has no bound of its own
 * (a busy machine takes longer to start one): the calling hook's time limit is the bound.
 */
export async function startOwnDashboard(name: string, dir: string, env: Record<string, string>, port?: number): Promise<OwnDashboard> {
  const url = `http://localhost:${port ?? (await freePort())}`;
  const logFile = join(dir, "dashboard.log");
  const log = createWriteStream(logFile);
  const server = spawn(process.execPath, nextStartArgs(new URL(url).port), {
    env: { ...process.env, ...env, NEXTAUTH_URL: url, DASHBOARD_DB: join(dir, "dashboard") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout?.pipe(log);
  server.stderr?.pipe(log);
  // Stopped with the worker too, should the hook end before it answered (its handle never returned).
  const orphaned = () => server.kill("SIGKILL");
  process.once("exit", orphaned);
  server.once("exit", () => process.off("exit", orphaned));
  // SIGKILL: with the specs' long keep-alive, `next start` would wait for pages still polling it
  // (./env.ts); nothing of a spec's own dashboard outlives the run.
  const stop = async () => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    const exited = new Promise((r) => server.once("exit", r));
    server.kill("SIGKILL");
    await exited;
  };
  for (;;) {
    if (await fetch(`${url}/api/health`).then((r) => r.ok, () => false)) break;
    if (server.exitCode !== null) throw new Error(`the ${name} dashboard exited (${server.exitCode}); see ${logFile}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  return { url, stop };
}
