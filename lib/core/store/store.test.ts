import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCK_FILE, StoreLockedError, acquireDirLock } from "./lock";
import { MIGRATIONS, migrate } from "./migrations";
import { openStore } from "./open";
import type { Store } from "./sql";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import { VIEW_LOG_DAYS, shareLinksRepo } from "@/lib/features/sharing/links-store";
import { throttleRepo } from "@/lib/core/http/throttle";
import { UserExistsError, usersRepo } from "@/lib/core/auth/users";

let dir: string;
let store: Store;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dashboard-store-"));
  store = await openStore({ kind: "pglite", dir }, { owner: "store test" });
});

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("migrations", () => {
  it("are applied once and recorded; running them again does nothing", async () => {
    const rows = await store.query<{ version: number; name: string }>("SELECT version, name FROM schema_migrations ORDER BY version");
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(await migrate(store)).toEqual([]);
    expect(await migrate(store)).toEqual([]);
  });

  it("refuse a store from newer code", async () => {
    await store.query("INSERT INTO schema_migrations (version, name) VALUES (99, 'from the future')");
    await expect(migrate(store)).rejects.toThrow(/schema version 99, newer than this code/);
    await store.query("DELETE FROM schema_migrations WHERE version = 99");
  });

  it("reject a gap in the versions", async () => {
    await expect(migrate(store, [{ version: 2, name: "x", up: "" }])).rejects.toThrow(/versions must be 1, 2, 3/);
  });
});

describe("users", () => {
  it("creates, finds case-insensitively, lists without hashes, disables", async () => {
    const users = usersRepo(store);
    const created = await users.create({ email: "  Ann@Example.COM ", role: "analyst", passwordHash: "h1" });
    expect(created).toMatchObject({ email: "ann@example.com", role: "analyst", disabled: false, lastLoginAt: null });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);

    const found = await users.findByEmail("ANN@example.com");
    expect(found).toMatchObject({ id: created.id, passwordHash: "h1", sessionsValidAfter: null });
    expect(await users.findById(created.id)).toMatchObject({ email: "ann@example.com" });
    expect(await users.findById("not-a-uuid")).toBeNull();

    await users.create({ email: "bob@example.com", role: "viewer", passwordHash: "h2" });
    const list = await users.list();
    expect(list.map((u) => u.email)).toEqual(["ann@example.com", "bob@example.com"]);
    expect(JSON.stringify(list)).not.toContain("h1");

    const at = new Date("2030-01-01T00:00:00Z");
    expect(await users.disable("Ann@example.com", at)).toBe(true);
    expect(await users.findByEmail("ann@example.com")).toMatchObject({ disabled: true, sessionsValidAfter: at });
    expect(await users.disable("nobody@example.com")).toBe(false);
    expect(await users.enable("ann@example.com")).toBe(true);

    expect(await users.setPassword("bob@example.com", "h3")).toBe(true);
    expect((await users.findByEmail("bob@example.com"))?.passwordHash).toBe("h3");
  });

  it("keeps e-mail addresses unique regardless of case", async () => {
    const users = usersRepo(store);
    await users.create({ email: "carol@example.com", role: "viewer", passwordHash: "h" });
    await expect(users.create({ email: "CAROL@example.com", role: "admin", passwordHash: "h" })).rejects.toBeInstanceOf(UserExistsError);
    // The database enforces it too, whatever the caller does.
    await expect(store.query("INSERT INTO users (email, role, password_hash) VALUES ('Dave@example.com', 'viewer', 'h')")).rejects.toThrow();
  });

  it("rejects unknown roles in the database", async () => {
    await expect(store.query("INSERT INTO users (email, role, password_hash) VALUES ('eve@example.com', 'root', 'h')")).rejects.toThrow();
  });

  it("rolls a failed transaction back", async () => {
    await expect(
      store.transaction(async (tx) => {
        await usersRepo(tx).create({ email: "frank@example.com", role: "viewer", passwordHash: "h" });
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await usersRepo(store).findByEmail("frank@example.com")).toBeNull();
  });
});

describe("throttle bookkeeping", () => {
  it("counts failures in the window per key and clears them", async () => {
    const t = throttleRepo(store);
    const now = new Date("2030-06-01T12:00:00Z");
    const ago = (s: number) => new Date(now.getTime() - s * 1000);
    await t.recordFailure("account:x", ago(1000), 900);
    await t.recordFailure("account:x", ago(600), 900);
    await t.recordFailure("account:x", ago(10), 900);
    await t.recordFailure("address:1.2.3.4", ago(10), 900);
    expect(await t.countRecent("account:x", 900, now)).toBe(2);
    expect((await t.recentFailures("account:x", 900, now)).map((d) => d.getTime())).toEqual([ago(600).getTime(), ago(10).getTime()]);
    expect(await t.countRecent("address:1.2.3.4", 900, now)).toBe(1);
    await t.clear("account:x");
    expect(await t.countRecent("account:x", 900, now)).toBe(0);
    expect(await t.countRecent("address:1.2.3.4", 900, now)).toBe(1);
  });
});

describe("share view log", () => {
  it("counts every view for good while the one-row-per-view log keeps 30 days", async () => {
    const owner = await usersRepo(store).create({ email: "views@example.com", role: "analyst", passwordHash: "x" });
    const report = await savedReportsRepo(store).create({ ownerId: owner.id, name: "v", page: "explore", params: "range=last7", sharedWithTeam: false });
    const links = shareLinksRepo(store);
    const link = await links.create({
      reportId: report.id,
      tokenHash: "h".repeat(43),
      createdBy: owner.id,
      expiresAt: new Date(Date.now() + 86_400_000),
      passwordHash: null,
      mode: "live",
      allowedPresets: [],
      snapshot: null,
    });
    const day0 = new Date("2030-01-01T12:00:00Z");
    for (let d = 0; d < 60; d++) for (let k = 0; k < 3; k++) await links.recordView(link.id, `addr${k}`, new Date(day0.getTime() + d * 86_400_000 + k));
    const after = (await links.get(link.id))!;
    expect(after.viewCount).toBe(180);
    expect(after.lastViewedAt).toBe(new Date(day0.getTime() + 59 * 86_400_000 + 2).toISOString());
    const logged = await store.query<{ n: number }>("SELECT count(*)::int AS n FROM share_views WHERE link_id = $1", [link.id]);
    expect(logged[0]!.n).toBeLessThanOrEqual((VIEW_LOG_DAYS + 1) * 3);
  });
});

describe("directory lock", () => {
  it("is held by the open store and refuses a second holder while its process lives", () => {
    const holder = JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8")) as { pid: number; owner: string };
    expect(holder).toMatchObject({ pid: process.pid, owner: "store test" });
    expect(() => acquireDirLock(dir, "again")).toThrow(/already holds/);
  });

  it("names a live holder, ignores a dead one, and is released", () => {
    const other = mkdtempSync(join(tmpdir(), "dashboard-lock-"));
    try {
      // The parent of this test process is alive and is not us.
      writeFileSync(join(other, LOCK_FILE), JSON.stringify({ pid: process.ppid, owner: "dashboard", since: "" }));
      expect(() => acquireDirLock(other, "users CLI")).toThrow(StoreLockedError);
      expect(() => acquireDirLock(other, "users CLI")).toThrow(`the dashboard is running (pid ${process.ppid})`);

      writeFileSync(join(other, LOCK_FILE), JSON.stringify({ pid: 2 ** 22 + 12345, owner: "dashboard", since: "" }));
      const release = acquireDirLock(other, "users CLI");
      expect(JSON.parse(readFileSync(join(other, LOCK_FILE), "utf8"))).toMatchObject({ pid: process.pid, owner: "users CLI" });
      release();
      expect(() => readFileSync(join(other, LOCK_FILE))).toThrow();
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
