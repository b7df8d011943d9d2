/**
 * A migrated PGlite store for tests, opened in a directory of the test's own. Creating a PGlite
 * database and applying every migration takes seconds to half a minute on two cores, and dozens of
 * test files need one; so the migrated directory is made once, kept as a template keyed by what
 * decides its contents (the PGlite release and the migrations' text), and copied. The copy is
 * opened through `openStore` like any other, whose migrator finds nothing left to apply. Tests of
 * the migrator itself open an empty directory with `openStore` instead.
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { acquireDirLock, StoreLockedError } from "../lock";
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
 * The template's directory, made on first use by one test file while the others starting beside it
 * wait (its build lock is the store's own directory lock, so a builder that died leaves nothing
 * that blocks the next): migrated in a directory of its own and renamed into place, so that no file
 * ever copies half of one.
 */
async function template(): Promise<string> {
  const key = templateKey();
  const dir = join(CACHE, key);
  if (existsSync(join(dir, "PG_VERSION"))) return dir;
  mkdirSync(CACHE, { recursive: true });
  let release: () => void;
  for (;;) {
    try {
      release = acquireDirLock(join(CACHE, `lock-${key}`), "test PGlite template");
      break;
    } catch (e) {
      if (!(e instanceof StoreLockedError)) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    if (existsSync(join(dir, "PG_VERSION"))) return dir;
    await build(dir);
  } finally {
    release();
  }
  // Templates of other migrations or PGlite releases untouched for a day are of no further use (a
  // run of another checkout sharing this cache may still be copying a newer one).
  for (const other of readdirSync(CACHE)) {
    const path = join(CACHE, other);
    if (!other.includes(key) && statSync(path).mtimeMs < Date.now() - 86_400_000) rmSync(path, { recursive: true, force: true });
  }
  return dir;
}

let templateDir: Promise<string> | undefined;

async function build(dir: string): Promise<void> {
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
}

/**
 * Makes `dir` (empty or absent) a migrated PGlite store, a copy of the template, without opening
 * it: for a store another process opens (a dashboard or a command a test starts), which then
 * finds nothing left to migrate.
 */
export async function copyTestPglite(dir: string): Promise<void> {
  // One look for the template per process, however many stores it makes at once.
  templateDir ??= template();
  cpSync(await templateDir, dir, { recursive: true });
}

/**
 * Opens a migrated PGlite store in `dir` (empty or absent), a copy of the template. The caller
 * closes it and removes `dir` as with `openStore`.
 */
export async function openTestPglite(dir: string, owner: string): Promise<Store> {
  await copyTestPglite(dir);
  return openStore({ kind: "pglite", dir }, { owner });
}
