import { describe, expect, it } from "vitest";
import { assertionCounts, suiteTimes } from "./suite-times";

const LOG = [
  "── servers ready after 3 s",
  "── npm run lint (exit 0, 58 s)",
  "── npm run typecheck (exit 0, 42 s)",
  "── lint and types done after 61 s",
  "[browser] \x1b[32m✓\x1b[39m Compiled successfully in 2.1min",
  "[unit]  ✓ service/a.test.ts (29 tests) 41422ms",
  "[unit]      ✓ a test inside it  880ms",
  "[unit]  ✓ lib/b.test.ts (1 test) 341ms",
  "[unit]  ❯ lib/c.test.ts (3 tests | 1 failed) 90000ms",
  "[unit]  Test Files  1 failed | 2 passed (3)",
  "[unit]       Tests  1 failed | 32 passed (33)",
  "[unit] exit 1 after 1561 s",
  "[browser]   ✓    1 [setup] › e2e/support/auth.setup.ts:8:5 › sign in as admin on worker 0's dashboard (4.6s)",
  "[browser]   ✓  176 [sweep] › e2e/dark-mode.spec.ts:147:5 › at phone size, pass axe (2.3m)",
  "[browser]   ✓  177 [sweep] › e2e/dark-mode.spec.ts:178:1 › a modal dialog (850ms)",
  "[browser]   ✘  178 [chromium] › e2e/explore.spec.ts:12:1 › a table (30.5s)",
  "[browser]   185 passed (23.8m)",
  "[browser] exit 1 after 1658 s",
  "── all done after 1716 s",
  "real\t29m21.803s",
].join("\n");

describe("suiteTimes", () => {
  const t = suiteTimes(LOG);

  it("reads each step's seconds, in the order the run printed them", () => {
    expect(t.steps).toEqual([
      { step: "servers ready", seconds: 3 },
      { step: "lint", seconds: 58 },
      { step: "typecheck", seconds: 42 },
      { step: "lint and types done", seconds: 61 },
      { step: "build's compile", seconds: 126 },
      { step: "unit", seconds: 1561 },
      { step: "browser", seconds: 1658 },
      { step: "all done", seconds: 1716 },
      { step: "whole command", seconds: 1762 },
    ]);
  });

  it("ranks unit files by their time, a failed file among them, and browser specs by their tests' summed time", () => {
    expect(t.unitFiles.map((f) => [f.file, f.tests, f.seconds])).toEqual([
      ["lib/c.test.ts", 3, 90],
      ["service/a.test.ts", 29, 41.422],
      ["lib/b.test.ts", 1, 0.341],
    ]);
    expect(t.browserSpecs.map((f) => [f.file, f.tests, Math.round(f.seconds * 100) / 100])).toEqual([
      ["e2e/dark-mode.spec.ts", 2, 138.85],
      ["e2e/explore.spec.ts", 1, 30.5],
      ["e2e/support/auth.setup.ts", 1, 4.6],
    ]);
  });

  it("counts the tests that passed and names the failures", () => {
    expect([t.unitTests, t.browserTests]).toEqual([32, 185]);
    expect(t.failed).toEqual(["✘  178 [chromium] › e2e/explore.spec.ts:12:1 › a table (30.5s)"]);
  });
});

describe("assertionCounts", () => {
  it("sums an assertion log's lines, unit files and browser specs apart", () => {
    const tsv = "80\t15\tlib/a.test.ts\n2\t1\tservice/b.test.ts\n300\t8\te2e/dark-mode.spec.ts\n\n";
    expect(assertionCounts(tsv)).toEqual({ unit: { assertions: 82, tests: 16 }, browser: { assertions: 300, tests: 8 } });
  });
});
