/**
 * The two-person rule against one admin with several accounts, against the real service and a real
 * PGlite store, through the same users-admin operations and hooks the Users page's routes use:
 * proposing, then making an approver (a new account, a password reset, a re-enabled account, the
 * routing permission granted) and approving as it. Each way is refused and nothing is applied; a
 * change whose possible approvers change is withdrawn with the reason in the audit log; a genuine
 * second person still approves.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import type { Role } from "@/lib/core/auth/roles";
import { usersRepo } from "@/lib/core/auth/users";
import { ApiError } from "@/lib/contract/errors";
import { auditRepo } from "@/lib/core/audit/store";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { routingChangesRepo } from "@/lib/features/routing/changes-store";
import type { Store } from "@/lib/core/store/sql";
import { UpstreamClient } from "@/lib/core/upstream/client";
import { getRoutingConfig } from "./upstream";
import { createUser, resetPassword, updateUser } from "@/lib/features/users/admin";
import { createClient } from "@/service/clients";
import { loadRoutingConfig } from "@/service/routing/loader";
import { startTestService, type TestService } from "@/service/testing/harness";
import { withdrawAffected } from "./approval";
import { approveChange, proposeChange } from "./changes";
import { routingUser, type RoutingUser } from "./permissions";
import { loadWorkspace, type WorkspaceDeps } from "./workspace";

const BIN_X = "999999";
const configA = {
  groups: [
    { group_id: 1, group_name: "fallback", selection_method: "ROUND_ROBIN", is_fallback: true, members: [{ gateway_id: 1 }, { gateway_id: 2 }, { gateway_id: 3 }] },
    { group_id: 2, group_name: "two", selection_method: "ROUND_ROBIN", members: [{ gateway_id: 4 }, { gateway_id: 5 }] },
    { group_id: 3, group_name: "three", selection_method: "WEIGHTAGE", members: [{ gateway_id: 6, weight: 3 }, { gateway_id: 7, weight: 1 }] },
  ],
  rules: [{ type: "BIN", rule_name: "X", bin_prefix: BIN_X, group_id: 2, created_at: "2025-01-01T00:00:00Z" }],
};
const pointing = (group: number) => ({ ...configA, rules: [{ ...configA.rules[0]!, group_id: group }] });

let svc: TestService;
let dir: string;
let store: Store;
let read: UpstreamClient;
let write: UpstreamClient;

const deps = (): WorkspaceDeps => ({ store, clients: { read, write }, twoPerson: true, callsPerUser: 1_000_000 });
const liveVersion = async () => (await getRoutingConfig({ read, write })).version;

/** An account as the users CLI makes it (nobody on the Users page knows its password). */
async function cliUser(email: string, role: Role, routing = false): Promise<SessionUser> {
  const u = await usersRepo(store).create({ email, role, passwordHash: "not used" });
  if (routing) await usersRepo(store).setRouting(u.id, true);
  return { id: u.id, email: u.email, role: u.role };
}

/** The session user as the routing routes see them (their permission read now). */
const asRouting = (s: SessionUser): Promise<RoutingUser> => routingUser(store, s);

/** What the Users page's routes hand in after a change to a user (lib/features/routing/approval.ts). */
const withdraw = withdrawAffected;

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

/** Ada proposes BIN_X → group 3 against the live version. */
async function adaProposes(ada: SessionUser, why = "to group three") {
  return proposeChange(deps(), await asRouting(ada), { config: pointing(3), reason: why, base_version: await liveVersion() });
}

async function routingAudit(changeId: string) {
  const page = await auditRepo(store).list({ actions: ["routing."] }, { limit: 200 });
  return page.entries.filter((e) => e.detail.change_id === changeId).map((e) => ({ action: e.action, actor: e.actorEmail, reason: e.reason }));
}

let ada: SessionUser;

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
  dir = mkdtempSync(join(tmpdir(), "routing-approval-"));
  store = await openTestPglite(dir, "routing approval test");
  ada = await cliUser("ada@test.local", "admin");
});

afterAll(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  await svc?.stop();
});

describe("one admin cannot approve their own change through another account", () => {
  it("a new account made after proposing (the five steps: propose, create, grant, sign in, approve) is refused", async () => {
    const before = await liveVersion();
    const change = await adaProposes(ada);
    const { user: sock } = await createUser(store, ada, { email: "sock1@test.local", role: "analyst" }, null);
    await updateUser(store, ada, sock.id, { routing: true }, null, withdraw);
    // Granting the permission changed who may approve: the change was withdrawn, with the reason.
    expect(await routingChangesRepo(store).get(change.id)).toMatchObject({ status: "withdrawn", decision_reason: expect.stringContaining("sock1@test.local") });
    const refused = await rejection(approveChange(deps(), await asRouting({ id: sock.id, email: sock.email, role: "analyst" }), change.id));
    expect(refused.status).toBe(409);
    expect(await liveVersion()).toBe(before);
    expect((await routingAudit(change.id)).map((e) => e.action)).toEqual(["routing.withdrawn", "routing.proposed"]);
  });

  it("a new account made before proposing is refused: its password was shown to the proposer", async () => {
    const before = await liveVersion();
    const { user: sock } = await createUser(store, ada, { email: "sock2@test.local", role: "admin" }, null);
    const change = await adaProposes(ada);
    const asSock = await asRouting({ id: sock.id, email: sock.email, role: "admin" });
    // The workspace says so before anyone presses Approve.
    expect((await loadWorkspace(deps(), asSock)).approval_refusals[change.id]).toContain("ada@test.local set your password");
    const refused = await rejection(approveChange(deps(), asSock, change.id));
    expect(refused.status).toBe(403);
    expect(refused.message).toContain("ada@test.local set your password");
    expect(await routingChangesRepo(store).get(change.id)).toMatchObject({ status: "pending" });
    expect(await liveVersion()).toBe(before);
  });

  it("resetting an editor's password after proposing withdraws the change; before proposing, the editor may not approve", async () => {
    const before = await liveVersion();
    const rita = await cliUser("rita@test.local", "analyst", true);
    const first = await adaProposes(ada);
    await resetPassword(store, ada, rita.id, null, withdraw);
    expect(await routingChangesRepo(store).get(first.id)).toMatchObject({ status: "withdrawn" });
    const audit = await routingAudit(first.id);
    expect(audit[0]).toMatchObject({ action: "routing.withdrawn", actor: "ada@test.local", reason: expect.stringContaining("rita@test.local had their password reset by ada@test.local") });
    expect((await rejection(approveChange(deps(), await asRouting(rita), first.id))).status).toBe(409);

    // Proposed after the reset: ada knows rita's password, so rita is not a second person.
    const second = await adaProposes(ada);
    const refused = await rejection(approveChange(deps(), await asRouting(rita), second.id));
    expect(refused.status).toBe(403);
    expect(refused.message).toContain("ada@test.local set your password");
    expect(await liveVersion()).toBe(before);
  });

  it("re-enabling an account after proposing withdraws the change; through the users CLI (which withdraws nothing) the approval is refused", async () => {
    const before = await liveVersion();
    const carl = await cliUser("carl@test.local", "admin");
    await usersRepo(store).disable(carl.email);
    const first = await adaProposes(ada);
    await updateUser(store, ada, carl.id, { disabled: false }, null, withdraw);
    expect(await routingChangesRepo(store).get(first.id)).toMatchObject({ status: "withdrawn", decision_reason: expect.stringContaining("account enabled") });

    await usersRepo(store).disable(carl.email);
    const second = await adaProposes(ada);
    await usersRepo(store).enable(carl.email);
    const refused = await rejection(approveChange(deps(), await asRouting(carl), second.id));
    expect(refused.status).toBe(403);
    expect(refused.message).toContain("changed after this change was proposed");
    expect(await liveVersion()).toBe(before);
  });

  it("the routing permission granted after proposing withdraws the change; granted through the CLI, the approval is refused", async () => {
    const before = await liveVersion();
    const ana = await cliUser("ana@test.local", "analyst");
    const first = await adaProposes(ada);
    await updateUser(store, ada, ana.id, { routing: true }, null, withdraw);
    expect(await routingChangesRepo(store).get(first.id)).toMatchObject({ status: "withdrawn", decision_reason: expect.stringContaining("routing permission granted") });

    const ben = await cliUser("ben@test.local", "analyst");
    const second = await adaProposes(ada);
    await usersRepo(store).setRouting(ben.id, true);
    const refused = await rejection(approveChange(deps(), await asRouting(ben), second.id));
    expect(refused.status).toBe(403);
    expect(refused.message).toContain("changed after this change was proposed");
    expect(await liveVersion()).toBe(before);
  });

  it("an admin who set both the proposer's and the approver's password cannot use them together", async () => {
    const before = await liveVersion();
    const dan = await cliUser("dan@test.local", "admin");
    const pat = await cliUser("pat@test.local", "analyst", true);
    const { user: eve } = await createUser(store, dan, { email: "eve@test.local", role: "admin" }, null);
    await resetPassword(store, dan, pat.id, null, withdraw);
    // Dan signs in as pat (whose password he set), proposes, then approves as eve, and as himself.
    const change = await proposeChange(deps(), await asRouting(pat), { config: pointing(3), reason: "dan as pat", base_version: before });
    const asEve = await rejection(approveChange(deps(), await asRouting({ id: eve.id, email: eve.email, role: "admin" }), change.id));
    expect(asEve.status).toBe(403);
    expect(asEve.message).toContain("the same admin set both");
    const asDan = await rejection(approveChange(deps(), await asRouting(dan), change.id));
    expect(asDan.status).toBe(403);
    expect(asDan.message).toContain("you set pat@test.local's password");
    expect(await liveVersion()).toBe(before);
  });

  it("a proposer who loses the permission has their pending changes withdrawn (the Users page, or at approval after the CLI)", async () => {
    const before = await liveVersion();
    const rose = await cliUser("rose@test.local", "analyst", true);
    const bob = await cliUser("bob@test.local", "admin");
    const first = await proposeChange(deps(), await asRouting(rose), { config: pointing(3), reason: "rose 1", base_version: before });
    await updateUser(store, ada, rose.id, { routing: false }, null, withdraw);
    expect(await routingChangesRepo(store).get(first.id)).toMatchObject({ status: "withdrawn", decision_reason: expect.stringContaining("may no longer change routing") });
    expect((await routingAudit(first.id))[0]).toMatchObject({ action: "routing.withdrawn", actor: "ada@test.local" });

    await usersRepo(store).setRouting(rose.id, true);
    const second = await proposeChange(deps(), await asRouting(rose), { config: pointing(3), reason: "rose 2", base_version: before });
    await usersRepo(store).setRouting(rose.id, false);
    const refused = await rejection(approveChange(deps(), await asRouting(bob), second.id));
    expect(refused.status).toBe(409);
    expect(refused.message).toContain("may no longer change routing");
    expect(await routingChangesRepo(store).get(second.id)).toMatchObject({ status: "withdrawn" });
    expect((await routingAudit(second.id))[0]).toMatchObject({ action: "routing.withdrawn", actor: "bob@test.local" });
    expect(await liveVersion()).toBe(before);
  });

  it("a second person whose standing predates the change and whose password the proposer never set approves it", async () => {
    const before = await liveVersion();
    const zoe = await cliUser("zoe@test.local", "admin");
    const change = await adaProposes(ada, "reviewed by zoe");
    expect((await loadWorkspace(deps(), await asRouting(zoe))).approval_refusals[change.id]).toBeUndefined();
    const applied = await approveChange(deps(), await asRouting(zoe), change.id);
    expect(applied).toMatchObject({ status: "applied", applied_version: before + 1, decided_by: { email: "zoe@test.local" } });
    expect(await liveVersion()).toBe(before + 1);
  });
});
