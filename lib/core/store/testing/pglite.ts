/**
 * A migrated PGlite store for tests, opened in a directory of the test's own. Creating a PGlite
 * database and applying every migration takes seconds to half a minute on two cores, and dozens of
 * test files need one; so the migrated directory is made once, kept as a template keyed by what
 * decides its contents (the PGlite release and the migrations' text), and copied. The copy is
 * opened through `openStore` like any other, whose migrator finds nothing left to apply. Tests of
 * the migrator itself open an empty directory with `openStore` instead.
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MIGRATIONS } from "../migrations";
import { openStore } from "../open";
import type { Store } from "../sql";

const ROOT = fileURLToPath(new URL("../../../..", import.meta.url));
const CACHE = join(ROOT, "node_modules", ".cache", "pglite-template");

function templateKey(): string {
  const pglite = JSON.parse(readFileSync(join(ROOT, "node_modules", "@electric-sql", "pglite", "package.json"), "utf8")) as { version: string };
  return createHash("sha256").update(pglite.version).update(JSON.stringify(MIGRATIONS)).digest("hex").slice(0, 16);
}

/**
 * The template's directory, made on first use: migrated in a directory of this process's own and
 * renamed into place, so that test files starting together never see half of one; the one that
 * renames second throws its copy away.
 */
async function template(): Promise<string> {
  const dir = join(CACHE, templateKey());
  if (existsSync(join(dir, "PG_VERSION"))) return dir;
  mkdirSync(CACHE, { recursive: true });
  const building = mkdtempSync(join(CACHE, "building-"));
  try {
    const store = await openStore({ kind: "pglite", dir: building }, { owner: "test template" });
    await store.close();
    try {
      renameSync(building, dir);
    } catch (e) {
      if (!existsSync(join(dir, "PG_VERSION"))) throw e;
    }
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  // Templates of older migrations or PGlite releases are of no further use.
  for (const old of readdirSync(CACHE)) {
    if (join(CACHE, old) !== dir && !old.startsWith("building-")) rmSync(join(CACHE, old), { recursive: true, force: true });
  }
  return dir;
}

/**
 * Opens a migrated PGlite store in `dir` (empty or absent), a copy of the template. The caller
 * closes it and removes `dir` as with `openStore`.
 */
export async function openTestPglite(dir: string, owner: string): Promise<Store> {
  cpSync(await template(), dir, { recursive: true });
  return openStore({ kind: "pglite", dir }, { owner });
}
