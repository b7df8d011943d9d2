// Runs before every unit test file (vitest.config.ts, setupFiles), in that file's own module graph.
import { appendFileSync } from "node:fs";
import { relative } from "node:path";
import { afterAll, afterEach, expect } from "vitest";
import { setPasswordCost } from "@/lib/core/auth/password";

// Passwords hashed at scrypt's cheapest accepted cost (N = 2^10, a thirty-second of the production
// N): the tests that sign people in, lock them out or make accounts check what is done with a hash,
// not what it costs. lib/core/auth/password.test.ts sets the production cost back and tests it.
setPasswordCost({ ln: 10, r: 8, p: 1 });

// With FILE_CPU_LOG set, each file appends to it the CPU seconds its process used and its path:
// where the unit suite's CPU goes, per file (docs/testing.md). Each file runs in a process of its
// own (pool "forks"), so that is its import, setup and tests, not the servers or commands it starts.
const cpuLog = process.env.FILE_CPU_LOG;
if (cpuLog) {
  afterAll(() => {
    const { user, system } = process.cpuUsage();
    appendFileSync(cpuLog, `${((user + system) / 1e6).toFixed(2)}\t${relative(process.cwd(), expect.getState().testPath ?? "?")}\n`);
  });
}

// With ASSERTION_LOG set, each file appends to it how many assertions its tests made as they ran
// (expect calls, counted by vitest), how many tests ran and its path: the suite's count before and
// after a change that moves or merges tests (docs/testing.md, "Counting tests and assertions").
const assertionLog = process.env.ASSERTION_LOG;
if (assertionLog) {
  let assertions = 0;
  let tests = 0;
  afterEach(() => {
    assertions += expect.getState().assertionCalls;
    tests += 1;
  });
  afterAll(() => {
    appendFileSync(assertionLog, `${assertions}\t${tests}\t${relative(process.cwd(), expect.getState().testPath ?? "?")}\n`);
  });
}
