/**
 * The routing workspace against the real service (a live configuration loaded, a routing-admin
 * client created as `npm start` does) and a real PGlite store: who may do what, the two-person rule,
 * an approval applying exactly what was reviewed, a change overtaken by another version marked
 * superseded with nothing applied, rejections, restores, the read-only dashboard without the routing
 * credential, and every step in the audit log.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BinRoutingResponseSchema } from "@/lib/contract";
import { ApiError } from "@/lib/contract/errors";
import { auditRepo } from "@/lib/core/audit/store";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { routingChangesRepo } from "@/lib/features/routing/changes-store";
import type { Store } from "@/lib/core/store/sql";
import { usersRepo } from "@/lib/core/auth/users";
import { UpstreamClient } from "@/lib/core/upstream/client";
import { getRoutingConfig, NO_WRITE_CREDENTIAL, type RoutingClients } from "./upstream";
import type { Role } from "@/lib/core/auth/roles";
import { createClient } from "@/service/clients";
import { loadRoutingConfig } from "@/service/routing/loader";
import { startTestService, type TestService } from "@/service/testing/harness";
import { PreviewRequest } from "./calls";
import { approveChange, proposeChange, proposeRestore, rejectChange } from "./changes";
import { canEditRouting, canReadRouting, routingUser, type RoutingUser } from "./permissions";
import { ChangeRequest, ValidateRequest } from "./requests";
import { loadWorkspace, validateChange, type WorkspaceDeps } from "./workspace";

const BIN_X = "999999";

/** Version 1: BIN_X → group 2; the fallback rotates gateways 1, 2, 3. */
const configA = {
  groups: [
    { group_id: 1, group_name: "fallback", selection_method: "ROUND_ROBIN", is_fallback: true, members: [{ gateway_id: 1 }, { gateway_id: 2 }, { gateway_id: 3 }] },
    { group_id: 2, group_name: "two", selection_method: "ROUND_ROBIN", members: [{ gateway_id: 4 }, { gateway_id: 5 }] },
    { group_id: 3, group_name: "three", selection_method: "WEIGHTAGE", members: [{ gateway_id: 6, weight: 3 }, { gateway_id: 7, weight: 1 }] },
  ],
  rules: [{ type: "BIN", rule_name: "X", bin_prefix: BIN_X, group_id: 2, created_at: "2025-01-01T00:00:00Z" }],
};
/** BIN_X → group `group`. */
const pointing = (group: number) => ({ ...configA, rules: [{ ...configA.rules[0]!, group_id: group }] });

let svc: TestService;
let dir: string;
let store: Store;
let read: UpstreamClient;
let write: UpstreamClient;
const users: Record<"ada" | "bob" | "rita" | "ana" | "vic", RoutingUser> = {} as never;

const deps = (over: Partial<WorkspaceDeps> = {}): WorkspaceDeps => ({ store, clients: { read, write }, twoPerson: true, callsPerUser: 1_000_000, ...over });
const clients = (): RoutingClients => ({ read, write });
const liveVersion = async () => (await getRoutingConfig(clients())).version;

/** A real routing call for BIN_X: the group it lands in. */
async function routeX(): Promise<number> {
  const r = await svc.post("/api/bin-routing/route", { bin: BIN_X });
  expect(r.status).toBe(200);
  return BinRoutingResponseSchema.parse(await r.json()).group_id;
}

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

async function routingEntries() {
  const page = await auditRepo(store).list({ actions: ["routing."] }, { limit: 100 });
  return page.entries.map((e) => ({ action: e.action, actor: e.actorEmail, version: e.subjectId, reason: e.reason, change: e.detail.change_id }));
}

beforeAll(async () => {
  svc = await startTestService({
    data: { days: 2, ordersPerDay: 5 },
    env: { ROUTING_RATE_LIMIT: "1000000", REPORT_RATE_LIMIT: "1000000" },
    setup: async (db) => {
      const r = await loadRoutingConfig(db, configA, { author: "test", reason: "version A" });
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
    },
  });
  const admin = await createClient(svc.db, "dashboard routing", ["routing-admin"]);
  await svc.service.clients.refresh();
  const tokenUrl = `${svc.url}/api/auth/token`;
  read = new UpstreamClient({ baseUrl: svc.url, clientId: svc.client.client_id, clientSecret: svc.client.client_secret, tokenUrl });
  write = new UpstreamClient({ baseUrl: svc.url, clientId: admin.client_id, clientSecret: admin.client_secret, tokenUrl });

  dir = mkdtempSync(join(tmpdir(), "routing-workspace-"));
  store = await openTestPglite(dir, "routing workspace test");
  const make = async (email: string, role: Role, routing: boolean): Promise<RoutingUser> => {
    const u = await usersRepo(store).create({ email, role, passwordHash: "not used" });
    if (routing) await usersRepo(store).setRouting(u.id, true);
    return routingUser(store, { id: u.id, email: u.email, role: u.role }).catch(() => ({ id: u.id, email: u.email, role: u.role, routing }));
  };
  users.ada = await make("ada@test.local", "admin", false);
  users.bob = await make("bob@test.local", "admin", false);
  users.rita = await make("rita@test.local", "analyst", true);
  users.ana = await make("ana@test.local", "analyst", false);
  users.vic = await make("vic@test.local", "viewer", true);
});

afterAll(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  await svc?.stop();
});

describe("rights", () => {
  it("admins and analysts with the routing permission edit, analysts read, viewers neither (even with the permission)", async () => {
    expect([users.ada, users.rita, users.ana, users.vic].map(canEditRouting)).toEqual([true, true, false, false]);
    expect([users.ada, users.rita, users.ana, users.vic].map(canReadRouting)).toEqual([true, true, true, false]);
    expect(users.rita.routing).toBe(true);
    const refused = await rejection(routingUser(store, { id: users.vic.id, email: users.vic.email, role: "viewer" }));
    expect(refused.status).toBe(403);
    expect(refused.message).toContain("analyst role");
  });

  it("reads the permission on every call, so withdrawing it counts at once", async () => {
    const session = { id: users.rita.id, email: users.rita.email, role: users.rita.role };
    await usersRepo(store).setRouting(users.rita.id, false);
    expect(canEditRouting(await routingUser(store, session))).toBe(false);
    await usersRepo(store).setRouting(users.rita.id, true);
    expect(canEditRouting(await routingUser(store, session))).toBe(true);
  });

  it("the workspace answer says who may edit and why not", async () => {
    const forAna = await loadWorkspace(deps(), users.ana);
    expect(forAna).toMatchObject({ can_edit: false, two_person: true, write_credential: true, live: { version: 1, reason: "version A" } });
    expect(forAna.read_only_reason).toContain("routing permission");
    expect(forAna.versions.map((v) => v.version)).toEqual([1]);

    const forRita = await loadWorkspace(deps(), users.rita);
    expect(forRita).toMatchObject({ can_edit: true, read_only_reason: null });

    const noCredential = await loadWorkspace(deps({ clients: { read, write: null } }), users.ada);
    expect(noCredential).toMatchObject({ can_edit: true, write_credential: false, read_only_reason: NO_WRITE_CREDENTIAL });
  });

  it("an analyst without the permission can neither propose, approve, reject nor restore", async () => {
    for (const p of [
      proposeChange(deps(), users.ana, { config: pointing(3), reason: "try", base_version: 1 }),
      approveChange(deps(), users.ana, "00000000-0000-4000-8000-000000000000"),
      rejectChange(deps(), users.ana, "00000000-0000-4000-8000-000000000000", "no"),
      proposeRestore(deps(), users.ana, { reason: "try" }),
    ]) {
      expect((await rejection(p)).status).toBe(403);
    }
    expect(await routingChangesRepo(store).recent()).toEqual([]);
  });
});

describe("validation", () => {
  it("answers the service's problems with their paths and a diff against the live version", async () => {
    const good = await validateChange(deps(), users.rita, pointing(3));
    expect(good).toMatchObject({ valid: true, problems: [], live_version: 1 });
    expect(good.diff?.rules).toEqual([{ rule_name: "X", type: "BIN", change: "changed", fields: [{ field: "group_id", before: 2, after: 3 }] }]);
    expect(good.diff?.affected).toEqual({ bin_prefixes: [BIN_X], banks: [] });

    const bad = await validateChange(deps(), users.rita, { ...configA, groups: [{ ...configA.groups[0]!, members: [{ gateway_id: 999_999 }] }, ...configA.groups.slice(1)] });
    expect(bad.valid).toBe(false);
    expect(bad.problems).toContainEqual({ path: "groups[0].members[0].gateway_id", message: expect.stringContaining("does not exist") });

    const wrongShape = await validateChange(deps(), users.rita, { groups: "none" });
    expect(wrongShape).toMatchObject({ valid: false, diff: null });
  });

  it("refuses to propose an invalid configuration, one equal to live, or one made against an older version, recording nothing", async () => {
    const invalid = await rejection(proposeChange(deps(), users.ada, { config: { ...configA, rules: [{ ...configA.rules[0]!, group_id: 42 }] }, reason: "r", base_version: 1 }));
    expect(invalid.status).toBe(400);
    expect(invalid.details).toContainEqual({ path: "rules[0].group_id", message: expect.stringContaining("no group with group_id 42") });
    const same = await rejection(proposeChange(deps(), users.ada, { config: configA, reason: "r", base_version: 1 }));
    expect(same.status).toBe(400);
    expect(same.message).toContain("same as live version 1");
    const stale = await rejection(proposeChange(deps(), users.ada, { config: pointing(3), reason: "r", base_version: 0 }));
    expect(stale.status).toBe(409);
    expect(stale.message).toContain("now version 1");
    expect(await routingChangesRepo(store).recent()).toEqual([]);
    expect(await liveVersion()).toBe(1);
  });
});

describe("two-person rule", () => {
  it("a proposal waits; its proposer cannot approve it; another editor's approval applies exactly it, and the audit log has every step", async () => {
    expect(await routeX()).toBe(2);
    const change = await proposeChange(deps(), users.ada, { config: pointing(3), reason: "BIN 999999 approves better on group three", base_version: 1 });
    expect(change).toMatchObject({ status: "pending", base_version: 1, kind: "change", proposed_by: { email: "ada@test.local" }, applied_version: null });
    expect(await liveVersion()).toBe(1);
    expect(await loadWorkspace(deps(), users.bob)).toMatchObject({ pending: [{ id: change.id }], stale_pending: [] });

    const own = await rejection(approveChange(deps(), users.ada, change.id));
    expect(own.status).toBe(403);
    expect(own.message).toContain("another editor must approve");
    const noRight = await rejection(approveChange(deps(), users.ana, change.id));
    expect(noRight.status).toBe(403);

    const applied = await approveChange(deps(), users.rita, change.id);
    expect(applied).toMatchObject({ status: "applied", applied_version: 2, decided_by: { email: "rita@test.local" } });
    const live = await getRoutingConfig(clients());
    expect(live).toMatchObject({ version: 2, reason: "BIN 999999 approves better on group three", author: "ada@test.local (approved by rita@test.local)" });
    expect(await routeX()).toBe(3);

    const again = await rejection(approveChange(deps(), users.bob, change.id));
    expect(again.status).toBe(409);
    expect(again.message).toContain("applied already");

    const entries = (await routingEntries()).filter((e) => e.change === change.id).reverse();
    expect(entries).toEqual([
      { action: "routing.proposed", actor: "ada@test.local", version: "1", reason: "BIN 999999 approves better on group three", change: change.id },
      { action: "routing.approved", actor: "rita@test.local", version: "2", reason: "BIN 999999 approves better on group three", change: change.id },
      { action: "routing.applied", actor: "rita@test.local", version: "2", reason: "BIN 999999 approves better on group three", change: change.id },
    ]);
  });

  it("a change overtaken by another version is marked superseded on approval (audited) and nothing is applied", async () => {
    const base = await liveVersion();
    const slow = await proposeChange(deps(), users.ada, { config: pointing(1), reason: "to the fallback", base_version: base });
    // Meanwhile a change applied without the rule (a second dashboard with ROUTING_TWO_PERSON=false).
    const direct = await proposeChange(deps({ twoPerson: false }), users.bob, { config: pointing(2), reason: "back to group two", base_version: base });
    expect(direct).toMatchObject({ status: "applied", applied_version: base + 1, decided_by: { email: "bob@test.local" } });

    expect((await loadWorkspace(deps(), users.bob)).stale_pending).toEqual([slow.id]);
    const refused = await rejection(approveChange(deps(), users.bob, slow.id));
    expect(refused.status).toBe(409);
    expect(refused.message).toContain(`became version ${base + 1}`);
    expect(refused.message).toContain("superseded");
    expect(await routingChangesRepo(store).get(slow.id)).toMatchObject({ status: "superseded", applied_version: null, decided_by: { email: "bob@test.local" } });
    expect(await liveVersion()).toBe(base + 1);
    expect(await routeX()).toBe(2);
    // The approval that ended superseded is in the audit log, by the approver, with why.
    const slowEntries = (await routingEntries()).filter((e) => e.change === slow.id);
    expect(slowEntries.map((e) => e.action)).toEqual(["routing.superseded", "routing.proposed"]);
    expect(slowEntries[0]).toMatchObject({ actor: "bob@test.local", reason: expect.stringContaining(`became version ${base + 1}`) });
    expect((await routingEntries()).filter((e) => e.change === direct.id).map((e) => e.action)).toEqual(["routing.applied"]);
  });

  it("two editors approving at once: exactly one applies it", async () => {
    const base = await liveVersion();
    const change = await proposeChange(deps(), users.ada, { config: pointing(3), reason: "once", base_version: base });
    const outcomes = await Promise.allSettled([approveChange(deps(), users.bob, change.id), approveChange(deps(), users.rita, change.id)]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const failed = outcomes.find((o) => o.status === "rejected");
    expect((failed as PromiseRejectedResult).reason).toBeInstanceOf(ApiError);
    expect(((failed as PromiseRejectedResult).reason as ApiError).status).toBe(409);
    expect(await liveVersion()).toBe(base + 1);
    expect(await routingChangesRepo(store).get(change.id)).toMatchObject({ status: "applied", applied_version: base + 1 });
  });

  it("a rejection records the reason, is audited, and leaves nothing to approve", async () => {
    const base = await liveVersion();
    const change = await proposeChange(deps(), users.rita, { config: pointing(1), reason: "try the fallback", base_version: base });
    const rejected = await rejectChange(deps(), users.bob, change.id, "the fallback MIDs decline this BIN");
    expect(rejected).toMatchObject({ status: "rejected", decision_reason: "the fallback MIDs decline this BIN", decided_by: { email: "bob@test.local" } });
    expect((await rejection(approveChange(deps(), users.ada, change.id))).message).toContain("rejected already");
    expect(await liveVersion()).toBe(base);
    expect((await routingEntries()).filter((e) => e.change === change.id).map((e) => [e.action, e.reason])).toEqual([
      ["routing.rejected", "the fallback MIDs decline this BIN"],
      ["routing.proposed", "try the fallback"],
    ]);
  });

  it("a restore is proposed like a change and brings the earlier version back as a new one on approval", async () => {
    const base = await liveVersion();
    const restore = await proposeRestore(deps(), users.ada, { reason: "undo the last change" });
    expect(restore).toMatchObject({ kind: "restore", status: "pending", base_version: base, restore_version: base - 1, config: null });
    expect(await liveVersion()).toBe(base);
    const done = await approveChange(deps(), users.bob, restore.id);
    expect(done).toMatchObject({ status: "applied", applied_version: base + 1 });
    expect(await getRoutingConfig(clients())).toMatchObject({ version: base + 1, restored_from: base - 1 });
    expect((await routingEntries()).filter((e) => e.change === restore.id).map((e) => e.action)).toEqual(["routing.restored", "routing.approved", "routing.proposed"]);

    expect((await rejection(proposeRestore(deps(), users.ada, { reason: "x", version: 999 }))).status).toBe(404);
    expect((await rejection(proposeRestore(deps(), users.ada, { reason: "x", version: base + 1 }))).message).toContain("live version already");
  });
});

describe("without the two-person rule or the credential", () => {
  it("applies a change or a restore at once, recorded as applied", async () => {
    const base = await liveVersion();
    const restored = await proposeRestore(deps({ twoPerson: false }), users.rita, { reason: "restore at once", version: 1 });
    expect(restored).toMatchObject({ kind: "restore", status: "applied", applied_version: base + 1, restore_version: 1 });
    expect(await getRoutingConfig(clients())).toMatchObject({ version: base + 1, restored_from: 1, author: "rita@test.local" });
    expect(await routeX()).toBe(2);
  });

  it("without the routing credential nothing can be applied, and nothing is recorded", async () => {
    const before = (await routingChangesRepo(store).recent()).length;
    const base = await liveVersion();
    const readOnly = deps({ clients: { read, write: null }, twoPerson: false });
    const refused = await rejection(proposeChange(readOnly, users.ada, { config: pointing(3), reason: "r", base_version: base }));
    expect(refused.status).toBe(503);
    expect(refused.message).toBe(NO_WRITE_CREDENTIAL);
    const pending = await proposeChange(deps(), users.ada, { config: pointing(3), reason: "needs a credential", base_version: base });
    expect((await rejection(approveChange(deps({ clients: { read, write: null } }), users.bob, pending.id))).status).toBe(503);
    expect(await routingChangesRepo(store).get(pending.id)).toMatchObject({ status: "pending" });
    expect((await routingChangesRepo(store).recent()).length).toBe(before + 1);
    expect(await liveVersion()).toBe(base);
  });
});

describe("request bodies and what readers see", () => {
  it("a config carrying the change's own fields (reason, author, expected_version) is a 400 naming each, and nothing is proposed", () => {
    const body = { config: { ...configA, reason: "inside", author: "someone", expected_version: 3 }, reason: "outside", base_version: 1 };
    const parsed = ChangeRequest.safeParse(body);
    expect(parsed.success).toBe(false);
    const paths = (parsed.error?.issues ?? []).map((i) => i.path.join("."));
    expect(paths.sort()).toEqual(["config.author", "config.expected_version", "config.reason"]);
    expect(parsed.error?.issues[0]?.message).toContain("the change's own field");
    expect(ValidateRequest.safeParse({ config: body.config }).success).toBe(false);
    expect(ChangeRequest.safeParse({ ...body, config: configA }).success).toBe(true);
  });

  it("a config nested 32,000 deep is a 400 for validate, changes and preview, found without recursion", () => {
    let deep: unknown = {};
    for (let i = 0; i < 32_000; i++) deep = { a: deep };
    for (const parsed of [
      ValidateRequest.safeParse({ config: deep }),
      ChangeRequest.safeParse({ config: deep, reason: "deep", base_version: 1 }),
      PreviewRequest.safeParse({ config: deep, bins: [BIN_X] }),
    ]) {
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toContain("nested deeper than 16 levels");
    }
    expect(PreviewRequest.safeParse({ config: configA, bins: [BIN_X] }).success).toBe(true);
  });

  it("the routing-admin client's id on each version is shown to editors only", async () => {
    const forAda = await loadWorkspace(deps(), users.ada);
    expect(forAda.versions.some((v) => v.client_id !== null)).toBe(true);
    const forAna = await loadWorkspace(deps(), users.ana);
    expect(forAna.versions.length).toBe(forAda.versions.length);
    expect(forAna.versions.every((v) => v.client_id === null)).toBe(true);
    expect(forAna.live?.client_id ?? null).toBeNull();
  });
});
