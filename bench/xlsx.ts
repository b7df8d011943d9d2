// Workbook benchmark: `npm run bench:xlsx`.
// Each case runs in a Node process of its own, so its peak resident memory (VmHWM) is its own:
//  - a six-tile dashboard (two tables, two pivots, a retention grid, a table by gateway) as one
//    workbook, 20 times: median and slowest time to the finished file, and the file's size;
//  - an Explore table of 100,000 rows (100 days × 1,000 BINs, six measures and the Maturing column)
//    to one workbook: time, the memory held before writing (records, table, sheet) and the peak.
// Both writers: exceljs's streaming WorkbookWriter (the server's: scheduled attachments) and its
// in-memory Workbook (the browser's downloads; exceljs's browser build has no streaming writer).
import { spawnSync } from "node:child_process";
import { Writable } from "node:stream";
import ExcelJS from "exceljs";
import type { ReportRecord } from "../lib/contract/schemas";
import { dashboardWorkbook, tileCsvSource } from "../lib/features/dashboards/tile-csv";
import { buildReportView } from "../lib/report/periods/view";
import { tableSheet } from "../lib/report/table/csv";
import { buildViewTable } from "../lib/report/table/table";
import { singleTableBook, writeWorkbook, type WorkbookSpec } from "../lib/report/table/xlsx";
import { streamWorkbook } from "../lib/report/table/xlsx-stream";
import { drawnTiles } from "../lib/features/dashboards/testing/tiles";
import { machine, median, peakRssMiB } from "./lib";

const CASES = ["dashboard:stream", "dashboard:memory", "rows:stream", "rows:memory"] as const;
type Case = (typeof CASES)[number];
const ROWS = 100_000;
const DASHBOARD_RUNS = 20;

interface Result {
  case: Case;
  ms: number[];
  bytes: number;
  rows: number;
  heldMiB: number;
  peakMiB: number;
}

/** Bytes written, nothing kept. */
function counter(): { sink: Writable; bytes: () => number } {
  let n = 0;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      n += chunk.length;
      done();
    },
  });
  return { sink, bytes: () => n };
}

async function write(spec: WorkbookSpec, how: "stream" | "memory"): Promise<number> {
  if (how === "stream") {
    const { sink, bytes } = counter();
    await streamWorkbook(spec, sink);
    return bytes();
  }
  const book = new ExcelJS.Workbook();
  await writeWorkbook({ addWorksheet: (name, options) => book.addWorksheet(name, options), streaming: false }, spec);
  return (await book.xlsx.writeBuffer()).byteLength;
}

function dashboardSpec(): WorkbookSpec {
  const ctx = { dashboard: "Finance · monthly", timeZone: "Europe/Berlin", filters: "none" };
  const sources = drawnTiles().flatMap((t) => tileCsvSource(t, ctx) ?? []);
  return dashboardWorkbook(sources, { ...ctx, range: "2026-04-01 to 2026-05-31", comparison: "none", grain: "Day", generatedAt: "2026-06-30 10:00:00 Europe/Berlin" });
}

function rowsSpec(): { spec: WorkbookSpec; rows: number } {
  const days = Array.from({ length: ROWS / 1000 }, (_, i) => new Date(Date.UTC(2026, 2, 1) + i * 86_400_000).toISOString().slice(0, 10));
  const records: ReportRecord[] = [];
  for (const [d, date] of days.entries())
    for (let b = 0; b < 1000; b++) {
      const attempts = 20 + ((d * 7 + b) % 50);
      records.push({ date, bin: String(400000 + b * 37), attempts, approvals: Math.floor(attempts * 0.7), revenue: attempts * 31.17, cb_count: b % 3, cb_amount: (b % 3) * 42.5, refund_amount: (b % 5) * 10 });
    }
  const range = { start: days[0]!, end: days.at(-1)! };
  const view = buildReportView({ op: "orders", groupBy: ["date", "bin"], metrics: ["attempts", "approvals", "revenue", "cb_count", "cb_amount", "refund_amount"], grain: "day", range, records });
  const model = buildViewTable({ op: "orders", groupBy: ["date", "bin"], measures: ["attempts", "approvals", "revenue", "approval_rate", "cb_rate_count", "net_revenue"] }, view, { today: "2026-06-10" });
  const sheet = tableSheet(model, model.rows, { lines: [["Range", `${range.start} to ${range.end}`], ["Timezone", "UTC"]] });
  return { spec: singleTableBook("Order summary", sheet), rows: sheet.rows.length };
}

async function runCase(c: Case): Promise<Result> {
  const [what, how] = c.split(":") as ["dashboard" | "rows", "stream" | "memory"];
  const { spec, rows } = what === "dashboard" ? { spec: dashboardSpec(), rows: 0 } : rowsSpec();
  const count = spec.sheets.reduce((n, s) => n + s.sheet.rows.length, 0);
  global.gc?.();
  const heldMiB = process.memoryUsage().rss / 2 ** 20;
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < (what === "dashboard" ? DASHBOARD_RUNS : 1); i++) {
    const t0 = performance.now();
    bytes = await write(spec, how);
    ms.push(performance.now() - t0);
  }
  return { case: c, ms, bytes, rows: rows || count, heldMiB, peakMiB: peakRssMiB(process.pid) };
}

const mib = (n: number) => `${n.toFixed(0)} MiB`;

async function main(): Promise<void> {
  const only = process.argv.indexOf("--case");
  if (only >= 0) {
    const c = process.argv[only + 1] as Case;
    if (!CASES.includes(c)) throw new Error(`unknown case ${c}`);
    process.stdout.write(JSON.stringify(await runCase(c)));
    return;
  }
  console.log(`Workbooks (exceljs), ${machine()}`);
  console.log("| case | rows | time | file | held before writing | peak memory |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const c of CASES) {
    const out = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", "bench/xlsx.ts", "--case", c], { encoding: "utf8", maxBuffer: 1 << 20 });
    if (out.status !== 0) throw new Error(`${c} failed: ${out.stderr}`);
    const r = JSON.parse(out.stdout) as Result;
    const time = r.ms.length > 1 ? `median ${median(r.ms).toFixed(0)} ms (slowest ${Math.max(...r.ms).toFixed(0)} ms, ${r.ms.length} runs)` : `${(r.ms[0]! / 1000).toFixed(1)} s`;
    console.log(`| ${c} | ${r.rows.toLocaleString("en-US")} | ${time} | ${(r.bytes / 2 ** 20).toFixed(2)} MiB | ${mib(r.heldMiB)} | ${mib(r.peakMiB)} |`);
  }
}

await main();
