/**
 * Where a run of `npm test` spent its time, read from its output (`npm test > run.log 2>&1`, or
 * `.ci/run`'s): each step's seconds, the ten slowest unit files (their time as vitest reports it) and
 * the ten slowest browser specs (their tests' times summed over the workers), with the counts of
 * tests. With an ASSERTION_LOG file of the same run (test/setup.ts, e2e/support/assertion-reporter.ts)
 * it adds the count of assertions made.
 *
 *   npx tsx scripts/suite-times.ts run.log [assertions.tsv]
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

export interface SuiteTimes {
  steps: { step: string; seconds: number }[];
  unitFiles: { file: string; tests: number; seconds: number }[];
  browserSpecs: { file: string; tests: number; seconds: number }[];
  unitTests: number | null;
  browserTests: number | null;
  failed: string[];
}

const ANSI = /\x1b\[[0-9;]*m/g;

/** Playwright's "(850ms)", "(4.6s)", "(1.2m)" in seconds. */
function playwrightSeconds(s: string): number {
  const m = /^([\d.]+)(ms|s|m)$/.exec(s);
  if (!m) return 0;
  const n = Number(m[1]);
  return m[2] === "ms" ? n / 1000 : m[2] === "m" ? n * 60 : n;
}

export function suiteTimes(log: string): SuiteTimes {
  const steps: SuiteTimes["steps"] = [];
  const unit = new Map<string, { tests: number; seconds: number }>();
  const browser = new Map<string, { tests: number; seconds: number }>();
  let unitTests: number | null = null;
  let browserTests: number | null = null;
  const failed: string[] = [];
  for (const raw of log.split("\n")) {
    const line = raw.replace(ANSI, "");
    let m: RegExpExecArray | null;
    if ((m = /^── npm run (lint|typecheck) \(exit \d+, (\d+) s\)/.exec(line))) steps.push({ step: m[1]!, seconds: Number(m[2]) });
    else if ((m = /^── (servers ready|lint and types done|all done) after (\d+) s/.exec(line))) steps.push({ step: m[1]!, seconds: Number(m[2]) });
    else if ((m = /^\[(unit|browser)\] exit \d+ after (\d+) s/.exec(line))) steps.push({ step: m[1]!, seconds: Number(m[2]) });
    else if ((m = /^\[browser\] ✓ Compiled successfully in ([\d.]+)(ms|s|min)/.exec(line))) steps.push({ step: "build's compile", seconds: Number(m[1]) * (m[2] === "min" ? 60 : m[2] === "ms" ? 0.001 : 1) });
    else if ((m = /^real\s+(\d+)m([\d.]+)s/.exec(line))) steps.push({ step: "whole command", seconds: Math.round(Number(m[1]) * 60 + Number(m[2])) });
    else if ((m = /^\[unit\]\s+[✓❯×] (\S+\.test\.ts) \((\d+) tests?(?: \| [^)]*)?\) (\d+)ms/.exec(line))) unit.set(m[1]!, { tests: Number(m[2]), seconds: Number(m[3]) / 1000 });
    else if ((m = /^\[unit\]\s+Tests\s+(?:\d+ failed \| )?(\d+) passed/.exec(line))) unitTests = Number(m[1]);
    else if ((m = /^\[browser\]\s+([✓✘-])\s+\d+ \[[^\]]+\] › (e2e\/[^:]+):\d+:\d+ › .* \(([\d.]+(?:ms|s|m))\)$/.exec(line))) {
      const e = browser.get(m[2]!) ?? { tests: 0, seconds: 0 };
      e.tests += 1;
      e.seconds += playwrightSeconds(m[3]!);
      browser.set(m[2]!, e);
      if (m[1] === "✘") failed.push(line.replace(/^\[browser\]\s+/, ""));
    } else if ((m = /^\[browser\]\s+(\d+) passed/.exec(line))) browserTests = Number(m[1]);
    else if (/^\[unit\]\s+(×|FAIL)\s/.test(line)) failed.push(line.replace(/^\[unit\]\s+/, ""));
  }
  const slowest = (map: Map<string, { tests: number; seconds: number }>) =>
    [...map].map(([file, e]) => ({ file, ...e })).sort((a, b) => b.seconds - a.seconds).slice(0, 10);
  return { steps, unitFiles: slowest(unit), browserSpecs: slowest(browser), unitTests, browserTests, failed };
}

/** An ASSERTION_LOG's lines (`assertions \t tests \t file`) summed: unit files and browser specs apart. */
export function assertionCounts(tsv: string): { unit: { assertions: number; tests: number }; browser: { assertions: number; tests: number } } {
  const out = { unit: { assertions: 0, tests: 0 }, browser: { assertions: 0, tests: 0 } };
  for (const line of tsv.split("\n")) {
    const [a, t, file] = line.split("\t");
    if (!file) continue;
    const side = file.startsWith("e2e/") ? out.browser : out.unit;
    side.assertions += Number(a);
    side.tests += Number(t);
  }
  return out;
}

function main(): void {
  const [logPath, assertionPath] = process.argv.slice(2);
  if (!logPath) {
    console.error("usage: npx tsx scripts/suite-times.ts <npm test output> [ASSERTION_LOG file]");
    process.exit(2);
  }
  const t = suiteTimes(readFileSync(logPath, "utf8"));
  console.log("| step | s |\n|---|---:|");
  for (const s of t.steps) console.log(`| ${s.step} | ${s.seconds} |`);
  console.log(`\nunit tests passed: ${t.unitTests ?? "?"}; browser tests passed: ${t.browserTests ?? "?"}`);
  if (assertionPath) {
    const c = assertionCounts(readFileSync(assertionPath, "utf8"));
    console.log(`assertions made: unit ${c.unit.assertions} in ${c.unit.tests} tests; browser ${c.browser.assertions} in ${c.browser.tests} tests`);
  }
  console.log("\n| unit file | tests | s |\n|---|---:|---:|");
  for (const f of t.unitFiles) console.log(`| ${f.file} | ${f.tests} | ${Math.round(f.seconds)} |`);
  console.log("\n| browser spec | tests | s (summed over workers) |\n|---|---:|---:|");
  for (const f of t.browserSpecs) console.log(`| ${f.file} | ${f.tests} | ${Math.round(f.seconds)} |`);
  if (t.failed.length) console.log(`\nfailed:\n${t.failed.join("\n")}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) main();
