// The committed lock file is the one that installs: it names every package.json dependency at the
// version package.json asks for, and every platform's optional binary of every package (DuckDB's
// bindings for macOS and Windows among them), so `npm install` on any machine leaves it unchanged
// and `npm ci` accepts it there.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as { lockfileVersion: number; packages: Record<string, LockEntry> };

/** Where Node would find `name` from the package installed at `from` (its own node_modules, then each parent's). */
function resolve(from: string, name: string): LockEntry | undefined {
  let dir = from;
  for (;;) {
    const hit = lock.packages[`${dir ? `${dir}/` : ""}node_modules/${name}`];
    if (hit) return hit;
    if (!dir) return undefined;
    const cut = dir.lastIndexOf("/node_modules/");
    dir = cut < 0 ? "" : dir.slice(0, cut);
  }
}

describe("package-lock.json", () => {
  it("records package.json's own dependencies exactly as package.json asks", () => {
    const root = lock.packages[""]!;
    expect(root.dependencies).toEqual(pkg.dependencies);
    expect(root.devDependencies).toEqual(pkg.devDependencies);
    for (const [name, version] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
      expect(resolve("", name)?.version, name).toBe(version);
    }
  });

  it("holds every optional dependency of every package, for every platform", () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolve(path, name)) missing.push(`${path || "(root)"} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
