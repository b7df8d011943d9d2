// PDF benchmark: `npm run bench:pdf` after `npx next build`.
// A six-tile dashboard (three KPIs, a trend chart, a breakdown by gateway, a month × card brand
// pivot, over the last 30 days) saved, then downloaded as PDF from GET /api/saved-reports/<id>/pdf
// as the signed-in analyst's browser would:
//  1. First: the dashboard's data not yet fetched and Chromium not yet started (both counted in).
//  2. Warm: the same PDF again, RUNS times after one warm-up: the data cached, the browser kept open,
//     each time a fresh browser context, the print view drawn and printed.
// Memory: the peak resident size (VmHWM) of the dashboard's server process, and of the Chromium it
// started (the sum of its processes' peaks, read before the browser closes after its idle minute).
// Every PDF is read back with pdftotext: its pages, and each tile's title on them.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { havePoppler, pdfPages } from "../lib/core/pdf/testing/poppler";
import { machine, median, peakRssMiB, percentile } from "./lib";
import { startStack } from "./stack";

const DIR = ".bench-pdf";
// Ports of our own: the e2e suite uses 4100/3100, bench:ui 4800/3800, bench:dashboards 4830/3830.
const PORTS = [4840, 3840] as const;
const RUNS = Number(process.env.BENCH_PDF_RUNS ?? 10);

const TILES = [
  "kpi.1|op=orders&range=last30&by=date&m=revenue|Revenue",
  "kpi.1|op=orders&range=last30&by=date&m=attempts|Attempts",
  "kpi.1|op=orders&range=last30&by=date&m=approvals|Approvals",
  "chart.4|op=orders&range=last30&by=date&m=revenue,attempts,approvals&kpi=approval_rate&chart=line|Revenue trend",
  "table.2|op=orders&range=last30&by=gateway_alias&m=revenue,attempts,approvals&kpi=approval_rate&sort=-revenue|By gateway",
  "pivot.2|op=orders&range=last30&by=date,card_brand&grain=month&m=revenue&table=pivot|By month and brand",
];
const TITLES = ["Revenue", "Attempts", "Approvals", "Revenue trend", "By gateway", "By month and brand"];

/** Every process descended from `root`, with its command line. */
function descendants(root: number): { pid: number; cmd: string }[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      /* gone */
    }
  }
  const out: { pid: number; cmd: string }[] = [];
  const walk = (p: number) => {
    for (const [pid, pp] of parent) {
      if (pp !== p) continue;
      let cmd = "";
      try {
        cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      } catch {
        /* gone */
      }
      out.push({ pid, cmd });
      walk(pid);
    }
  };
  walk(root);
  return out;
}

async function main(): Promise<void> {
  if (!havePoppler()) throw new Error("bench:pdf reads the PDFs back with poppler: apt-get install poppler-utils");
  const stack = await startStack(DIR, PORTS[0], PORTS[1]);
  try {
    const base = stack.env.dashboardUrl;
    const params = `range=last30&${TILES.map((t) => `t=${encodeURIComponent(t)}`).join("&")}`;
    const saved = await fetch(`${base}/api/saved-reports`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: stack.cookie, origin: base },
      body: JSON.stringify({ name: "Board pack", page: "dashboard", params }),
    });
    if (saved.status !== 201) throw new Error(`saving the dashboard: ${saved.status} ${await saved.text()}`);
    const id = ((await saved.json()) as { report: { id: string } }).report.id;

    const download = async (): Promise<{ ms: number; bytes: number; pages: number; body: Buffer }> => {
      const t0 = performance.now();
      const res = await fetch(`${base}/api/saved-reports/${id}/pdf`, { headers: { cookie: stack.cookie } });
      const body = Buffer.from(await res.arrayBuffer());
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`PDF: ${res.status} ${body.toString()}`);
      const pages = pdfPages(body);
      const text = pages.join("\n");
      for (const t of TITLES) if (!text.includes(t)) throw new Error(`the PDF has no tile "${t}"`);
      return { ms, bytes: body.length, pages: pages.length, body };
    };

    const load = loadavg()[0]!.toFixed(1);
    const first = await download();
    await download(); // warm-up
    const warm: number[] = [];
    let last = first;
    for (let i = 0; i < RUNS; i++) {
      last = await download();
      warm.push(last.ms);
    }
    const procs = descendants(process.pid);
    const peak = (p: { pid: number }) => {
      try {
        const v = peakRssMiB(p.pid);
        return Number.isFinite(v) ? v : 0;
      } catch {
        return 0; // gone since it was listed
      }
    };
    // `next start` runs the server in a child process of its own: both are the dashboard's.
    const browser = procs.filter((p) => /chrom/i.test(p.cmd.split(" ")[0] ?? ""));
    const server = procs.filter((p) => /next/.test(p.cmd) && !browser.includes(p));
    const serverPeak = Math.max(0, ...server.map(peak));
    const browserPeak = browser.reduce((n, p) => n + peak(p), 0);

    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    console.log(`bench:pdf — commit ${commit}; ${machine()}; load average ${load} at the start`);
    console.log(`six-tile dashboard, A4 landscape: ${last.pages} pages, ${(last.bytes / 1024).toFixed(0)} KiB`);
    console.log(`first PDF (data fetched, Chromium started): ${(first.ms / 1000).toFixed(2)} s`);
    console.log(`warm PDF, ${RUNS} runs: median ${(median(warm) / 1000).toFixed(2)} s, p90 ${(percentile(warm, 90) / 1000).toFixed(2)} s, max ${(Math.max(...warm) / 1000).toFixed(2)} s`);
    console.log(`peak memory: dashboard server ${serverPeak.toFixed(0)} MiB (its largest process); Chromium ${browserPeak.toFixed(0)} MiB (the sum of its ${browser.length} processes' peaks)`);
    writeFileSync(`${DIR}/board-pack.pdf`, last.body);
    console.log(`the last PDF: ${DIR}/board-pack.pdf`);
  } finally {
    stack.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
