// Explore's long-table workbook on the server: `npm run bench:explore-xlsx`.
// The dashboard's side of POST /api/reports/explore-xlsx (lib/report/export/explore-xlsx.ts) for a
// 100,000-row table: 100 days × 1,000 BINs by date and BIN, six measures and the Maturing column.
// The answer is in the gateway's cache, as it is when the page has just shown the table, so no
// upstream call is made and what is measured is the dashboard process alone: resolving the question,
// the view, table model and sheet, and exceljs's streaming writer into the response, whose body is
// read to the end and counted (nothing kept). Each run is a Node process of its own (its VmHWM is
// its own); five runs, medians. "held" is the process's resident memory with the answer cached,
// before the request; "peak" its high-water mark after the body is read; heap the largest V8 heap
// in use sampled while the body is written.
import { spawnSync } from "node:child_process";
import type { ReportRecord } from "../lib/contract/schemas";
import { ReportGateway } from "../lib/core/upstream/gateway";
import { exploreLook } from "../lib/report/state/explore";
import { exploreWorkbookResponse } from "../lib/report/export/explore-xlsx";
import { machine, median, peakRssMiB } from "./lib";

const RUNS = 5;
const DAYS = 100;
const BINS = 1_000;
const START = "2026-03-01";
const TODAY = "2026-06-10";
const SEARCH = `op=orders&range=${START}..2026-06-08&by=date,bin&m=attempts,approvals,revenue&kpi=approval_rate,cb_rate_count,net_revenue&sort=-revenue`;

interface Run {
  rows: number;
  bytes: number;
  ms: number;
  heldMiB: number;
  peakMiB: number;
  heapPeakMiB: number;
}

const mib = (n: number) => n / 2 ** 20;

async function once(): Promise<Run> {
  const gateway = new ReportGateway({
    baseUrl: "http://127.0.0.1:9", // never called: the answer is cached
    clientId: "bench",
    clientSecret: "bench-client-secret-0123456789abcdef",
    accessToken: "bench-access-token-0123456789abcdef",
    reportRateLimit: 5,
    rateWindowSeconds: 60,
    pageCap: 50,
    ttlPastSeconds: 86_400,
    ttlTodaySeconds: 300,
    timeZone: "UTC",
    cacheMaxBytes: 1024 * 2 ** 20,
  });
  const look = exploreLook(SEARCH, TODAY);
  if (!look.spec) throw new Error(`the bench's URL runs nothing: ${JSON.stringify(look.problems)}`);
  const query = gateway.parse(look.spec.op, look.spec.request);
  const days = Array.from({ length: DAYS }, (_, i) => new Date(Date.parse(`${START}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10));
  const records: ReportRecord[] = [];
  for (const [d, date] of days.entries())
    for (let b = 0; b < BINS; b++) {
      const attempts = 20 + ((d * 7 + b) % 50);
      const r: ReportRecord = { date, bin: String(400000 + b * 37) };
      for (const m of query.metrics ?? []) r[m] = m === "attempts" ? attempts : m === "approvals" ? Math.floor(attempts * 0.7) : ((d + b) % 13) * 3.25;
      records.push(r);
    }
  gateway["cache"].store(look.spec.op, query, records, 100);
  global.gc?.();
  const heldMiB = mib(process.memoryUsage().rss);
  let heapPeak = process.memoryUsage().heapUsed;
  const sampler = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 20);
  const t0 = performance.now();
  const res = await exploreWorkbookResponse(SEARCH, { gateway, owner: "bench", timeZone: "UTC", waitMs: 0, now: () => new Date(`${TODAY}T12:00:00Z`) });
  if (res.status !== 200 || !res.body) throw new Error(`answered ${res.status}: ${await res.text()}`);
  let bytes = 0;
  const reader = res.body.getReader();
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    bytes += part.value.byteLength;
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  }
  const ms = performance.now() - t0;
  clearInterval(sampler);
  return { rows: records.length, bytes, ms, heldMiB, peakMiB: peakRssMiB(process.pid), heapPeakMiB: mib(heapPeak) };
}

async function main(): Promise<void> {
  if (process.argv.includes("--once")) {
    process.stdout.write(JSON.stringify(await once()));
    return;
  }
  const runs: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    const out = spawnSync(process.execPath, ["--expose-gc", "--conditions=react-server", "--import", "tsx", "bench/explore-xlsx.ts", "--once"], { encoding: "utf8", maxBuffer: 1 << 20 });
    if (out.status !== 0) throw new Error(`run ${i + 1} failed: ${out.stderr}`);
    runs.push(JSON.parse(out.stdout) as Run);
  }
  const m = (f: (r: Run) => number) => median(runs.map(f));
  const range = (f: (r: Run) => number) => `${Math.min(...runs.map(f)).toFixed(0)}–${Math.max(...runs.map(f)).toFixed(0)}`;
  console.log(`Explore workbook on the server, ${runs[0]!.rows.toLocaleString("en-US")} rows, ${RUNS} runs, ${machine()}`);
  console.log("| measure | median | range |");
  console.log("|---|---:|---:|");
  console.log(`| time to the last byte | ${(m((r) => r.ms) / 1000).toFixed(1)} s | ${range((r) => r.ms / 1000)} s |`);
  console.log(`| file | ${mib(m((r) => r.bytes)).toFixed(1)} MiB | |`);
  console.log(`| resident, answer cached, before the request | ${m((r) => r.heldMiB).toFixed(0)} MiB | ${range((r) => r.heldMiB)} MiB |`);
  console.log(`| resident peak (VmHWM) | ${m((r) => r.peakMiB).toFixed(0)} MiB | ${range((r) => r.peakMiB)} MiB |`);
  console.log(`| added by the workbook (peak − held) | ${m((r) => r.peakMiB - r.heldMiB).toFixed(0)} MiB | ${range((r) => r.peakMiB - r.heldMiB)} MiB |`);
  console.log(`| V8 heap in use, peak | ${m((r) => r.heapPeakMiB).toFixed(0)} MiB | ${range((r) => r.heapPeakMiB)} MiB |`);
}

await main();
