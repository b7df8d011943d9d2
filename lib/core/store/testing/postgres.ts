/**
 * A throwaway PostgreSQL server for tests: a new cluster in a temporary directory, on a free loopback
 * port, stopped and deleted afterwards. It uses the server binaries of the machine's PostgreSQL
 * (Debian's `postgresql` package, which .ci/run installs when missing). The server refuses to run as
 * root, so under root it runs as the `postgres` user that package creates.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { freePort } from "@/lib/core/testing/free-port";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openStore } from "../open";
import type { Store } from "../sql";

const INSTALL_ROOT = "/usr/lib/postgresql";

/** The newest installed server's bin directory, or null when no server is installed. */
export function postgresBinDir(): string | null {
  if (!existsSync(INSTALL_ROOT)) return null;
  const versions = readdirSync(INSTALL_ROOT)
    .filter((v) => existsSync(join(INSTALL_ROOT, v, "bin", "initdb")) && existsSync(join(INSTALL_ROOT, v, "bin", "postgres")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(INSTALL_ROOT, versions[0], "bin") : null;
}


function idOf(flag: "-u" | "-g", user: string): number {
  const r = spawnSync("id", [flag, user], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`running PostgreSQL as root needs the '${user}' user (apt-get install postgresql)`);
  return Number(r.stdout.trim());
}

export interface TestPostgres {
  /** postgres://… of the cluster's `postgres` database, trust authentication on loopback. */
  url: string;
  stop(): Promise<void>;
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(`no PostgreSQL server under ${INSTALL_ROOT} (apt-get install postgresql)`);
  const dir = mkdtempSync(join(tmpdir(), "pg-test-"));
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, idOf("-u", "postgres"), idOf("-g", "postgres"));
  const command = (program: string, args: string[]): [string, string[]] =>
    asRoot ? ["runuser", ["-u", "postgres", "--", join(bin, program), ...args]] : [join(bin, program), args];

  const init = spawnSync(...command("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"]), {
    encoding: "utf8",
  });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${init.stderr}`);
  }

  const port = await freePort();
  // Durability settings off: the cluster lives for one test file.
  const settings = ["listen_addresses=127.0.0.1", "fsync=off", "synchronous_commit=off", "full_page_writes=off"];
  const child: ChildProcess = spawn(...command("postgres", ["-D", data, "-p", String(port), "-k", dir, ...settings.flatMap((s) => ["-c", s])]), {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr?.on("data", (b: Buffer) => (log += b.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const stop = async () => {
    // Signal the server itself (the runuser wrapper need not pass signals on). First a smart shutdown,
    // which lets clients that are still saying goodbye (pg's pool.end() resolves before its sockets
    // close) finish instead of seeing "terminating connection"; then fast, then immediate.
    const pidFile = join(data, "postmaster.pid");
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").split("\n")[0]) : NaN;
    for (const signal of ["SIGTERM", "SIGINT", "SIGQUIT"] as const) {
      if (child.exitCode !== null || child.signalCode !== null) break;
      try {
        if (Number.isInteger(pid) && pid > 0) process.kill(pid, signal);
        else child.kill(signal);
      } catch {
        break; // already gone
      }
      const done = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5_000))]);
      if (done) break;
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return { url, stop };
    } catch {
      await client.end().catch(() => undefined);
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`PostgreSQL did not start: ${log.slice(-2000)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * Stores on one PostgreSQL database, one per owner (as instances of the dashboard would open them):
 * the scratch database TEST_DATABASE_URL names, else a throwaway server this starts. `close` closes
 * them and stops the server it started.
 */
export async function openTestPostgresStores(owners: readonly string[]): Promise<{ stores: Store[]; close(): Promise<void> }> {
  let server: TestPostgres | null = null;
  let url = process.env.TEST_DATABASE_URL;
  if (!url) {
    server = await startTestPostgres();
    url = server.url;
  }
  const stores: Store[] = [];
  for (const owner of owners) stores.push(await openStore({ kind: "postgres", url }, { owner }));
  return {
    stores,
    close: async () => {
      await Promise.all(stores.map((s) => s.close()));
      await server?.stop();
    },
  };
}
