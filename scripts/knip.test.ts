// The unused-export check (knip, run by `npm run lint`) fails on a deliberate dead export and a dead
// file, and passes once they are gone: a project of three files in a temporary folder, checked with
// the repository's own knip and the same options as knip.json.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = mkdtempSync(path.join(tmpdir(), "knip-check-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const knip = path.resolve("node_modules/.bin/knip");
const projectConfig = JSON.parse(readFileSync("knip.json", "utf8")) as { include: string[]; ignoreExportsUsedInFile: boolean };

function write(file: string, text: string): void {
  writeFileSync(path.join(root, file), text);
}

function check(): { status: number | null; out: string } {
  const r = spawnSync(knip, ["--no-progress", "--directory", root], { encoding: "utf8", timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe("unused exports and files", () => {
  it("fails naming a dead export and a dead file, passes when they are removed", () => {
    write("package.json", JSON.stringify({ name: "knip-fixture", private: true, type: "module" }));
    write("tsconfig.json", JSON.stringify({ compilerOptions: { strict: true, module: "esnext", moduleResolution: "bundler" } }));
    write(
      "knip.json",
      JSON.stringify({ entry: ["main.ts"], project: ["*.ts"], include: projectConfig.include, ignoreExportsUsedInFile: projectConfig.ignoreExportsUsedInFile }),
    );
    write("main.ts", 'import { used } from "./lib";\nconsole.log(used());\n');
    // `helper` is used inside its file only: not reported (ignoreExportsUsedInFile); `forgotten` is dead.
    write("lib.ts", "export function helper() { return 1; }\nexport function used() { return helper(); }\nexport function forgotten() { return 2; }\n");
    write("orphan.ts", "export const nobody = 3;\n");

    const bad = check();
    expect(bad.status).toBe(1);
    expect(bad.out).toMatch(/Unused files \(1\)\s+orphan\.ts/);
    expect(bad.out).toMatch(/Unused exports \(1\)\s+forgotten\s+function\s+lib\.ts/);
    expect(bad.out).not.toMatch(/\bhelper\b/);

    write("lib.ts", "export function helper() { return 1; }\nexport function used() { return helper(); }\n");
    rmSync(path.join(root, "orphan.ts"));
    const good = check();
    expect(good.out).toBe("");
    expect(good.status).toBe(0);
  });
});
