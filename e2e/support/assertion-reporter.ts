/**
 * With ASSERTION_LOG set, the browser tests append to it, per spec file, how many assertions their
 * tests made as they ran (Playwright's `expect` steps, soft ones included), how many tests ran and
 * the file: the same line as the unit tests' (test/setup.ts), so one log counts the suite. An
 * `expect.poll` or `toPass` counts once: the steps nested in it are its tries, as many as the
 * machine's speed made, and counting them would make the count vary from run to run.
 */
import { appendFileSync } from "node:fs";
import { relative } from "node:path";
import type { Reporter, TestCase, TestResult, TestStep } from "@playwright/test/reporter";

export default class AssertionReporter implements Reporter {
  private readonly perFile = new Map<string, { assertions: number; tests: Set<string> }>();

  private entry(test: TestCase) {
    const file = relative(process.cwd(), test.location.file);
    let e = this.perFile.get(file);
    if (!e) this.perFile.set(file, (e = { assertions: 0, tests: new Set() }));
    return e;
  }

  onStepEnd(test: TestCase, _result: TestResult, step: TestStep): void {
    if (step.category === "expect" && step.parent?.category !== "expect") this.entry(test).assertions += 1;
  }

  onTestEnd(test: TestCase): void {
    this.entry(test).tests.add(test.id);
  }

  onEnd(): void {
    const log = process.env.ASSERTION_LOG;
    if (!log) return;
    for (const [file, e] of this.perFile) appendFileSync(log, `${e.assertions}\t${e.tests.size}\t${file}\n`);
  }
}
