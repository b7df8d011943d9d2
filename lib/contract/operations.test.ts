// One home for each operation: no file outside lib/contract spells an operation's service or
// dashboard path, its label or its success message (tests and the e2e suite, which call the real
// paths on purpose, aside).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { OPERATION_ROWS } from "./operations";

const root = join(import.meta.dirname, "../..");
const DIRS = ["app", "bench", "components", "lib", "scripts", "service"];

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (/\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name)) out.push(p);
  }
  return out;
}

describe("the operation table", () => {
  const files = DIRS.flatMap((d) => sources(join(root, d))).filter((f) => !relative(root, f).startsWith("lib/contract/"));
  const spelled = OPERATION_ROWS.flatMap((o) => [`"${o.servicePath}"`, `"${o.dashboardPath}"`, `\`${o.servicePath}\``, `"${o.label}"`, `"${o.message}"`]);

  it("is the only place an operation's path, label or message is written", () => {
    const found: string[] = [];
    for (const f of files) {
      const text = readFileSync(f, "utf8");
      for (const s of spelled) if (text.includes(s)) found.push(`${relative(root, f)}: ${s}`);
    }
    expect(found).toEqual([]);
  });

  it("has a row for every operation, with distinct paths", () => {
    expect(OPERATION_ROWS.map((o) => o.op)).toEqual(["orders", "cohort"]);
    const paths = OPERATION_ROWS.flatMap((o) => [o.servicePath, o.dashboardPath]);
    expect(new Set(paths).size).toBe(paths.length);
  });
});
