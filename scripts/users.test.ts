// The users CLI as the operator runs it: a child process on a real PGlite directory (a migrated
// copy of the test template: migrating from nothing is lib/core/store/store.test.ts's, and took most
// of each run here).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticate } from "../lib/core/auth/authenticate";
import { openStore } from "../lib/core/store/open";
import { copyTestPglite } from "../lib/core/store/testing/pglite";

let dir: string;

function users(...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, DASHBOARD_DB: dir };
  delete env.DATABASE_URL;
  const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/users.ts", ...args], { env, encoding: "utf8", timeout: 150_000 });
  const lines = r.stdout.trim().split("\n").filter(Boolean);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, last: lines.length ? (JSON.parse(lines.at(-1)!) as Record<string, unknown>) : null, lines };
}

beforeAll(async () => {
  dir = join(mkdtempSync(join(tmpdir(), "dashboard-cli-")), "store");
  await copyTestPglite(dir);
});

afterAll(() => {
  rmSync(join(dir, ".."), { recursive: true, force: true });
});

describe("npm run users", () => {
  it("creates a user whose printed password signs in; lists without hashes; disables", async () => {
    const created = users("create", "--email", "Pat@Example.com", "--role", "analyst");
    expect(created.status, created.stderr).toBe(0);
    expect(created.last).toEqual({ email: "pat@example.com", role: "analyst", password: expect.stringMatching(/^[\w-]{24}$/) });

    const listed = users("list");
    expect(listed.status).toBe(0);
    expect(listed.lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ email: "pat@example.com", role: "analyst", disabled: false }),
    ]);
    expect(listed.stdout).not.toMatch(/scrypt|password/);

    const store = await openStore({ kind: "pglite", dir }, { owner: "cli test" });
    try {
      const ok = await authenticate(store, { email: "pat@example.com", password: created.last!.password, address: null });
      expect(ok).toMatchObject({ ok: true, user: { email: "pat@example.com", role: "analyst" } });
    } finally {
      await store.close();
    }

    expect(users("disable", "--email", "PAT@example.com").last).toEqual({ email: "pat@example.com", disabled: true });
    // Three CLI starts (tsx, PGlite, scrypt) in a row: a loaded two-core machine needs minutes.
  }, 480_000);

  it("refuses while the dashboard holds the store", async () => {
    const store = await openStore({ kind: "pglite", dir }, { owner: "dashboard" });
    try {
      const r = users("list");
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`the dashboard is running (pid ${process.pid})`);
      expect(r.stdout).toBe("");
    } finally {
      await store.close();
    }
  });
});
