// Routing changes and the routing permission (migration 13) on both stores the dashboard runs on:
// PGlite in a temporary directory, and a real PostgreSQL server (a throwaway cluster, or
// TEST_DATABASE_URL's scratch database; skipped only on a machine without PostgreSQL, as
// lib/core/store/postgres.test.ts is).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RoutingConfig } from "@/lib/contract/routing-config";
import { openStore } from "@/lib/core/store/open";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { routingChangesRepo } from "./changes-store";
import type { Store } from "@/lib/core/store/sql";
import { postgresBinDir, startTestPostgres, type TestPostgres } from "@/lib/core/store/testing/postgres";
import { usersRepo } from "@/lib/core/auth/users";

const external = process.env.TEST_DATABASE_URL;
const postgresAvailable = external !== undefined || postgresBinDir() !== null;

const config: RoutingConfig = {
  groups: [{ group_id: 1, group_name: "fallback", selection_method: "ROUND_ROBIN", cycle_scope: 2, is_fallback: true, members: [{ gateway_id: 1, weight: 1, active: true }] }],
  rules: [{ type: "BIN", rule_name: "X", bin_prefix: "414720", group_id: 1, enabled: true }],
};

function suite(name: string, open: () => Promise<{ store: Store; done: () => Promise<void> }>, enabled = true) {
  describe.runIf(enabled)(`routing changes on ${name}`, () => {
    let store: Store;
    let done: () => Promise<void>;
    const ada = { id: "", email: "" };
    const bob = { id: "", email: "" };
    beforeAll(async () => {
      ({ store, done } = await open());
      // A scratch database named from outside may hold rows of an earlier run.
      await store.exec("DELETE FROM routing_changes");
      const suffix = Date.now().toString(36);
      for (const [who, email] of [[ada, `ada-${suffix}@test.local`], [bob, `bob-${suffix}@test.local`]] as const) {
        const u = await usersRepo(store).create({ email, role: "analyst", passwordHash: "x" });
        Object.assign(who, { id: u.id, email: u.email });
      }
    });
    afterAll(async () => done?.());

    it("keeps the routing permission beside the role, off by default", async () => {
      const users = usersRepo(store);
      expect((await users.findById(ada.id))?.routing).toBe(false);
      expect(await users.setRouting(ada.id, true)).toBe(true);
      expect((await users.findById(ada.id))?.routing).toBe(true);
      expect((await users.list()).find((u) => u.id === ada.id)).toMatchObject({ routing: true, role: "analyst" });
      expect(await users.setRouting("00000000-0000-4000-8000-000000000000", true)).toBe(false);
    });

    it("stores a pending change with its configuration exactly, lists it, and decides it once", async () => {
      const repo = routingChangesRepo(store);
      const c = await repo.create({ kind: "change", base_version: 4, config, reason: "better approvals", proposer: ada });
      expect(c).toMatchObject({ kind: "change", base_version: 4, config, restore_version: null, status: "pending", proposed_by: ada, decided_by: null, applied_version: null });
      expect((await repo.pending()).map((p) => p.id)).toEqual([c.id]);

      expect(await repo.claim(c.id, bob)).toBe(true);
      // Held by bob: a second decider cannot claim it, nor can anyone reject it under him.
      expect(await repo.claim(c.id, ada)).toBe(false);
      expect(await repo.rejected(c.id, ada, "no")).toBeNull();
      const applied = await repo.applied(c.id, bob, 5);
      expect(applied).toMatchObject({ status: "applied", applied_version: 5, decided_by: bob });
      expect(applied?.decided_at).not.toBeNull();
      expect(await repo.superseded(c.id, bob, "late")).toBeNull();
      expect(await repo.pending()).toEqual([]);
    });

    it("gives a claim back, and rejects or supersedes a pending change with the reason", async () => {
      const repo = routingChangesRepo(store);
      const r = await repo.create({ kind: "restore", base_version: 5, restore_version: 3, reason: "undo", proposer: ada });
      expect(r).toMatchObject({ kind: "restore", config: null, restore_version: 3 });
      expect(await repo.claim(r.id, bob)).toBe(true);
      await repo.release(r.id, bob);
      expect(await repo.rejected(r.id, bob, "keep 5")).toMatchObject({ status: "rejected", decision_reason: "keep 5", applied_version: null });

      const s = await repo.create({ kind: "change", base_version: 5, config, reason: "x", proposer: bob });
      expect(await repo.superseded(s.id, ada, "live is 6")).toMatchObject({ status: "superseded", decision_reason: "live is 6" });

      const direct = await repo.create({ kind: "change", base_version: 6, config, reason: "at once", proposer: ada }, { applied_version: 7 });
      expect(direct).toMatchObject({ status: "applied", applied_version: 7, decided_by: ada });
      expect((await repo.recent()).map((c) => c.id).slice(0, 3)).toEqual([direct.id, s.id, r.id]);
      expect(await repo.get("not-a-uuid")).toBeNull();
    });

    it("refuses rows that contradict themselves", async () => {
      const bad = [
        "INSERT INTO routing_changes (kind, base_version, reason, proposed_by_email, status) VALUES ('change', 1, 'no config', 'a@b', 'pending')",
        "INSERT INTO routing_changes (kind, base_version, config, reason, proposed_by_email, status) VALUES ('change', 1, '{}', 'applied without version', 'a@b', 'applied')",
        "INSERT INTO routing_changes (kind, base_version, config, reason, proposed_by_email, status) VALUES ('change', 1, '{}', '', 'a@b', 'pending')",
        "INSERT INTO routing_changes (kind, base_version, restore_version, reason, proposed_by_email, status) VALUES ('restore', 1, 1, 'decided without time', 'a@b', 'rejected')",
      ];
      for (const sql of bad) await expect(store.query(sql)).rejects.toThrow();
    });
  });
}

let dir: string;
suite("PGlite", async () => {
  dir = mkdtempSync(join(tmpdir(), "routing-changes-"));
  const store = await openTestPglite(dir, "routing changes test");
  return { store, done: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }); } };
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
    const store = await openStore({ kind: "postgres", url }, { owner: "routing changes test" });
    return { store, done: async () => { await store.close(); await server?.stop(); } };
  },
  postgresAvailable,
);
