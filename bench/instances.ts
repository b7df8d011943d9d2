// Dashboard instances on PostgreSQL: `npm run bench:instances` after `npx next build`.
// One throwaway PostgreSQL cluster (lib/core/store/testing/postgres.ts), the real service with generated
// data (150 days × 60 orders/day, its request log captured, 5 reporting calls per 10 s per client),
// three `next start` processes on that PostgreSQL with the same secret, and beside them one dashboard
// on its embedded PGlite store (its own API client, so its calls never count in the others' window).
// It proves and measures, in one run:
//  1. a scripted session of 30 distinct order summaries submitted round-robin over the three
//     instances and each polled on another instance until done: every job answered where polled
//     (and equal to the submitting instance's answer), and the service's log shows no 6 reporting
//     calls within its 10 s window and no 429;
//  2. each of those reports asked again on the two instances that never fetched it: no upstream call
//     (service log lines before and after), and the time a miss answered from the shared cache adds
//     over a memory hit on the same instance;
//  3. cache-hit latency of one report through an instance on PostgreSQL and through the PGlite
//     dashboard, alternating (target: shared state adds ≤ 5 ms at the median);
//  4. an instance killed (SIGKILL) while one of its jobs is mid-fetch (a multi-page report under the
//     5 per 10 s quota): polling that job on another instance ends done (taken over) or failed with
//     the clear message, the takeover within the lease (15 s) + 5 s.
// Exits 1 when a claim did not hold (after printing everything).
import { execFileSync, spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { appendFileSync, existsSync, openSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import pg from "pg";
import { addDays } from "../lib/contract/dates";
import { OPERATION_TABLE } from "../lib/contract/operations";
import { startTestPostgres, type TestPostgres } from "../lib/core/store/testing/postgres";
import { dashboardEnvFor } from "../e2e/support/env";
import type { E2EEnv } from "../e2e/support/prepare";
import { machine, median, percentile } from "./lib";

const DIR = ".bench-instances";
// Ports of our own: the e2e suite uses 4100/3100, bench:proxy 4700/3700, bench:ui 4800/3800.
const SERVICE_PORT = 4910;
const INSTANCE_PORTS = [4911, 4912, 4913] as const;
const PGLITE_PORT = 3910;
const LIMIT = 5;
const WINDOW_S = 10;
/** JOB_LEASE_SECONDS in lib/core/upstream/pg-jobs.ts (not imported: that module is server-only). */
const LEASE_S = 15;
const TAKEOVER_MARGIN_S = 5;
const SESSION_REPORTS = 30;
const HITS = 200;
const WARM_UPS = 20;
const HIT_TARGET_MS = 5;

type Rec = Record<string, unknown>;
interface Result {
  source: string;
  upstream_calls: number;
  total: number;
  data: Rec[];
}
interface Status {
  state: string;
  result?: Result;
  error?: { status: number; message: string; action: string };
  call?: number;
  calls?: number;
  calls_exact?: boolean;
  page?: number;
  pages?: number | null;
}
interface JobBody {
  id?: string;
  status: Status;
}
interface LogLine {
  msg: string;
  ts: string;
  path?: string;
  status?: number;
  duration_ms?: number;
  client_id?: string | null;
}

const ORDERS = OPERATION_TABLE.orders;
const REPORTING_PATHS: ReadonlySet<string> = new Set([OPERATION_TABLE.orders.servicePath, OPERATION_TABLE.cohort.servicePath]);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Processes: every one this script starts, stopped in `finally` (and on Ctrl-C) by its own id.

const children: ChildProcess[] = [];

function startProcess(args: string[], env: NodeJS.ProcessEnv, logFile: string, onStdoutLine?: (line: string) => void): ChildProcess {
  const fd = openSync(logFile, "a");
  const stdio: StdioOptions = ["ignore", onStdoutLine ? "pipe" : fd, fd];
  const child = spawn(process.execPath, args, { env, stdio });
  if (onStdoutLine && child.stdout) {
    createInterface({ input: child.stdout }).on("line", (line) => {
      appendFileSync(logFile, `${line}\n`);
      onStdoutLine(line);
    });
  }
  children.push(child);
  return child;
}

const running = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;

async function stopAll(): Promise<void> {
  await Promise.all(
    children.filter(running).map(async (c) => {
      const exited = new Promise<void>((r) => c.once("exit", () => r()));
      c.kill("SIGTERM");
      const done = await Promise.race([exited.then(() => true), sleep(8_000).then(() => false)]);
      if (!done && running(c)) {
        c.kill("SIGKILL");
        await exited;
      }
    }),
  );
}

async function waitFor(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 900; i++) {
    if (!running(child)) throw new Error(`the process for ${url} exited (${child.exitCode ?? child.signalCode}); see ${DIR}/*.log`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not yet */
    }
    await sleep(200);
  }
  throw new Error(`${url} did not come up`);
}

/** Signs in through next-auth's credentials endpoint, as the browser form does (bench/stack.ts). */
async function signIn(baseUrl: string, email: string, password: string): Promise<string> {
  const csrfRes = await fetch(`${baseUrl}/api/auth/csrf`);
  const csrfCookie = csrfRes.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const login = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }).toString(),
  });
  const session = login.headers.getSetCookie().map((c) => c.split(";")[0]!);
  if (!session.some((c) => c.includes("session-token"))) throw new Error(`sign-in at ${baseUrl} failed: ${login.status}`);
  return [csrfCookie, ...session].join("; ");
}

const tsx = (script: string, args: string[], env: Record<string, string> = {}) =>
  execFileSync(process.execPath, ["--import", "tsx", script, ...args], { encoding: "utf8", env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
const lastJson = <T>(out: string): T => JSON.parse(out.trim().split("\n").at(-1)!) as T;

/** Records compared as a multiset: keys sorted, rows sorted. */
function canonical(rows: readonly Rec[]): string {
  return rows
    .map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1)))))
    .sort()
    .join("\n");
}

// ---------------------------------------------------------------------------------------------

interface Claim {
  name: string;
  held: boolean;
  detail: string;
}
const claims: Claim[] = [];
function claim(name: string, held: boolean, detail: string): void {
  claims.push({ name, held, detail });
  console.error(`${held ? "HELD " : "FAILED"}  ${name}: ${detail}`);
}

async function main(): Promise<void> {
  // The service's data, its API client and the PGlite dashboard's users (e2e/support/prepare.ts).
  process.env.E2E_DIR = DIR;
  process.env.E2E_SERVICE_PORT = String(SERVICE_PORT);
  process.env.E2E_DASHBOARD_PORT = String(PGLITE_PORT);
  execFileSync(process.execPath, ["--import", "tsx", "e2e/support/prepare.ts"], { stdio: ["ignore", "ignore", "inherit"] });
  const env = JSON.parse(readFileSync(`${DIR}/env.json`, "utf8")) as E2EEnv;
  // A second API client for the PGlite dashboard and this script's own direct calls: the service
  // limits per client, so they never count in the window the three instances share.
  const other = lastJson<{ client_id: string; client_secret: string }>(tsx("service/cli.ts", ["create-client", "--db", env.serviceDb, "--name", "bench beside"]));

  let postgres: TestPostgres | null = null;
  let db: pg.Client | null = null;
  const onSignal = () => {
    void stopAll().then(() => postgres?.stop()).finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    postgres = await startTestPostgres();
    const databaseUrl = postgres.url;
    // A user in the PostgreSQL store (the CLI migrates it first), signed in on one instance only.
    const pgUser = lastJson<{ email: string; password: string }>(tsx("scripts/users.ts", ["create", "--email", "analyst@instances.bench", "--role", "analyst"], { DATABASE_URL: databaseUrl }));

    const serviceLog: LogLine[] = [];
    const service = startProcess(
      ["--import", "tsx", "service/main.ts"],
      {
        ...process.env,
        SERVICE_DB: env.serviceDb,
        SERVICE_PORT: String(SERVICE_PORT),
        SERVICE_TOKEN_SECRET: env.serviceTokenSecret,
        REPORT_RATE_LIMIT: String(LIMIT),
        RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_S),
        SERVICE_LOG: "json",
      },
      `${DIR}/service.log`,
      (line) => {
        try {
          serviceLog.push(JSON.parse(line) as LogLine);
        } catch {
          /* not a log line */
        }
      },
    );
    await waitFor(`${env.serviceUrl}/healthz`, service);

    const baseEnv: NodeJS.ProcessEnv = { ...process.env };
    delete baseEnv.DATABASE_URL;
    const urls = INSTANCE_PORTS.map((p) => `http://localhost:${p}`);
    const instances = INSTANCE_PORTS.map((port, i) =>
      startProcess(
        ["node_modules/next/dist/bin/next", "start", "--port", String(port), "--hostname", "localhost"],
        {
          ...baseEnv,
          ...dashboardEnvFor(env, LIMIT, WINDOW_S),
          NEXTAUTH_URL: urls[i]!,
          // Never opened with DATABASE_URL set; a directory of its own so a mistake would show.
          DASHBOARD_DB: `${DIR}/unused-pglite-${i}`,
          DATABASE_URL: databaseUrl,
        },
        `${DIR}/instance-${i}.log`,
      ),
    );
    const pgliteUrl = `http://localhost:${PGLITE_PORT}`;
    const pglite = startProcess(
      ["node_modules/next/dist/bin/next", "start", "--port", String(PGLITE_PORT), "--hostname", "localhost"],
      {
        ...baseEnv,
        ...dashboardEnvFor(env, LIMIT, WINDOW_S),
        NEXTAUTH_URL: pgliteUrl,
        UPSTREAM_CLIENT_ID: other.client_id,
        UPSTREAM_CLIENT_SECRET: other.client_secret,
      },
      `${DIR}/pglite.log`,
    );
    // One at a time: each migrates the database on start (under an advisory lock) anyway.
    for (const [i, child] of instances.entries()) await waitFor(`${urls[i]}/api/health`, child);
    await waitFor(`${pgliteUrl}/api/health`, pglite);

    const cookie = await signIn(urls[0]!, pgUser.email, pgUser.password);
    const pgliteCookie = await signIn(pgliteUrl, env.users.analyst.email, env.users.analyst.password);
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();

    const headersFor = (c: string) => ({ "content-type": "application/json", cookie: c });
    const submit = async (base: string, c: string, body: object, wait: number) => {
      const t = performance.now();
      const res = await fetch(`${base}${ORDERS.dashboardPath}?wait=${wait}`, { method: "POST", headers: headersFor(c), body: JSON.stringify(body) });
      const json = (await res.json()) as JobBody;
      return { http: res.status, json, ms: performance.now() - t };
    };
    const poll = async (base: string, id: string, wait: number) => {
      const res = await fetch(`${base}/api/reports/jobs/${encodeURIComponent(id)}?wait=${wait}`, { headers: headersFor(cookie) });
      return { http: res.status, json: (await res.json()) as JobBody & { error?: { message: string } } };
    };
    const reportingCalls = (clientId: string) =>
      serviceLog.filter((l) => l.msg === "request" && REPORTING_PATHS.has(l.path ?? "") && l.client_id === clientId);

    // Direct calls to the service with the other client (paced by its own 429s).
    const tokenRes = await fetch(`${env.serviceUrl}/api/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(other) });
    const token = ((await tokenRes.json()) as { data: { access_token: string } }).data.access_token;
    const direct = async (body: object, limit: number, offset: number) => {
      for (;;) {
        const r = await fetch(`${env.serviceUrl}${ORDERS.servicePath}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "x-client-id": other.client_id, "x-client-secret": other.client_secret },
          body: JSON.stringify({ ...body, limit, offset }),
        });
        if (r.status === 429) {
          await sleep(1000 * Number(r.headers.get("retry-after") ?? WINDOW_S));
          continue;
        }
        if (!r.ok) throw new Error(`direct call: HTTP ${r.status} ${await r.text()}`);
        return (await r.json()) as { data: Rec[]; pagination: { total: number; has_more: boolean } };
      }
    };
    const directAll = async (body: object) => {
      const out: Rec[] = [];
      for (let offset = 0; ; offset += 1000) {
        const page = await direct(body, 1000, offset);
        out.push(...page.data);
        if (!page.pagination.has_more) return out;
      }
    };

    const end = env.endDate;
    // ---- 1. The scripted session: 30 distinct reports, none derivable from another (no date
    // grouping, every range different), each one page: 30 reporting calls through a 5 per 10 s quota.
    const groupings = [["gateway_id"], ["card_brand"], ["sales_type"], ["gateway_id", "card_type"], ["card_brand", "sales_type"]];
    const sessionBodies = Array.from({ length: SESSION_REPORTS }, (_, i) => ({
      start_date: addDays(end, -(10 + i)),
      end_date: end,
      group_by: groupings[i % groupings.length]!,
      metrics: ["attempts", "approvals", "revenue"],
    }));
    const callsBefore = reportingCalls(env.client.client_id).length;
    const sessionStart = performance.now();
    const submitted: { id: string; at: number; on: number }[] = [];
    const submitProblems: string[] = [];
    for (const [i, body] of sessionBodies.entries()) {
      const on = i % 3;
      const r = await submit(urls[on]!, cookie, body, 0);
      if ((r.http !== 202 && r.http !== 200) || !r.json.id) submitProblems.push(`#${i}: HTTP ${r.http} ${JSON.stringify(r.json).slice(0, 200)}`);
      submitted.push({ id: r.json.id ?? "", at: performance.now(), on });
    }
    const polled = await Promise.all(
      submitted.map(async ({ id, at, on }, i) => {
        const where = (on + 1) % 3;
        let polls = 0;
        for (;;) {
          const r = await poll(urls[where]!, id, 2000);
          polls++;
          const s = r.json.status?.state;
          if (r.http !== 200 || s === "failed" || s === "cancelled") return { i, on, where, ok: false, polls, ms: performance.now() - at, why: `HTTP ${r.http} ${JSON.stringify(r.json).slice(0, 300)}`, result: null };
          if (s === "done") return { i, on, where, ok: true, polls, ms: performance.now() - at, why: "", result: r.json.status.result! };
        }
      }),
    );
    const sessionMs = performance.now() - sessionStart;
    await sleep(300); // the log's last lines
    // Each answer as the submitting instance has it (its memory cache: no call), compared.
    const mismatches: string[] = [];
    for (const p of polled) {
      if (!p.result) continue;
      const own = await submit(urls[p.on]!, cookie, sessionBodies[p.i]!, 0);
      const ownResult = own.json.status.result;
      if (own.http !== 200 || !ownResult || ownResult.source !== "cache") mismatches.push(`#${p.i}: submitter answered ${own.http} ${ownResult?.source}`);
      else if (canonical(ownResult.data) !== canonical(p.result.data) || p.result.data.length === 0) mismatches.push(`#${p.i}: records differ`);
    }
    const sessionCalls = reportingCalls(env.client.client_id).slice(callsBefore);
    const answered = polled.filter((p) => p.ok).length;
    claim(
      "every job answered wherever polled",
      submitProblems.length === 0 && answered === SESSION_REPORTS && mismatches.length === 0,
      `${answered}/${SESSION_REPORTS} done when polled on another instance than the one they were submitted to` +
        ` (${polled.reduce((n, p) => n + p.polls, 0)} polls), ${SESSION_REPORTS - mismatches.length} equal to the submitting instance's answer` +
        (submitProblems.length + mismatches.length + (SESSION_REPORTS - answered) > 0 ? `; problems: ${[...submitProblems, ...mismatches, ...polled.filter((p) => !p.ok).map((p) => `#${p.i}: ${p.why}`)].join("; ")}` : ""),
    );
    const sessionSources = polled.map((p) => p.result?.source ?? "-");

    // ---- 2. Each report again on the two instances that never fetched it: no upstream call; the
    // miss answered from the shared cache, then the same request again (a memory hit), alternating.
    const repeatCallsBefore = reportingCalls(env.client.client_id).length;
    const repeatLinesBefore = serviceLog.length;
    const sharedMiss: number[] = [];
    const sameHit: number[] = [];
    const added: number[] = [];
    const repeatProblems: string[] = [];
    let sharedAnswers = 0;
    for (const [i, body] of sessionBodies.entries()) {
      for (const k of [(i + 1) % 3, (i + 2) % 3]) {
        const miss = await submit(urls[k]!, cookie, body, 10_000);
        const hit = await submit(urls[k]!, cookie, body, 10_000);
        const mr = miss.json.status.result;
        if (miss.http !== 200 || !mr || !miss.json.id) {
          repeatProblems.push(`#${i} on ${k}: ${miss.http} ${miss.json.id ? "job" : "no job"} ${mr?.source}`);
          continue;
        }
        if (mr.source !== "cache" || mr.upstream_calls !== 0) repeatProblems.push(`#${i} on ${k}: source ${mr.source}, ${mr.upstream_calls} calls`);
        else sharedAnswers++;
        if (hit.json.id || hit.json.status.result?.source !== "cache") repeatProblems.push(`#${i} on ${k}: the second ask was not a memory hit`);
        sharedMiss.push(miss.ms);
        sameHit.push(hit.ms);
        added.push(miss.ms - hit.ms);
      }
    }
    await sleep(500);
    const repeatCalls = reportingCalls(env.client.client_id).length - repeatCallsBefore;
    const repeatDataLines = serviceLog.slice(repeatLinesBefore).filter((l) => l.msg === "request" && REPORTING_PATHS.has(l.path ?? "")).length;
    claim(
      "a report repeated on another instance after it was fetched costs no upstream call",
      repeatCalls === 0 && repeatDataLines === 0 && repeatProblems.length === 0,
      `${sharedAnswers} asks of the 30 session reports on the 2 instances that had not fetched them, all answered from the shared cache; ` +
        `service reporting-call log lines before/after: ${repeatCallsBefore}/${repeatCallsBefore + repeatCalls} (+${repeatCalls})` +
        (repeatProblems.length ? `; problems: ${repeatProblems.join("; ")}` : ""),
    );

    // ---- 3. Cache hits: one report through instance 0 (PostgreSQL) and through the PGlite
    // dashboard, alternating which goes first. Session report 0 was fetched through instance 0.
    const hitBody = sessionBodies[0]!;
    const warmPglite = await submit(pgliteUrl, pgliteCookie, hitBody, 10_000);
    if (warmPglite.json.status.result?.source !== "upstream") throw new Error(`PGlite warm-up: ${JSON.stringify(warmPglite.json).slice(0, 300)}`);
    const hitOnce = async (base: string, c: string) => {
      const r = await submit(base, c, hitBody, 10_000);
      if (r.http !== 200 || r.json.id || r.json.status.result?.source !== "cache") throw new Error(`expected a cache hit at ${base}, got ${JSON.stringify(r.json).slice(0, 200)}`);
      return r.ms;
    };
    for (let i = 0; i < WARM_UPS; i++) {
      await hitOnce(urls[0]!, cookie);
      await hitOnce(pgliteUrl, pgliteCookie);
    }
    const pgHits: number[] = [];
    const pgliteHits: number[] = [];
    for (let i = 0; i < HITS; i++) {
      if (i % 2 === 0) {
        pgHits.push(await hitOnce(urls[0]!, cookie));
        pgliteHits.push(await hitOnce(pgliteUrl, pgliteCookie));
      } else {
        pgliteHits.push(await hitOnce(pgliteUrl, pgliteCookie));
        pgHits.push(await hitOnce(urls[0]!, cookie));
      }
    }
    const hitAdded = median(pgHits) - median(pgliteHits);
    claim(
      `shared state adds ≤ ${HIT_TARGET_MS} ms to a cache hit (p50)`,
      hitAdded <= HIT_TARGET_MS,
      `p50 ${median(pgHits).toFixed(1)} ms on PostgreSQL vs ${median(pgliteHits).toFixed(1)} ms on PGlite (${hitAdded >= 0 ? "+" : ""}${hitAdded.toFixed(1)} ms)`,
    );

    // ---- 4. Kill an instance mid-fetch. A multi-page report (the other client measures its size).
    const candidates = [
      { start_date: addDays(end, -69), end_date: end, group_by: ["date", "bin"], metrics: ["attempts", "revenue"] },
      { start_date: addDays(end, -39), end_date: end, group_by: ["date", "bin"], metrics: ["attempts", "revenue"] },
      { start_date: addDays(end, -99), end_date: end, group_by: ["date", "bin"], metrics: ["attempts", "revenue"] },
    ];
    let killBody = candidates[0]!;
    let killPages = 0;
    for (const c of candidates) {
      const pages = Math.ceil((await direct(c, 1, 0)).pagination.total / 1000);
      if (pages >= 4 && pages <= 12) {
        killBody = c;
        killPages = pages;
        break;
      }
      if (Math.abs(pages - 7) < Math.abs(killPages - 7)) {
        killBody = c;
        killPages = pages;
      }
    }
    const victim = 2; // instances are numbered from 1 in what is printed: this is the third
    const survivor = 0;
    const killCallsBefore = reportingCalls(env.client.client_id).length;
    const started = await submit(urls[victim]!, cookie, killBody, 0);
    const killId = started.json.id;
    if (!killId) throw new Error(`the multi-page report did not start a job: ${JSON.stringify(started.json).slice(0, 300)}`);
    let atKill: Status | null = null;
    for (let i = 0; i < 1200; i++) {
      const s = (await poll(urls[victim]!, killId, 0)).json.status;
      if (s.state === "fetching" && (s.call ?? 0) >= 2) {
        atKill = s;
        break;
      }
      if (s.state === "done" || s.state === "failed") throw new Error(`the multi-page report finished before the kill: ${s.state}`);
      await sleep(25);
    }
    if (!atKill) throw new Error("the multi-page report never reached its second call");
    const victimPid = instances[victim]!.pid!;
    instances[victim]!.kill("SIGKILL");
    const killedAt = performance.now();
    const callsAtKill = reportingCalls(env.client.client_id).length - killCallsBefore;
    // The job's row, watched from here: when its instance changes (taken over), and by whom.
    const takeover: { after: number | null; by: string } = { after: null, by: "" };
    const rowsDb = db;
    const watcher = (async () => {
      while (takeover.after === null && performance.now() - killedAt < 120_000) {
        const { rows } = await rowsDb.query<{ instance: string }>("SELECT instance FROM report_jobs WHERE id = $1", [killId]);
        const inst = rows[0]?.instance ?? "";
        if (inst && !inst.includes(`:${victimPid}:`)) {
          takeover.after = performance.now() - killedAt;
          takeover.by = inst;
        } else await sleep(50);
      }
    })();
    let final: Status | null = null;
    let finalHttp = 0;
    let killPolls = 0;
    while (performance.now() - killedAt < 180_000) {
      const r = await poll(urls[survivor]!, killId, 2000);
      killPolls++;
      finalHttp = r.http;
      if (r.http !== 200) break;
      if (["done", "failed", "cancelled"].includes(r.json.status.state)) {
        final = r.json.status;
        break;
      }
    }
    const settledAfter = performance.now() - killedAt;
    await watcher;
    await sleep(500);
    const killCalls = reportingCalls(env.client.client_id).length - killCallsBefore;
    let killEqual = false;
    if (final?.state === "done" && final.result) killEqual = canonical(final.result.data) === canonical(await directAll(killBody));
    const survivorPid = instances[survivor]!.pid!;
    const takeoverOk = takeover.after !== null && takeover.after <= (LEASE_S + TAKEOVER_MARGIN_S) * 1000;
    const endedOk =
      (final?.state === "done" && killEqual) || (final?.state === "failed" && /instance that was fetching this report stopped/.test(final.error?.message ?? ""));
    claim(
      "an instance killed mid-fetch leaves no job stuck",
      endedOk && (final?.state === "failed" || takeoverOk),
      `${killPages}-page report (${JSON.stringify(killBody.group_by)}, ${killBody.start_date}..${killBody.end_date}); killed at call ${atKill.call} of ${atKill.calls}` +
        ` (${callsAtKill} calls logged by then); polled on instance ${survivor + 1}: ${final ? final.state : `HTTP ${finalHttp}`} after ${(settledAfter / 1000).toFixed(1)} s (${killPolls} polls);` +
        ` taken over after ${takeover.after === null ? "never" : `${(takeover.after / 1000).toFixed(1)} s`} by ${takeover.by.includes(`:${survivorPid}:`) ? `instance ${survivor + 1}` : takeover.by || "nobody"}` +
        ` (lease ${LEASE_S} s + ${TAKEOVER_MARGIN_S} s allowed); ${final?.state === "done" ? `answer ${killEqual ? "equal to" : "DIFFERENT from"} the service's (${final.result?.total} records, ${final.result?.upstream_calls} calls after the takeover)` : final?.error?.message ?? ""}`,
    );

    // ---- The quota over the whole run, from the service's own log: the three instances' client.
    await sleep(500);
    const all = reportingCalls(env.client.client_id);
    const arrivals = all.map((l) => Date.parse(l.ts) - (l.duration_ms ?? 0)).sort((a, b) => a - b);
    const tightest = (from: number[]) => {
      let span = Infinity;
      for (let i = 0; i + LIMIT < from.length; i++) span = Math.min(span, from[i + LIMIT]! - from[i]!);
      return span;
    };
    const sessionArrivals = sessionCalls.map((l) => Date.parse(l.ts) - (l.duration_ms ?? 0)).sort((a, b) => a - b);
    const statuses429 = serviceLog.filter((l) => l.msg === "request" && l.status === 429 && l.client_id === env.client.client_id).length;
    const span = tightest(arrivals);
    claim(
      `no ${LIMIT + 1} reporting calls within ${WINDOW_S} s, no 429`,
      span >= WINDOW_S * 1000 && statuses429 === 0,
      `${all.length} reporting calls from the three instances over the run (${sessionCalls.length} in the session); tightest span of ${LIMIT + 1} consecutive arrivals ${(span / 1000).toFixed(2)} s over the run, ` +
        `${(tightest(sessionArrivals) / 1000).toFixed(2)} s in the session (the instances keep ${WINDOW_S} s + 0.5 s); 429s: ${statuses429}`,
    );

    const { rows: open } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM report_jobs WHERE finished_at IS NULL");
    const pgliteDirsMade = [0, 1, 2].filter((i) => existsSync(`${DIR}/unused-pglite-${i}`)).length;
    claim("no job row left unfinished; no instance opened a PGlite store", open[0]!.n === 0 && pgliteDirsMade === 0, `${open[0]!.n} unfinished rows in report_jobs; ${pgliteDirsMade} PGlite directories made`);

    const date = new Date().toISOString();
    const perJob = polled.map((p) => p.ms);
    console.log(`### Dashboard instances on PostgreSQL (${date.slice(0, 10)})

Command: \`npx next build && npm run bench:instances\` (\`bench/instances.ts\`), run at ${date.slice(11, 16)} UTC.
Machine: ${machine()}. A throwaway PostgreSQL cluster, the real service (150 days × 60 orders/day,
${LIMIT} reporting calls per ${WINDOW_S} s per client), three \`next start\` instances on that PostgreSQL
(UPSTREAM_REPORT_RATE_LIMIT=${LIMIT}, UPSTREAM_RATE_WINDOW_SECONDS=${WINDOW_S}, one NEXTAUTH_SECRET, signed
in on one) and one on PGlite beside them (its own API client), all on loopback.

| claim | result | held |
|---|---|:---:|
${claims.map((c) => `| ${c.name} | ${c.detail.replace(/\|/g, "\\|")} | ${c.held ? "yes" : "**no**"} |`).join("\n")}

| measure | result |
|---|---:|
| session: 30 reports, first submit → last done | ${(sessionMs / 1000).toFixed(1)} s |
| session: submit → done per report, median / max | ${(median(perJob) / 1000).toFixed(1)} / ${(Math.max(...perJob) / 1000).toFixed(1)} s |
| session: answers' sources where polled | ${[...new Set(sessionSources)].map((s) => `${s} × ${sessionSources.filter((x) => x === s).length}`).join(", ")} |
| cache hit through an instance on PostgreSQL, p50 / p95 (${HITS}, alternating) | ${median(pgHits).toFixed(1)} / ${percentile(pgHits, 95).toFixed(1)} ms |
| cache hit through the dashboard on PGlite, p50 / p95 | ${median(pgliteHits).toFixed(1)} / ${percentile(pgliteHits, 95).toFixed(1)} ms |
| added by shared state to a cache hit, p50 / p95 | ${hitAdded.toFixed(1)} / ${(percentile(pgHits, 95) - percentile(pgliteHits, 95)).toFixed(1)} ms (target ≤ ${HIT_TARGET_MS} ms at p50: ${hitAdded <= HIT_TARGET_MS ? "met" : "**not met**"}) |
| miss answered from the shared cache (another instance fetched it), p50 / p95 of ${sharedMiss.length} | ${median(sharedMiss).toFixed(1)} / ${percentile(sharedMiss, 95).toFixed(1)} ms |
| the same request right after on that instance (memory hit), p50 | ${median(sameHit).toFixed(1)} ms |
| added by a miss answered from the shared cache over a memory hit, median / p95 of the differences | ${median(added).toFixed(1)} / ${percentile(added, 95).toFixed(1)} ms |
| kill mid-fetch: calls the killed instance had made / calls for the report in all | ${callsAtKill} / ${killCalls} |
`);
  } finally {
    await db?.end().catch(() => undefined);
    await stopAll();
    await postgres?.stop();
  }
  if (claims.some((c) => !c.held)) process.exitCode = 1;
}

main().catch(async (e: unknown) => {
  console.error(e);
  await stopAll();
  process.exit(1);
});
