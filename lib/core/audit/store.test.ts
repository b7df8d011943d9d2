// The audit log's rows on both stores the dashboard runs on: PGlite in a temporary directory, and a
// real PostgreSQL server (a throwaway cluster, or TEST_DATABASE_URL's scratch database; skipped only
// on a machine without PostgreSQL, as lib/core/store/postgres.test.ts is).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendAudit } from "@/lib/core/audit/log";
import { pruneAuditLog } from "@/lib/core/audit/retention";
import { auditRepo } from "./store";
import { openStore } from "@/lib/core/store/open";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { postgresBinDir, startTestPostgres, type TestPostgres } from "@/lib/core/store/testing/postgres";

const external = process.env.TEST_DATABASE_URL;
const postgresAvailable = external !== undefined || postgresBinDir() !== null;

const DAY = 86_400_000;

function suite(name: string, open: () => Promise<{ store: Store; done: () => Promise<void> }>, enabled = true) {
  describe.runIf(enabled)(`audit log on ${name}`, () => {
    let store: Store;
    let done: () => Promise<void>;
    beforeAll(async () => {
      ({ store, done } = await open());
      // A scratch database named from outside may hold entries of an earlier run.
      await store.transaction((tx) => auditRepo(tx).pruneOlderThan(new Date(Date.now() + 365 * DAY)));
    });
    afterAll(async () => done?.());

    const admin = { kind: "user" as const, id: "6f1d2a4e-3c1b-4a7e-9d9e-0a1b2c3d4e5f", email: "boss@test.local", address: "10.0.0.1" };

    it("appends entries and reads them newest first, filtered by time, actor, action kind and subject, a page at a time", async () => {
      const now = Date.now();
      await appendAudit(store, { action: "user.created", actor: admin, subject: { kind: "user", id: "u-1", label: "ana@test.local" }, detail: { role: "analyst" }, at: new Date(now - 3 * DAY) });
      await appendAudit(store, { action: "user.role_changed", actor: admin, subject: { kind: "user", id: "u-1", label: "ana@test.local" }, detail: { from_role: "analyst", role: "viewer" }, at: new Date(now - 2 * DAY) });
      await appendAudit(store, { action: "sign_in.failed", actor: { kind: "anonymous", id: null, email: "who@test.local", address: "192.0.2.7" }, detail: { failure: "unknown_account" }, at: new Date(now - DAY) });
      await appendAudit(store, { action: "routing.applied", actor: { ...admin, email: "other_admin@test.local" }, subject: { kind: "routing_version", id: "7" }, reason: "BIN 414720 approves better at MID 16", at: new Date(now) });

      const repo = auditRepo(store);
      const all = await repo.list();
      expect(all.entries.map((e) => e.action)).toEqual(["routing.applied", "sign_in.failed", "user.role_changed", "user.created"]);
      expect(all.next).toBeNull();
      expect(all.entries[0]).toMatchObject({ actorEmail: "other_admin@test.local", actorAddress: "10.0.0.1", subjectKind: "routing_version", subjectId: "7", reason: "BIN 414720 approves better at MID 16" });
      expect(all.entries[2]).toMatchObject({ detail: { from_role: "analyst", role: "viewer" }, subjectLabel: "ana@test.local" });
      expect(all.entries[1]).toMatchObject({ actorKind: "anonymous", actorId: null, actorEmail: "who@test.local", actorAddress: "192.0.2.7" });

      expect((await repo.list({ actions: ["user."] })).entries.map((e) => e.action)).toEqual(["user.role_changed", "user.created"]);
      expect((await repo.list({ actions: ["sign_in.failed", "routing."] })).entries.map((e) => e.action)).toEqual(["routing.applied", "sign_in.failed"]);
      expect((await repo.list({ actor: "BOSS@" })).entries).toHaveLength(2);
      // LIKE's wildcards are text: "_" matches only an underscore.
      expect((await repo.list({ actor: "other_admin" })).entries.map((e) => e.action)).toEqual(["routing.applied"]);
      expect((await repo.list({ actor: "other%" })).entries).toEqual([]);
      expect((await repo.list({ subject: "ana@" })).entries).toHaveLength(2);
      expect((await repo.list({ from: new Date(now - 2.5 * DAY), to: new Date(now - 0.5 * DAY) })).entries.map((e) => e.action)).toEqual(["sign_in.failed", "user.role_changed"]);

      const first = await repo.list({}, { limit: 3 });
      expect(first.entries).toHaveLength(3);
      expect(first.next).toBe(first.entries[2]!.id);
      const second = await repo.list({}, { limit: 3, before: first.next! });
      expect(second.entries.map((e) => e.action)).toEqual(["user.created"]);
      expect(second.next).toBeNull();

      expect(await repo.summary({ actions: ["user."] })).toMatchObject({ matching: 2 });
      expect((await repo.summary()).oldest?.getTime()).toBe(now - 3 * DAY);
    });

    it("refuses to change or delete an entry, or to empty the table, outside the retention prune", async () => {
      await expect(store.query("UPDATE audit_log SET reason = 'rewritten'")).rejects.toThrow(/append-only/);
      await expect(store.query("DELETE FROM audit_log")).rejects.toThrow(/append-only/);
      await expect(store.exec("TRUNCATE audit_log")).rejects.toThrow(/append-only/);
      // The prune's permission ends with its transaction.
      await store.transaction((tx) => auditRepo(tx).pruneOlderThan(new Date(0)));
      await expect(store.query("DELETE FROM audit_log")).rejects.toThrow(/append-only/);
      expect((await auditRepo(store).list()).entries).toHaveLength(4);
    });

    it("prunes only entries older than the retention, and counts them", async () => {
      const now = new Date();
      await appendAudit(store, { action: "user.disabled", actor: admin, subject: { kind: "user", id: "u-old" }, at: new Date(now.getTime() - 31 * DAY) });
      await appendAudit(store, { action: "user.enabled", actor: admin, subject: { kind: "user", id: "u-old" }, at: new Date(now.getTime() - 29 * DAY) });
      const before = (await auditRepo(store).list({}, { limit: 500 })).entries.length;
      const { deleted, cutoff } = await pruneAuditLog(store, 30, now);
      expect(deleted).toBe(1);
      expect(cutoff.getTime()).toBe(now.getTime() - 30 * DAY);
      const kept = (await auditRepo(store).list({}, { limit: 500 })).entries;
      expect(kept).toHaveLength(before - 1);
      expect(kept.map((e) => e.action)).toContain("user.enabled");
      expect(kept.map((e) => e.action)).not.toContain("user.disabled");
      expect(kept.every((e) => e.at.getTime() >= cutoff.getTime())).toBe(true);
      expect((await pruneAuditLog(store, 30, now)).deleted).toBe(0);
    });

    it("is written with the change's transaction: a rolled-back change leaves no entry", async () => {
      await expect(
        store.transaction(async (tx) => {
          await appendAudit(tx, { action: "user.created", actor: admin, subject: { kind: "user", id: "u-rolled-back" } });
          throw new Error("the change failed");
        }),
      ).rejects.toThrow("the change failed");
      expect((await auditRepo(store).list({ subject: "u-rolled-back" })).entries).toEqual([]);
    });
  });
}

suite("PGlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "audit-store-"));
  const store = await openTestPglite(dir, "audit test");
  return {
    store,
    done: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

let server: TestPostgres | null = null;
suite(
  "PostgreSQL",
  async () => {
    let url = external;
    if (!url) {
      server = await startTestPostgres();
      url = server.url;
    }
    const store = await openStore({ kind: "postgres", url }, { owner: "audit test" });
    return {
      store,
      done: async () => {
        await store.close();
        await server?.stop();
      },
    };
  },
  postgresAvailable,
);
