// Report benchmark: `npm run bench:reports` (or `npx tsx bench/reports.ts`).
// With BENCH_SIZES (e.g. 1m,10m,100m): the cost curve over data sizes, each generated once in
// a process of its own (time and peak memory), and a failure when any process passes
// BENCH_MEMORY_CEILING_MIB (default 4096).
// Generates ≥ 10 M attempts once (timed), then for four report shapes measures, in one run, the
// service over HTTP on loopback (20 runs after a warm-up: p50, p95) and the same aggregate written by
// hand in DuckDB SQL (p50), and reports the ratio and the service's peak memory.
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import type { Operation } from "../lib/contract/catalog";
import { addDays } from "../lib/contract/dates";
import { OPERATION_TABLE } from "../lib/contract/operations";
import { createClient } from "../service/clients";
import { duckDbOptions, loadDuckDbConfig } from "../service/config";
import { Database, type SqlParam } from "../service/db";
import { generate } from "../service/data/generator";
import { hasDerived, rebuildDerived } from "../service/data/derived";
import { migrate } from "../service/data/schema";
import { GRAINS } from "../service/reports/grain";
import { startTestClickHouse } from "../service/testing/clickhouse";
import { TEST_ENGINES, type TestEngine } from "../service/testing/harness";
import { machine, median, peakRssMiB, percentile, runCliInChild, startServiceProcess } from "./lib";

const DB = process.env.BENCH_DB ?? "data/bench-10m.duckdb";
const END = "2026-06-30";
const GEN = { days: 400, ordersPerDay: Number(process.env.BENCH_ORDERS_PER_DAY ?? 9850), seed: 1234, endDate: END };
const RUNS = 20;
/** The engines measured beside DuckDB (service/testing/harness.ts names them), e.g. duckdb,clickhouse,clickhouse-2-shards. */
const ENGINES = (process.env.BENCH_ENGINES ?? "duckdb").split(",").map((e) => {
  const engine = TEST_ENGINES.find((known) => known === e.trim());
  if (!engine) throw new Error(`BENCH_ENGINES: ${e} is not one of ${TEST_ENGINES.join(", ")}`);
  return engine;
});
const START = addDays(END, -99); // a 100-day range (inclusive), the longest one call allows

interface Case {
  id: string;
  label: string;
  op: Operation;
  body: Record<string, unknown>;
  /** By hand over the facts, as the service computed it before the grains (absent: not measured). */
  sql?: string;
  /** By hand over the same table the service reads (its operation's grain), the fair overhead ratio. */
  grainSql?: string;
  params: SqlParam[];
}

// The hand-written equivalents: what an analyst would type into DuckDB for the same answer.
const orderBranches = (dateCol: string, keyCols: string) => `
  SELECT ${dateCol.replace("{d}", "a.attempt_date")} AS date${keyCols}, count(*) FILTER (NOT is_cascade) AS attempts,
    count(*) FILTER (approved AND NOT is_cascade) AS approvals,
    sum(amount_cents) FILTER (approved) AS revenue,
    sum(c.cpa_cents) FILTER (approved AND billing_cycle = 0) AS cpa,
    count(*) FILTER (NOT is_cascade AND billing_cycle = 0) AS initial_attempt,
    count(*) FILTER (approved AND NOT is_cascade AND billing_cycle = 0) AS initial_approved,
    count(*) FILTER (NOT is_cascade AND billing_cycle >= 1) AS rebills_attempted,
    count(*) FILTER (approved AND NOT is_cascade AND billing_cycle >= 1) AS rebills_approved,
    count(*) FILTER (approved) AS net_approvals,
    count(*) FILTER (approved AND attempt_no = 1) AS approvals_organic
  FROM attempts a JOIN campaigns c USING (campaign_id) WHERE a.attempt_date BETWEEN $1 AND $2 GROUP BY ALL`;
// Event metrics read the event fact tables (each event with its attempt's columns), as the service does.
const eventBranch = (facts: string, count: string, amount: string, byEvent: boolean, keyCols: string, extra = "") => `
  SELECT ${byEvent ? "a.event_date" : "a.attempt_date"} AS date${keyCols}${extra}, count(*) AS ${count}, sum(a.event_amount_cents) AS ${amount}
  FROM ${facts} a WHERE ${byEvent ? "a.event_date" : "a.attempt_date"} BETWEEN $1 AND $2 GROUP BY ALL`;
/** Every order-summary metric by date (and `keyCols`), as one UNION ALL BY NAME of pre-aggregated parts. */
function orderUnion(keyCols: string, withTypes = false): string {
  const ev = (facts: string, c: string, a: string, c2: string, a2: string, extra: string) =>
    [eventBranch(facts, c, a, false, keyCols, extra), eventBranch(facts, c2, a2, true, keyCols, extra)];
  return [
    orderBranches("{d}", keyCols),
    ...ev("chargeback_facts", "cb_count", "cb_amount", "cb_count_by_cb_date", "cb_amount_by_cb_date", ""),
    ...ev("refund_facts", "refund_count", "refund_amount", "refund_count_by_refund_date", "refund_amount_by_refund_date", withTypes ? ", a.refund_type" : ""),
    ...ev("alert_facts", "alert_count", "alert", "alert_count_by_alert_date", "alert_by_alert_date", withTypes ? ", a.alert_type" : ""),
  ].join(" UNION ALL BY NAME ");
}
function handOrders(keyCols: string, keys: string): string {
  return `SELECT ${keys}, sum(COLUMNS(* EXCLUDE (${keys}))) FROM (${orderUnion(keyCols)}) GROUP BY ALL ORDER BY ALL`;
}
const FINEST = ", a.campaign_id, a.product_id, a.gateway_id, a.bin, a.affid, a.sub_affid, a.sales_type, a.billing_cycle, a.price_point_cents";
const FINEST_KEYS = "date, campaign_id, product_id, gateway_id, bin, affid, sub_affid, sales_type, refund_type, billing_cycle, price_point_cents, alert_type";
const grainKeys = (op: Operation) => GRAINS[op].keys.map((k) => `"${k}"`).join(", ");
/** Every metric of an operation by `keys`, summed from its grain. */
const grainSums = (op: Operation, keys: string) =>
  `SELECT ${keys}, sum(COLUMNS(* EXCLUDE (${grainKeys(op)}))) FROM ${GRAINS[op].table} WHERE date BETWEEN $1 AND $2 GROUP BY ${keys} ORDER BY ${keys}`;
/** A page of an operation's finest grain over the range, with its names and the range's count: the grain's rows are the groups. */
const grainPage = (op: Operation, offset: number) => `
  SELECT g.*, p.product_name, p.product_group, c.campaign_name, c.campaign_type, gw.mcc, gw.acquirer, gw.gateway_alias,
    b.bank, b.card_brand, b.card_type, (SELECT count(*) FROM ${GRAINS[op].table} WHERE date BETWEEN $1 AND $2) AS total
  FROM (SELECT * FROM ${GRAINS[op].table} WHERE date BETWEEN $1 AND $2 ORDER BY ${grainKeys(op)} LIMIT 1000 OFFSET ${offset}) g
    LEFT JOIN products p USING (product_id) LEFT JOIN campaigns c USING (campaign_id)
    LEFT JOIN gateways gw USING (gateway_id) LEFT JOIN bins b USING (bin)
  ORDER BY ${grainKeys(op)}`;

const CASES: Case[] = [
  {
    id: "a",
    label: "100 days, group_by [date], all metrics",
    op: "orders",
    body: { start_date: START, end_date: END, group_by: ["date"] },
    sql: handOrders("", "date"),
    grainSql: grainSums("orders", "date"),
    params: [START, END],
  },
  {
    id: "b",
    label: "100 days, group_by [date, gateway_id], all metrics",
    op: "orders",
    body: { start_date: START, end_date: END, group_by: ["date", "gateway_id"] },
    sql: handOrders(", a.gateway_id", "date, gateway_id"),
    grainSql: grainSums("orders", "date, gateway_id"),
    params: [START, END],
  },
  {
    id: "c",
    label: "100 days, no group_by (finest grain), first page",
    op: "orders",
    body: { start_date: START, end_date: END },
    // Every metric at the finest grain (all key columns), names joined, first 1000 rows and the total.
    sql: `WITH g AS (
        SELECT ${FINEST_KEYS}, sum(COLUMNS(* EXCLUDE (${FINEST_KEYS})))
        FROM (${orderUnion(FINEST, true)}) GROUP BY ALL)
      SELECT g.*, p.product_name, p.product_group, c.campaign_name, c.campaign_type, gw.mcc, gw.acquirer, gw.gateway_alias,
        b.bank, b.card_brand, b.card_type, count(*) OVER () AS total
      FROM g LEFT JOIN products p USING (product_id) LEFT JOIN campaigns c USING (campaign_id)
        LEFT JOIN gateways gw USING (gateway_id) LEFT JOIN bins b USING (bin)
      ORDER BY ${FINEST_KEYS} LIMIT 1000`,
    grainSql: grainPage("orders", 0),
    params: [START, END],
  },
  {
    id: "c2",
    label: "the same, the page at offset 2,000,000",
    op: "orders",
    body: { start_date: START, end_date: END, offset: 2_000_000 },
    // (By hand over the facts this is (c) again, about 10 s: not measured twice.) Over the grain, the
    // plain query: sort the range, skip 2 M rows.
    grainSql: grainPage("orders", 2_000_000),
    params: [START, END],
  },
  {
    id: "d",
    label: "cohort, 100 days, group_by [date, billing_cycle], all metrics",
    op: "cohort",
    body: { start_date: START, end_date: END, group_by: ["date", "billing_cycle"] },
    sql: `SELECT date, billing_cycle, sum(COLUMNS(* EXCLUDE (date, billing_cycle))) FROM (
        SELECT a.initial_date AS date, a.billing_cycle,
          count(*) FILTER (approved AND NOT is_cascade) AS approvals_by_initial_date,
          count(*) FILTER (NOT is_cascade) AS attempts_by_initial_date,
          sum(amount_cents) FILTER (approved) AS revenue_by_initial_date,
          sum(c.cpa_cents) FILTER (approved AND billing_cycle = 0) AS cpa,
          count(*) FILTER (NOT is_cascade AND billing_cycle = 0) AS initial_attempt,
          count(*) FILTER (approved AND NOT is_cascade AND billing_cycle = 0) AS initial_approved,
          count(*) FILTER (NOT is_cascade AND billing_cycle >= 1) AS rebills_attempted,
          count(*) FILTER (approved AND NOT is_cascade AND billing_cycle >= 1) AS rebills_approved
        FROM attempts a JOIN campaigns c USING (campaign_id) WHERE a.initial_date BETWEEN $1 AND $2 GROUP BY ALL
        UNION ALL BY NAME
        SELECT a.initial_date AS date, a.billing_cycle, count(*) AS cb_count_by_initial_date, sum(a.event_amount_cents) AS cb_amount_by_initial_date
        FROM chargeback_facts a WHERE a.initial_date BETWEEN $1 AND $2 GROUP BY ALL
        UNION ALL BY NAME
        SELECT a.initial_date AS date, a.billing_cycle, count(*) AS refund_count_by_initial_date, sum(a.event_amount_cents) AS refund_amount_by_initial_date
        FROM refund_facts a WHERE a.initial_date BETWEEN $1 AND $2 GROUP BY ALL
        UNION ALL BY NAME
        SELECT a.initial_date AS date, a.billing_cycle, count(*) AS alert_count_by_initial_date, sum(a.event_amount_cents) AS alert_by_initial_date
        FROM alert_facts a WHERE a.initial_date BETWEEN $1 AND $2 GROUP BY ALL
      ) GROUP BY ALL ORDER BY ALL`,
    grainSql: grainSums("cohort", "date, billing_cycle"),
    params: [START, END],
  },
  {
    id: "e",
    label: "cohort, 100 days, no group_by (finest grain), first page",
    op: "cohort",
    body: { start_date: START, end_date: END },
    // (Not measured by hand over the facts: the service did that before the cohort grain, 3.2 s.)
    grainSql: grainPage("cohort", 0),
    params: [START, END],
  },
];

async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Runs per case in the side-by-side comparison of engines (BENCH_ENGINE_RUNS). */
const ENGINE_RUNS = Number(process.env.BENCH_ENGINE_RUNS ?? 11);

/** A signed-in caller of the service at `url`: `call(c)` runs a case and gives its record count. */
async function caller(url: string, client: { client_id: string; client_secret: string }) {
  const tokenRes = await fetch(`${url}/api/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(client) });
  const token = ((await tokenRes.json()) as { data: { access_token: string } }).data.access_token;
  const headers = { "content-type": "application/json", authorization: `Bearer ${token}`, "x-client-id": client.client_id, "x-client-secret": client.client_secret };
  return async (c: Case): Promise<number> => {
    const r = await fetch(`${url}${OPERATION_TABLE[c.op].servicePath}`, { method: "POST", headers, body: JSON.stringify(c.body) });
    const j = (await r.json()) as { data?: unknown[] };
    if (!r.ok) throw new Error(`${c.id}: HTTP ${r.status} ${JSON.stringify(j)}`);
    return j.data?.length ?? 0;
  };
}

interface Measured {
  p50: Record<string, number>;
  p95: Record<string, number>;
  records: Record<string, number>;
  failed: Record<string, string>;
}

/**
 * Each case through each of the services at `urls`, interleaved: 1 warm-up each, then `runs` rounds
 * of one call to every service in turn, so a load spike on this shared machine falls on all of them
 * alike and the ratios between them hold (one service alone is the plain measurement).
 */
async function measureCases(urls: string[], client: { client_id: string; client_secret: string }, runs = RUNS): Promise<Measured[]> {
  const calls = await Promise.all(urls.map((url) => caller(url, client)));
  const out: Measured[] = urls.map(() => ({ p50: {}, p95: {}, records: {}, failed: {} }));
  for (const c of CASES) {
    const ms: number[][] = urls.map(() => []);
    const live = new Set(urls.keys());
    const attempt = async (i: number, fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (e) {
        // Reported in the table (the service's log has the cause), and the other cases still run.
        out[i]!.failed[c.id] = e instanceof Error ? e.message.slice(0, 120) : String(e);
        live.delete(i);
      }
    };
    for (const i of live) await attempt(i, async () => (out[i]!.records[c.id] = await calls[i]!(c))); // warm-up
    for (let round = 0; round < runs; round++) {
      for (const i of live) await attempt(i, async () => ms[i]!.push(await timeIt(() => calls[i]!(c))));
    }
    out.forEach((m, i) => {
      const ok = live.has(i);
      m.p50[c.id] = ok ? median(ms[i]!) : NaN;
      m.p95[c.id] = ok ? percentile(ms[i]!, 95) : NaN;
    });
  }
  return out;
}

async function main(): Promise<void> {
  mkdirSync("data", { recursive: true });
  let genSeconds: number | null = null;
  let attempts = 0;
  let client: { client_id: string; client_secret: string };
  const handMs: Record<string, number[]> = {};
  const grainMs: Record<string, number[]> = {};
  {
    const fresh = !existsSync(DB);
    const db = await Database.open(DB, { connections: 1 });
    await migrate(db);
    if (fresh || process.env.BENCH_REGENERATE === "1") {
      console.error(`bench: generating ${GEN.days} days × ${GEN.ordersPerDay} orders/day into ${DB}…`);
      const s = await generate(db, GEN);
      genSeconds = s.seconds;
    }
    await db.transaction(async (tx) => {
      if (!(await hasDerived(tx))) await rebuildDerived(tx);
    });
    attempts = Number((await db.all<{ n: string }>("SELECT count(*)::BIGINT AS n FROM attempts"))[0]?.n ?? 0);
    client = await createClient(db, `bench ${new Date().toISOString()}`);
    // Hand-written SQL, on the same file, before the service takes it (one process per file).
    const timeRuns = async (sql: string, params: SqlParam[]) => {
      await db.all(sql, params); // warm-up
      const ms: number[] = [];
      for (let i = 0; i < RUNS; i++) ms.push(await timeIt(() => db.all(sql, params)));
      return ms;
    };
    for (const c of CASES) {
      if (c.sql) handMs[c.id] = await timeRuns(c.sql, c.params);
      if (c.grainSql) grainMs[c.id] = await timeRuns(c.grainSql, c.params);
    }
    db.close();
  }

  // A DuckDB file belongs to one process at a time, so each ClickHouse set-up's service (which keeps
  // its clients and rate limits in DuckDB, and publishes from it at its start) gets a copy of the file
  // made after the bench's client was added. Then every service runs at once and the comparison
  // interleaves them.
  const engines: { engine: TestEngine; startSeconds: number; url: string; pid: number }[] = [];
  const stops: (() => Promise<void>)[] = [];
  try {
    for (const engine of ENGINES.filter((e) => e !== "duckdb")) {
      // 2 GiB of decompressed blocks (a production server's default is 8 GiB): the rollups fit, as
      // they would on a server sized for reports.
      const ch = await startTestClickHouse({ shards: engine === "clickhouse-2-shards" ? 2 : 1, uncompressedCacheBytes: 2 * 1024 ** 3 });
      stops.push(() => ch.stop());
      const copy = `data/bench-${engine}-copy.duckdb`;
      rmSync(`${copy}.wal`, { force: true });
      copyFileSync(DB, copy);
      if (existsSync(`${DB}.wal`)) copyFileSync(`${DB}.wal`, `${copy}.wal`);
      stops.push(async () => {
        rmSync(copy, { force: true });
        rmSync(`${copy}.wal`, { force: true });
      });
      const started = performance.now();
      const svc = await startServiceProcess(
        {
          SERVICE_DB: copy,
          SERVICE_TOKEN_SECRET: "bench-token-secret-bench-token-secret-0123",
          REPORT_RATE_LIMIT: "100000",
          SERVICE_LOG: "json",
          SERVICE_ENGINE: "clickhouse",
          CLICKHOUSE_URL: ch.urls.join(","),
          ...(ch.cluster ? { CLICKHOUSE_CLUSTER: ch.cluster } : {}),
        },
        30 * 60_000,
      );
      stops.push(() => svc.stop());
      const startSeconds = (performance.now() - started) / 1000;
      console.error(`bench: ${engine} published and listening after ${startSeconds.toFixed(1)} s`);
      engines.push({ engine, startSeconds, url: svc.url, pid: svc.child.pid! });
    }

    const svc = await startServiceProcess({
      SERVICE_DB: DB,
      SERVICE_TOKEN_SECRET: "bench-token-secret-bench-token-secret-0123",
      REPORT_RATE_LIMIT: "100000",
      SERVICE_LOG: "json",
    });
    stops.push(() => svc.stop());
    const [duck] = await measureCases([svc.url], client);
    const side = engines.length > 0 ? await measureCases([svc.url, ...engines.map((e) => e.url)], client, ENGINE_RUNS) : [];
    // Each engine alone too, calls back to back as DuckDB's own table above: interleaving leaves every
    // engine's caches cold for the next call, which costs the fastest calls the most.
    const alone: Measured[] = [];
    for (const e of engines) alone.push((await measureCases([e.url], client, ENGINE_RUNS))[0]!);
    const engineRuns = engines.map((e, i) => ({ ...e, ...side[i + 1]!, alone: alone[i]!, peak: peakRssMiB(e.pid) }));
    report(duck!, side[0], engineRuns, peakRssMiB(svc.child.pid!));
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }

  function report(duck: Measured, duckSide: Measured | undefined, engineRuns: (Measured & { engine: TestEngine; startSeconds: number; alone: Measured; peak: number })[], peak: number): void {
  const rows: string[] = [];
  const results: Record<string, { p50: number; p95: number; hand: number | null; ratio: number | null; grain: number | null; grainRatio: number | null; records: number }> = {};
  for (const c of CASES) {
    const p50 = duck.p50[c.id]!;
    const p95 = duck.p95[c.id]!;
    const records = duck.records[c.id]!;
    const hand = handMs[c.id] ? median(handMs[c.id]!) : null;
    const ratio = hand === null ? null : p50 / hand;
    const grain = grainMs[c.id] ? median(grainMs[c.id]!) : null;
    const grainRatio = grain === null ? null : p50 / grain;
    results[c.id] = { p50, p95, hand, ratio, grain, grainRatio, records };
    const cell = (v: number | null, digits: number) => (v === null ? "n/a" : v.toFixed(digits));
    rows.push(
      `| (${c.id}) ${c.label} | ${records} | ${p50.toFixed(0)} | ${p95.toFixed(0)} | ${cell(hand, 0)} | ${cell(ratio, 2)} | ` +
        `${cell(grain, 0)} | ${cell(grainRatio, 2)} |`,
    );
  }
  const date = new Date().toISOString().slice(0, 10);
  console.log(`### Reports (${date})

Machine: ${machine()}. Data: ${attempts.toLocaleString("en-US")} attempts (${GEN.days} days × ${GEN.ordersPerDay} orders/day, seed ${GEN.seed}, ending ${END}).
${genSeconds !== null ? `Generation: ${genSeconds.toFixed(1)} s.` : "Generation: reused an existing file (run with BENCH_REGENERATE=1 to time it)."}
Each case: 1 warm-up, then ${RUNS} sequential runs; service over HTTP on loopback (logging on), hand-written DuckDB SQL on the same file in the same run.

Two hand-written baselines: over the facts (what the aggregate costs from scratch), and over the same
table the service reads (the operation's grain).

| case | records | service p50 ms | service p95 ms | hand SQL, facts p50 ms | ratio | hand SQL, grain p50 ms | ratio |
|---|---:|---:|---:|---:|---:|---:|---:|
${rows.join("\n")}

Service peak memory (VmHWM): ${peak.toFixed(0)} MiB.
${
  engineRuns.length === 0
    ? ""
    : `
The same cases through the service on each engine, all running at once over copies of the file, interleaved call by call (${ENGINE_RUNS} rounds after a warm-up; ratio: the engine's p50 over DuckDB's in the same rounds):

| case | DuckDB p50 ms | ${engineRuns.map((r) => `${r.engine} p50 / p95 ms | ratio`).join(" | ")} |
|---|---:|${engineRuns.map(() => "---:|---:").join("|")}|
${CASES.map((c) => `| (${c.id}) | ${duckSide!.p50[c.id]!.toFixed(1)} | ${engineRuns.map((r) => (r.failed[c.id] ? `failed: ${r.failed[c.id]} | n/a` : `${r.p50[c.id]!.toFixed(1)} / ${r.p95[c.id]!.toFixed(1)} | ${(r.p50[c.id]! / duckSide!.p50[c.id]!).toFixed(2)}`)).join(" | ")} |`).join("\n")}

Each engine alone, calls back to back (${ENGINE_RUNS} runs after a warm-up; ratio: over DuckDB's p50 alone, in the first table):

| case | DuckDB p50 ms | ${engineRuns.map((r) => `${r.engine} p50 ms | ratio`).join(" | ")} |
|---|---:|${engineRuns.map(() => "---:|---:").join("|")}|
${CASES.map((c) => `| (${c.id}) | ${duck.p50[c.id]!.toFixed(1)} | ${engineRuns.map((r) => (r.alone.failed[c.id] ? `failed | n/a` : `${r.alone.p50[c.id]!.toFixed(1)} | ${(r.alone.p50[c.id]! / duck.p50[c.id]!).toFixed(2)}`)).join(" | ")} |`).join("\n")}

${engineRuns.map((r) => `- ${r.engine}: service start, publish included, ${r.startSeconds.toFixed(1)} s; service peak memory ${r.peak.toFixed(0)} MiB.`).join("\n")}
`
}`);
  console.error(JSON.stringify(results));
  }
}

// ---------------------------------------------------------------------------------------------
// The cost curve: `BENCH_SIZES=1m,10m,100m npm run bench:reports`

/** Orders per day for each size over the same 400 days (about 1 M, 10 M and 100 M attempts). */
const SIZE_ORDERS: Record<string, number> = { "1m": 985, "10m": 9850, "100m": 98500 };
/** Runs per case at a size (a 100 M page by hand over the grain takes seconds). */
const runsAt = (size: string) => (size === "100m" ? 5 : RUNS);
/** The process peak (VmHWM) any generation or service may reach; above it the run fails. */
const CEILING_MIB = Number(process.env.BENCH_MEMORY_CEILING_MIB ?? 4096);

interface SizeRun {
  size: string;
  attempts: number;
  generation: { seconds: number; peakMiB: number } | null;
  fileMiB: number;
  servicePeakMiB: number;
  p50: Record<string, number>;
  p95: Record<string, number>;
  grain: Record<string, number>;
}

/** Generates a size with the service's CLI in a process of its own, so its time and peak are its own. */
async function generateInChild(file: string, ordersPerDay: number): Promise<{ seconds: number; peakMiB: number }> {
  const args = ["generate", "--db", file, "--days", "400", "--orders-per-day", String(ordersPerDay), "--seed", "1234", "--end-date", END];
  const { summary } = await runCliInChild<{ seconds: number; peak_rss_mib: number }>(args);
  return { seconds: summary.seconds, peakMiB: summary.peak_rss_mib };
}

async function measureSize(size: string): Promise<SizeRun> {
  const ordersPerDay = SIZE_ORDERS[size];
  if (!ordersPerDay) throw new Error(`BENCH_SIZES: ${size} is not one of ${Object.keys(SIZE_ORDERS).join(", ")}`);
  const file = size === "10m" ? DB : `data/bench-${size}.duckdb`;
  let generation: SizeRun["generation"] = null;
  if (!existsSync(file) || process.env.BENCH_REGENERATE === "1") {
    console.error(`bench: generating ${size} (400 days × ${ordersPerDay} orders/day) into ${file}…`);
    rmSync(file, { force: true });
    rmSync(`${file}.wal`, { force: true });
    generation = await generateInChild(file, ordersPerDay);
  }
  const runs = runsAt(size);
  let client: { client_id: string; client_secret: string };
  let attempts: number;
  const grainMs: Record<string, number> = {};
  {
    const db = await Database.open(file, { connections: 1, ...duckDbOptions(loadDuckDbConfig()) });
    try {
      await migrate(db);
      await db.transaction(async (tx) => {
        if (!(await hasDerived(tx))) await rebuildDerived(tx);
      });
      attempts = Number((await db.all<{ n: string }>("SELECT count(*)::BIGINT AS n FROM attempts"))[0]?.n ?? 0);
      client = await createClient(db, `bench ${new Date().toISOString()}`);
      for (const c of CASES) {
        if (!c.grainSql) continue;
        await db.all(c.grainSql, c.params);
        const ms: number[] = [];
        for (let i = 0; i < runs; i++) ms.push(await timeIt(() => db.all(c.grainSql!, c.params)));
        grainMs[c.id] = median(ms);
      }
    } finally {
      db.close();
    }
  }
  const svc = await startServiceProcess({ SERVICE_DB: file, SERVICE_TOKEN_SECRET: "bench-token-secret-bench-token-secret-0123", REPORT_RATE_LIMIT: "100000", SERVICE_LOG: "json" }, 10 * 60_000);
  try {
    const [measured] = await measureCases([svc.url], client, runs);
    if (!measured) throw new Error("no measurement");
    return { size, attempts, generation, fileMiB: statSync(file).size / 2 ** 20, servicePeakMiB: peakRssMiB(svc.child.pid!), p50: measured.p50, p95: measured.p95, grain: grainMs };
  } finally {
    await svc.stop();
  }
}

async function curve(sizes: string[]): Promise<void> {
  mkdirSync("data", { recursive: true });
  const runs: SizeRun[] = [];
  for (const size of sizes) runs.push(await measureSize(size));
  const row = (label: string, cell: (r: SizeRun) => string) => `| ${label} | ${runs.map(cell).join(" | ")} |`;
  const over = runs.flatMap((r) => [
    ...(r.generation && r.generation.peakMiB > CEILING_MIB ? [`${r.size} generation peaked at ${r.generation.peakMiB} MiB`] : []),
    ...(r.servicePeakMiB > CEILING_MIB ? [`${r.size} service peaked at ${r.servicePeakMiB.toFixed(0)} MiB`] : []),
  ]);
  console.log(`### Reports by data size (${new Date().toISOString().slice(0, 10)})

Machine: ${machine()}. DUCKDB_MEMORY_LIMIT ${loadDuckDbConfig().DUCKDB_MEMORY_LIMIT}; memory ceiling ${CEILING_MIB} MiB.
Each size: 400 days ending ${END}, seed 1234; each case 1 warm-up then ${sizes.map((s) => `${runsAt(s)} (${s})`).join(", ")} sequential runs through the service
over HTTP; "× grain SQL": the service's p50 over the same answer written by hand over the operation's grain, in the same run.

| | ${runs.map((r) => r.size).join(" | ")} |
|---|${runs.map(() => "---:").join("|")}|
${row("attempts", (r) => r.attempts.toLocaleString("en-US"))}
${row("generation", (r) => (r.generation ? `${r.generation.seconds.toFixed(1)} s` : "reused"))}
${row("generation peak memory", (r) => (r.generation ? `${r.generation.peakMiB} MiB` : "reused"))}
${row("file size", (r) => `${r.fileMiB.toFixed(0)} MiB`)}
${row("service peak memory", (r) => `${r.servicePeakMiB.toFixed(0)} MiB`)}
${CASES.map((c) => row(`(${c.id}) p50 / p95 ms (× grain SQL)`, (r) => `${r.p50[c.id]!.toFixed(0)} / ${r.p95[c.id]!.toFixed(0)}${r.grain[c.id] ? ` (${(r.p50[c.id]! / r.grain[c.id]!).toFixed(2)}×)` : ""}`)).join("\n")}

${over.length ? `**Over the ceiling:** ${over.join("; ")}.` : `Every generation and service stayed under the ${CEILING_MIB} MiB ceiling.`}`);
  if (over.length) process.exitCode = 1;
}

const sizesAsked = process.env.BENCH_SIZES?.split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);
(sizesAsked?.length ? curve(sizesAsked) : main()).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
