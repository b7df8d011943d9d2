/**
 * Throwaway ClickHouse servers for tests: one `clickhouse-server` process per shard, everything
 * (config, users, data, tmp, logs) in a new temporary directory, free loopback ports only, stopped
 * and deleted afterwards. It uses the machine's server binary (Debian's `clickhouse-server` package,
 * 18.16, which .ci/run installs when missing); no system service and no ZooKeeper.
 *
 * With `shards: 2` both servers carry the same `<remote_servers>` entry, so a
 * `Distributed(two_shards, db, table)` table works from either node.
 *
 * ClickHouse 18.16 runs as root without complaint (it only needs to own its `<path>`), starts in
 * well under a second, and refuses to start without a users file that defines the `default` profile
 * or without `<mark_cache_size>` ("Not found: mark_cache_size"); `<tmp_path>`, `<user_files_path>`
 * and `<format_schema_path>` would default to folders under `<path>` but are set explicitly anyway.
 *
 * Orphans: a server is started under `setpriv --pdeathsig KILL`, so the kernel kills it when the
 * test process dies, however it dies (vitest's forks pool spawns from the worker's main thread);
 * a normal exit without stop() kills it too; and a temporary directory whose owner process is gone
 * is deleted by the next start.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { get as httpGet } from "node:http";
import { freePort } from "@/lib/core/testing/free-port";
import { tmpdir } from "node:os";
import { join } from "node:path";

const BINARY_CANDIDATES = ["/usr/sbin/clickhouse-server", "/usr/bin/clickhouse-server"];
const SETPRIV = "/usr/bin/setpriv";
const DIR_PREFIX = "ch-test-";
const CLUSTER = "two_shards";
const START_TIMEOUT_MS = 30_000;
// A clean shutdown takes well under a second, longer while clients hold idle keep-alive connections
// (up to <keep_alive_timeout>); the data is thrown away, so SIGKILL after this.
const STOP_GRACE_MS = 2_000;

/** The server binary, or null when ClickHouse is not installed. */
export function clickhouseServerBinary(): string | null {
  return BINARY_CANDIDATES.find((p) => existsSync(p)) ?? null;
}

export interface TestClickHouse {
  /** http://127.0.0.1:PORT of the first node: user `default`, no password, database `default`. */
  url: string;
  /** Every node's HTTP URL, shard order (one entry unless `shards: 2`). */
  urls: string[];
  /** Native TCP ports, shard order (for clickhouse-client or remote()). */
  tcpPorts: number[];
  /** The `<remote_servers>` cluster spanning all nodes, or null with one shard. */
  cluster: string | null;
  stop(): Promise<void>;
}

interface Ports {
  http: number;
  tcp: number;
  interserver: number;
}

interface Node {
  child: ChildProcess;
  /** Set when the program could not be run at all (no exit event follows). */
  spawnError?: Error;
  exited: Promise<void>;
  log: () => string;
}


async function freePorts(count: number): Promise<Ports[]> {
  // Held together while choosing, so one call never hands out the same port twice.
  const taken = new Set<number>();
  const next = async (): Promise<number> => {
    for (;;) {
      const p = await freePort();
      if (!taken.has(p)) {
        taken.add(p);
        return p;
      }
    }
  };
  const out: Ports[] = [];
  for (let i = 0; i < count; i++) out.push({ http: await next(), tcp: await next(), interserver: await next() });
  return out;
}

const xmlEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function serverConfig(dir: string, ports: Ports, all: Ports[], cacheBytes: number): string {
  const p = (sub: string) => xmlEscape(join(dir, sub) + "/");
  const cluster =
    all.length > 1
      ? `<remote_servers><${CLUSTER}>${all
          .map((n) => `<shard><replica><host>127.0.0.1</host><port>${n.tcp}</port></replica></shard>`)
          .join("")}</${CLUSTER}></remote_servers>`
      : "<remote_servers></remote_servers>";
  // Caches small (these are upper bounds, but a test server has no use for gigabytes), no query or
  // part logs (they are system tables written in the background), warnings only, UTC so date
  // functions behave the same on every machine.
  return `<?xml version="1.0"?>
<yandex>
  <logger>
    <level>warning</level>
    <log>${xmlEscape(join(dir, "log", "server.log"))}</log>
    <errorlog>${xmlEscape(join(dir, "log", "error.log"))}</errorlog>
    <size>10M</size>
    <count>1</count>
  </logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>${ports.http}</http_port>
  <tcp_port>${ports.tcp}</tcp_port>
  <interserver_http_port>${ports.interserver}</interserver_http_port>
  <interserver_http_host>127.0.0.1</interserver_http_host>
  <path>${p("data")}</path>
  <tmp_path>${p("tmp")}</tmp_path>
  <user_files_path>${p("user_files")}</user_files_path>
  <format_schema_path>${p("format_schemas")}</format_schema_path>
  <users_config>${xmlEscape(join(dir, "users.xml"))}</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>${cacheBytes}</uncompressed_cache_size>
  <max_concurrent_queries>100</max_concurrent_queries>
  <keep_alive_timeout>3</keep_alive_timeout>
  <mlock_executable>false</mlock_executable>
  ${cluster}
</yandex>
`;
}

// The default user without a password, reachable from loopback only (the server listens there only
// anyway).
const USERS_XML = `<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas><default></default></quotas>
</yandex>
`;

// Servers of this process, killed on exit if a test forgot stop().
const live = new Map<string, ChildProcess[]>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const [dir, children] of live) {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Deletes directories of earlier runs whose owner died without cleaning up (and kills their servers). */
function sweepStale(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((n) => n.startsWith(DIR_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const dir = join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, "owner.pid"), "utf8"));
    } catch {
      continue; // being created right now, or not ours
    }
    if (!Number.isInteger(owner) || owner <= 0 || alive(owner)) continue;
    for (const node of readdirSync(dir).filter((n) => /^node\d+$/.test(n))) {
      // The server's own pid file; killed only if that pid still runs this directory's config.
      try {
        const pid = Number(readFileSync(join(dir, node, "data", "status"), "utf8").match(/PID:\s*(\d+)/)?.[1]);
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        if (cmdline.includes(join(dir, node, "config.xml"))) process.kill(pid, "SIGKILL");
      } catch {
        // no status file, or the process is gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

function startNode(binary: string, nodeDir: string): Node {
  const args = [`--config-file=${join(nodeDir, "config.xml")}`];
  // setpriv execs the server, so child.pid is the server's pid.
  const [cmd, argv] = existsSync(SETPRIV) ? [SETPRIV, ["--pdeathsig", "KILL", "--", binary, ...args]] : [binary, args];
  const child = spawn(cmd, argv, { cwd: nodeDir, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const keep = (b: Buffer) => {
    out = (out + b.toString()).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const node: Node = { child, exited: Promise.resolve(), log: () => "" };
  node.exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", (e) => {
      node.spawnError = e;
      resolve();
    });
  });
  node.log = () => {
    let errors = "";
    try {
      errors = readFileSync(join(nodeDir, "log", "error.log"), "utf8");
    } catch {
      // not written yet
    }
    return (out + errors).slice(-3000);
  };
  return node;
}

async function stopNode(node: Node): Promise<void> {
  const { child, exited } = node;
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    try {
      child.kill(signal);
    } catch {
      return;
    }
    const done = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), STOP_GRACE_MS))]);
    if (done) return;
  }
}

/** GET /ping on a connection of its own that is closed afterwards: an idle keep-alive connection
 * (fetch's pool keeps one) makes the server's shutdown wait out its keep-alive timeout. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpGet({ host: "127.0.0.1", port, path: "/ping", agent: false, timeout: 1000 }, (res) => {
      let body = "";
      res.on("data", (b: Buffer) => (body += b.toString()));
      res.on("end", () => resolve(res.statusCode === 200 && body.trim() === "Ok."));
      res.on("error", () => resolve(false));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(false));
  });
}

async function attempt(binary: string, shards: number, cacheBytes: number): Promise<TestClickHouse | { retry: string }> {
  const dir = mkdtempSync(join(tmpdir(), DIR_PREFIX));
  writeFileSync(join(dir, "owner.pid"), String(process.pid));
  const all = await freePorts(shards);
  const nodes: Node[] = [];
  const children: ChildProcess[] = [];
  live.set(dir, children);

  let stopped: Promise<void> | null = null;
  const stop = () =>
    (stopped ??= (async () => {
      await Promise.all(nodes.map(stopNode));
      live.delete(dir);
      rmSync(dir, { recursive: true, force: true });
    })());

  all.forEach((ports, i) => {
    const nodeDir = join(dir, `node${i}`);
    for (const sub of ["data", "tmp", "user_files", "format_schemas", "log"]) mkdirSync(join(nodeDir, sub), { recursive: true });
    writeFileSync(join(nodeDir, "config.xml"), serverConfig(nodeDir, ports, all, cacheBytes));
    writeFileSync(join(nodeDir, "users.xml"), USERS_XML);
    const node = startNode(binary, nodeDir);
    nodes.push(node);
    children.push(node.child);
  });

  const urls = all.map((p) => `http://127.0.0.1:${p.http}`);
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (const [i, ports] of all.entries()) {
    const node = nodes[i]!;
    for (;;) {
      if (await ping(ports.http)) break;
      const dead = node.child.exitCode !== null || node.child.signalCode !== null || node.spawnError !== undefined;
      if (dead || Date.now() > deadline) {
        const log = node.log();
        await stop();
        // Another process may have taken a port between choosing and binding: try new ones.
        if (dead && /Address already in use/i.test(log)) return { retry: log };
        const why = dead
          ? `exited (${node.child.exitCode ?? node.child.signalCode ?? node.spawnError?.message})`
          : `did not answer /ping within ${START_TIMEOUT_MS / 1000}s`;
        throw new Error(`ClickHouse (${binary}, shard ${i + 1} of ${shards}) ${why}:\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const first = urls[0];
  if (first === undefined) throw new Error("no shards");
  return { url: first, urls, tcpPorts: all.map((p) => p.tcp), cluster: shards > 1 ? CLUSTER : null, stop };
}

/**
 * `uncompressedCacheBytes`: the server's cache of decompressed blocks, which reports use
 * (service/clickhouse/reports.ts). Tests keep the default 64 MiB; the benchmark gives it what a
 * production server would have room for (ClickHouse's own default is 8 GiB).
 */
export async function startTestClickHouse(opts: { shards?: 1 | 2; uncompressedCacheBytes?: number } = {}): Promise<TestClickHouse> {
  const binary = clickhouseServerBinary();
  if (!binary) throw new Error(`no ClickHouse server at ${BINARY_CANDIDATES.join(" or ")} (apt-get install clickhouse-server)`);
  installExitHook();
  sweepStale();
  const shards = opts.shards ?? 1;
  let last = "";
  for (let i = 0; i < 3; i++) {
    const r = await attempt(binary, shards, opts.uncompressedCacheBytes ?? 64 * 1024 * 1024);
    if (!("retry" in r)) return r;
    last = r.retry;
  }
  throw new Error(`ClickHouse could not bind its ports after 3 attempts:\n${last}`);
}
