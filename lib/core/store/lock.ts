/**
 * One process at a time per PGlite directory. The holder writes `<dir>/.owner` (its pid and what it
 * is) with an exclusive create and removes it on exit; a file left by a process that no longer runs
 * (killed with SIGKILL, a crash) is stale and taken over.
 */
import { mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const LOCK_FILE = ".owner";

export interface LockHolder {
  pid: number;
  /** What holds it, e.g. "dashboard" or "users CLI". */
  owner: string;
  since: string;
}

export class StoreLockedError extends Error {
  constructor(
    readonly holder: LockHolder,
    readonly dir: string,
  ) {
    const who = holder.owner === "dashboard" ? "the dashboard is running" : `${holder.owner} is running`;
    super(
      `${who} (pid ${holder.pid}) and holds the dashboard store at ${dir}; stop it first, ` +
        "or set DATABASE_URL to a PostgreSQL database, which several processes can share",
    );
    this.name = "StoreLockedError";
  }
}

export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to another user.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readHolder(path: string): LockHolder | null {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<LockHolder>;
    if (typeof parsed.pid !== "number") return null;
    return { pid: parsed.pid, owner: String(parsed.owner ?? "another process"), since: String(parsed.since ?? "") };
  } catch {
    return null;
  }
}

function isRecent(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < 2_000;
  } catch {
    return false;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const held = new Set<string>();
let exitHookInstalled = false;

function removeIfOurs(path: string): void {
  if (readHolder(path)?.pid !== process.pid) return;
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // "exit" also fires after Next's own SIGINT/SIGTERM handlers call process.exit(). Adding signal
  // handlers here would change how the host process stops, so this module doesn't.
  process.on("exit", () => {
    for (const path of held) removeIfOurs(path);
  });
}

/**
 * Takes the directory's lock for this process, or throws `StoreLockedError` naming the live holder.
 * Returns the release function.
 */
export function acquireDirLock(dir: string, owner: string): () => void {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  if (held.has(path)) throw new Error(`this process already holds ${path}; open the store once and share it`);
  const content = `${JSON.stringify({ pid: process.pid, owner, since: new Date().toISOString() } satisfies LockHolder)}\n`;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      writeFileSync(path, content, { flag: "wx", mode: 0o644 });
      held.add(path);
      installExitHook();
      return () => {
        if (held.delete(path)) removeIfOurs(path);
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    let holder = readHolder(path);
    // An unreadable file may be one another process has created but not yet written: look again.
    for (let i = 0; holder === null && i < 4 && isRecent(path); i++) {
      sleepSync(50);
      holder = readHolder(path);
    }
    // Our own pid in the file can only be a leftover of an earlier process (e.g. pid 1 in a container).
    if (holder && holder.pid !== process.pid && isProcessAlive(holder.pid)) throw new StoreLockedError(holder, dir);
    try {
      unlinkSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }
  throw new Error(`could not take the lock ${path}; another process keeps recreating it`);
}
