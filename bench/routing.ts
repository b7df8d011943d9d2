// Routing benchmark: `npm run bench:routing` (or `npx tsx bench/routing.ts`).
// Starts the real service as a child process over a fresh generated dataset with the demo routing
// configuration (durability on: every answer waits for its journal batch's fdatasync), then drives
// it with autocannon on loopback: 64 connections for 30 s against POST /api/bin-routing/route with a
// mix of BINs that hit BIN rules, BANK rules and the fallback, and then, with the same load, against
// POST /bench/bare on the same server (no auth, no routing, a response of the same shape and size).
// Both endpoints log one JSON line per request, to a file. Then a third run of routing load during
// which new configuration versions are applied over HTTP (POST /api/bin-routing/config, alternating
// two versions that differ in one group's weights, so its rotation restarts each time): answers are
// counted in 250 ms windows and the windows holding an apply are compared with the rest of the same
// run. Prints rps, p50, p99 and the ratios, and a markdown snippet for docs/benchmarks.md.
//
// Env: BENCH_SECONDS (default 30), BENCH_CONNECTIONS (default 64), BENCH_DIR (default: a temp dir,
// removed afterwards), BENCH_NODE_ARGS (extra node flags for the service, e.g. "--cpu-prof").
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { freePort } from "../lib/core/testing/free-port";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "../service/clients";
import { Database } from "../service/db";
import { generate } from "../service/data/generator";
import { migrate } from "../service/data/schema";
import { TokenSigner } from "../service/http/tokens";
import { buildDemoRoutingConfig, seedDemoRouting } from "../service/routing/demo";
import { machine } from "./lib";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const WARMUP_SECONDS = 3;

// autocannon ships no types; this is the part of its API used here.
interface CannonRequest {
  method: "POST";
  path: string;
  headers: Record<string, string>;
  body: string;
}
interface CannonHist {
  average: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  total: number;
}
interface CannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  "2xx": number;
  latency: CannonHist;
  requests: CannonHist;
  throughput: CannonHist;
}
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  requests: CannonRequest[];
  pipelining?: number;
}) => Promise<CannonResult> & { on(event: "response", fn: (client: unknown, status: number) => void): void };
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

interface Mix {
  label: string;
  bodies: Record<string, unknown>[];
}

async function prepare(dir: string, secret: string) {
  const dbPath = join(dir, "service.duckdb");
  const db = await Database.open(dbPath);
  try {
    await migrate(db);
    await generate(db, { days: 30, ordersPerDay: 200, seed: 42, endDate: "2025-07-31" });
    await seedDemoRouting(db);
    const client = await createClient(db, "bench");
    const signer = new TokenSigner(secret, 3600);
    const token = signer.issue(client.client_id).token;
    const adminToken = signer.issue((await createClient(db, "bench routing admin", ["routing-admin"])).client_id).token;
    const config = await buildDemoRoutingConfig(db);
    // BINs for each kind of hit: the demo's BIN rules (6, 7 and 8 digits), BINs of banks that have a
    // BANK rule (and no BIN rule), and BINs of banks without any rule plus unknown BINs (fallback).
    const binRules = (config.rules ?? []).flatMap((r) => (r.type === "BIN" && r.enabled !== false ? [r.bin_prefix] : []));
    const ruleBanks = new Set((config.rules ?? []).flatMap((r) => (r.type === "BANK" ? [r.bank] : [])));
    const bins = await db.all<{ bin: string; bank: string }>("SELECT bin, bank FROM bins ORDER BY bin");
    const ruled6 = new Set(binRules.map((p) => p.slice(0, 6)));
    const bankHits = bins.filter((b) => ruleBanks.has(b.bank) && !ruled6.has(b.bin)).map((b) => b.bin);
    const fallback = bins.filter((b) => !ruleBanks.has(b.bank) && !ruled6.has(b.bin)).map((b) => b.bin);
    const spread = <T>(xs: T[], n: number) => Array.from({ length: n }, (_, i) => xs[Math.floor((i * xs.length) / n)]!);
    const salesTypes = ["INITIALS", "REBILLS", undefined] as const;
    const body = (bin: string, i: number) => ({
      bin: i % 4 === 0 && bin.length === 6 ? `${bin}${String(i % 100).padStart(2, "0")}` : bin,
      ...(salesTypes[i % 3] ? { sales_type: salesTypes[i % 3] } : {}),
      customer_id: `cust-${100000 + i}`,
      product_id: String(900 + (i % 7)),
      email: `buyer${i}@example.com`,
    });
    const mixes: Mix[] = [
      { label: "BIN rule", bodies: spread(binRules, 20).map((b, i) => body(b, i)) },
      { label: "BANK rule", bodies: spread(bankHits, 20).map((b, i) => body(b, i + 20)) },
      { label: "fallback", bodies: [...spread(fallback, 18), "999999", "12345678"].map((b, i) => body(b, i + 40)) },
    ];
    return { dbPath, token, adminToken, config, mixes };
  } finally {
    db.close();
  }
}


/** The service in a child process whose log goes straight to a file (as in production, and not through this process). */
async function startService(dbPath: string, secret: string, logFile: string): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  const port = await freePort();
  const logFd = openSync(logFile, "a");
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", "service/main.ts"], {
    env: {
      ...process.env,
      SERVICE_DB: dbPath,
      SERVICE_HOST: "127.0.0.1",
      SERVICE_PORT: String(port),
      SERVICE_TOKEN_SECRET: secret,
      SERVICE_LOG: "json",
      SERVICE_BENCH_ENDPOINTS: "1",
      // High enough that the limiter never refuses during the run (it keeps one slot per admitted call).
      ROUTING_RATE_LIMIT: "4000000",
    },
    stdio: ["ignore", logFd, "inherit"],
  });
  closeSync(logFd);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited (${child.exitCode}); see ${logFile}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error("service did not start");
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, url, exited };
}

/** Calls each body once (also a check that all answer 200) and counts how each was resolved. */
async function classify(url: string, token: string, bodies: Record<string, unknown>[]): Promise<Map<string, number>> {
  const kinds = new Map<string, number>();
  for (const b of bodies) {
    const res = await fetch(`${url}/api/bin-routing/route`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(b),
    });
    if (res.status !== 200) throw new Error(`routing check failed: ${res.status} ${await res.text()}`);
    const j = (await res.json()) as { session_info: { rule_name: string; selection_method: string } };
    const rule = j.session_info.rule_name;
    const kind = rule === "FALLBACK" ? "fallback" : rule.startsWith("BANK") ? "BANK-rule" : "BIN-rule";
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return kinds;
}

function run(url: string, requests: CannonRequest[], duration: number): Promise<CannonResult> {
  return autocannon({ url, connections: CONNECTIONS, duration, requests });
}

const WINDOW_MS = 250;
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * Routing load for `duration` s while a new configuration version is applied every `every` s
 * (alternately `a` and `b`); answers per 250 ms window, split into windows that saw an apply
 * start or finish and the others (the first and last second are left out: ramp-up and stop).
 */
async function runWithApplies(url: string, requests: CannonRequest[], duration: number, adminToken: string, a: unknown, b: unknown, every = 2) {
  const counts: number[] = [];
  let bad = 0;
  const started = performance.now();
  const inst = autocannon({ url, connections: CONNECTIONS, duration, requests });
  inst.on("response", (_c, status) => {
    const w = Math.floor((performance.now() - started) / WINDOW_MS);
    counts[w] = (counts[w] ?? 0) + 1;
    if (status !== 200) bad++;
  });
  const applies: { from: number; to: number; ms: number; status: number }[] = [];
  const applier = (async () => {
    for (let k = 1; (k + 0.5) * every < duration; k++) {
      const at = started + k * every * 1000;
      await new Promise((r) => setTimeout(r, Math.max(0, at - performance.now())));
      const t0 = performance.now();
      const res = await fetch(`${url}/api/bin-routing/config`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
        body: JSON.stringify({ ...(k % 2 === 1 ? (b as object) : (a as object)), reason: `bench apply ${k}`, author: "bench" }),
      });
      await res.arrayBuffer();
      const t1 = performance.now();
      applies.push({ from: Math.floor((t0 - started) / WINDOW_MS), to: Math.floor((t1 - started) / WINDOW_MS), ms: t1 - t0, status: res.status });
    }
  })();
  const result = await inst;
  await applier;
  const first = Math.ceil(1000 / WINDOW_MS);
  const last = Math.floor(((duration - 1) * 1000) / WINDOW_MS);
  const touched = new Set(applies.flatMap((x) => Array.from({ length: x.to - x.from + 1 }, (_, i) => x.from + i)));
  const during: number[] = [];
  const steady: number[] = [];
  for (let w = first; w < last; w++) (touched.has(w) ? during : steady).push(((counts[w] ?? 0) * 1000) / WINDOW_MS);
  return { result, applies, during, steady, bad };
}

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  bytes: number;
  ok: number;
  bad: number;
}

function summarize(name: string, r: CannonResult): Row {
  const ok = r["2xx"];
  return {
    name,
    rps: ok / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    max: r.latency.max,
    bytes: r.throughput.total / Math.max(1, r.requests.total),
    ok,
    bad: r.non2xx + r.errors + r.timeouts,
  };
}

async function main(): Promise<void> {
  const dir = process.env.BENCH_DIR ?? mkdtempSync(join(tmpdir(), "bench-routing-"));
  const secret = randomBytes(32).toString("base64url");
  console.error(`bench: preparing data in ${dir}`);
  const { dbPath, token, adminToken, config, mixes } = await prepare(dir, secret);
  const svc = await startService(dbPath, secret, join(dir, "service.log"));
  try {
    const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };
    // Interleave the three kinds so every connection sends all of them.
    const all = mixes.flatMap((m) => m.bodies);
    const kinds = await classify(svc.url, token, all);
    const mixText = ["BIN-rule", "BANK-rule", "fallback"].map((k) => `${kinds.get(k) ?? 0} ${k}`).join(", ");
    console.error(`bench: the ${all.length} request bodies resolve as: ${mixText}`);
    const order = Array.from({ length: all.length }, (_, i) => all[(i * 7) % all.length]!);
    const routing: CannonRequest[] = order.map((b) => ({ method: "POST", path: "/api/bin-routing/route", headers, body: JSON.stringify(b) }));
    const bare: CannonRequest[] = routing.map((r) => ({ ...r, path: "/bench/bare" }));

    console.error(`bench: warm-up ${WARMUP_SECONDS} s each`);
    const warm = await run(svc.url, routing, WARMUP_SECONDS);
    await run(svc.url, bare, WARMUP_SECONDS);
    const loadBefore = loadavg()[0] ?? 0;
    // The bare endpoint is measured first, so the routing run gets no head start from it.
    console.error(`bench: bare endpoint, ${CONNECTIONS} connections, ${SECONDS} s`);
    const b = summarize("POST /bench/bare (same server, no routing)", await run(svc.url, bare, SECONDS));
    console.error(`bench: routing, ${CONNECTIONS} connections, ${SECONDS} s`);
    const r = summarize("POST /api/bin-routing/route (routing, durable)", await run(svc.url, routing, SECONDS));
    // The second version differs from the demo in one group's weights (its rotation restarts).
    const changed = structuredClone(config);
    const weighted = changed.groups.find((g) => g.selection_method === "WEIGHTAGE") ?? changed.groups[0]!;
    weighted.members = weighted.members.map((m, i) => (i === 0 ? { ...m, weight: (m.weight ?? 1) + 1 } : m));
    console.error(`bench: routing with a configuration apply every 2 s, ${CONNECTIONS} connections, ${SECONDS} s`);
    const ap = await runWithApplies(svc.url, routing, SECONDS, adminToken, config, changed);
    const failedApplies = ap.applies.filter((x) => x.status !== 200).length;

    const loadAfter = loadavg()[0] ?? 0;
    svc.child.kill("SIGTERM");
    await svc.exited;
    const db = await Database.open(dbPath);
    let recorded = 0;
    let batches = 0;
    try {
      recorded = Number((await db.all<{ n: number }>("SELECT count(*)::BIGINT AS n FROM routing_decisions"))[0]?.n ?? 0);
      batches = Number((await db.all<{ s: number }>("SELECT max(applied_seq) AS s FROM routing_journal_checkpoint"))[0]?.s ?? 0);
    } finally {
      db.close();
    }

    const answered = all.length + warm["2xx"] + r.ok + ap.result["2xx"];
    // The journal's own account, logged by the service at shutdown.
    const closedLine = readFileSync(join(dir, "service.log"), "utf8")
      .split("\n")
      .find((l) => l.includes('"msg":"routing journal closed"'));
    const journal = closedLine ? (JSON.parse(closedLine) as { mean_sync_ms: number; max_sync_ms: number }) : null;
    const f0 = (x: number) => Math.round(x).toLocaleString("en-US");
    const f2 = (x: number) => x.toFixed(2);
    const rpsRatio = r.rps / b.rps;
    const p99Ratio = r.p99 / b.p99;
    const lines = [
      `### BIN routing throughput (${new Date().toISOString().slice(0, 10)})`,
      "",
      `Machine: ${machine()}. Load: autocannon 8, ${CONNECTIONS} connections, ${SECONDS} s per endpoint (after ${WARMUP_SECONDS} s warm-up each), loopback, one service process, bare endpoint first.`,
      `Routing mix: ${all.length} request bodies in rotation on every connection, resolving as ${mixText} (6–8 digit BINs, INITIALS/REBILLS/none, customer_id, product_id and e-mail set); demo configuration with ROUND_ROBIN, WEIGHTAGE and RANDOM groups.`,
      "Durability on: each answer waits for the fdatasync of its journal batch. Both endpoints log one JSON line per request (to a file).",
      `Load average (1 min) before the measured runs ${loadBefore.toFixed(2)}, after ${loadAfter.toFixed(2)} (this benchmark itself keeps about 2 busy; more means other work on the machine).`,
      "",
      "| endpoint | req/s | p50 ms | p99 ms | max ms | bytes/response | non-2xx/errors |",
      "|---|---:|---:|---:|---:|---:|---:|",
      ...[r, b].map((x) => `| ${x.name} | ${f0(x.rps)} | ${f2(x.p50)} | ${f2(x.p99)} | ${f2(x.max)} | ${f0(x.bytes)} | ${x.bad} |`),
      "",
      `Routing / bare: **${(rpsRatio * 100).toFixed(0)} %** of the requests per second (target ≥ 50 %), p99 **${p99Ratio.toFixed(2)}×** (target ≤ 2×).`,
      `Decisions recorded: ${f0(recorded)} for ${f0(answered)} routing answers (warm-up and checks included), over ${f0(batches)} journal batches: ${f2(recorded / Math.max(1, batches))} calls per fdatasync on average${journal ? `, ${f2(journal.mean_sync_ms)} ms from write to durable on average (max ${f2(journal.max_sync_ms)} ms)` : ""}. (Calls still in flight when autocannon stops a run, at most ${CONNECTIONS} per run, are recorded but not counted as answers.)`,
    ];
    const steadyMedian = median(ap.steady);
    const duringMedian = median(ap.during);
    const applyRatio = duringMedian / steadyMedian;
    lines.push(
      "",
      `**Applying a configuration during load** (same run, same routing mix and connections, ${SECONDS} s): ${ap.applies.length} versions applied with POST /api/bin-routing/config, one every 2 s, alternating the demo configuration and one with a WEIGHTAGE group's first weight raised (that group's rotation restarts at each apply); apply round trip median ${f2(median(ap.applies.map((x) => x.ms)))} ms, max ${f2(Math.max(...ap.applies.map((x) => x.ms)))} ms; ${failedApplies} applies failed; ${ap.bad} routing calls failed (of ${f0(ap.result["2xx"] + ap.bad)}). Routing answers per second counted in ${WINDOW_MS} ms windows (the first and last second left out):`,
      "",
      "| windows | count | median req/s |",
      "|---|---:|---:|",
      `| holding an apply | ${ap.during.length} | ${f0(duringMedian)} |`,
      `| the rest of the run (steady state) | ${ap.steady.length} | ${f0(steadyMedian)} |`,
      "",
      `During an apply / steady: **${(applyRatio * 100).toFixed(0)} %** (target ≥ 90 %).`,
    );
    console.log(lines.join("\n"));
    const pass = rpsRatio >= 0.5 && p99Ratio <= 2 && applyRatio >= 0.9 && failedApplies === 0 && ap.bad === 0;
    console.error(`bench: targets ${pass ? "met" : "MISSED"}`);
  } finally {
    if (svc.child.exitCode === null) {
      svc.child.kill("SIGTERM");
      await svc.exited;
    }
    if (!process.env.BENCH_DIR) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
