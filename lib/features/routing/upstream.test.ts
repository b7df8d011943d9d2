/**
 * The dashboard's client of the live routing configuration (./upstream.ts) against the
 * real service: reads, the dry run and the preview with the reporting client; apply and restore only
 * with the routing-admin credential, refused in words without it (or with a client that lacks the
 * scope); the service's 400 problems, 404 and 409 passed on as the dashboard's errors.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "@/lib/contract/errors";
import { createClient } from "@/service/clients";
import { loadRoutingConfig } from "@/service/routing/loader";
import { startTestService, type TestService } from "@/service/testing/harness";
import { UpstreamClient } from "@/lib/core/upstream/client";
import { applyRoutingConfig, getRoutingConfig, listRoutingVersions, NO_WRITE_CREDENTIAL, previewRouting, restoreRoutingConfig, validateRoutingConfig, type RoutingClients, type RoutingConfigInput } from "./upstream";

const BIN_X = "999999";

const base: RoutingConfigInput = {
  groups: [
    { group_id: 1, group_name: "fallback", selection_method: "ROUND_ROBIN", is_fallback: true, members: [{ gateway_id: 1 }, { gateway_id: 2 }] },
    { group_id: 2, group_name: "two", selection_method: "ROUND_ROBIN", members: [{ gateway_id: 3 }] },
  ],
  rules: [{ type: "BIN", rule_name: "X", bin_prefix: BIN_X, group_id: 2, created_at: "2025-01-01T00:00:00Z" }],
};
const moved: RoutingConfigInput = { ...base, rules: [{ type: "BIN", rule_name: "X", bin_prefix: BIN_X, group_id: 1, created_at: "2025-01-01T00:00:00Z" }] };

let svc: TestService;
let read: UpstreamClient;
let admin: UpstreamClient;
let notAdmin: UpstreamClient;

const clientFor = (c: { client_id: string; client_secret: string }) =>
  new UpstreamClient({ baseUrl: svc.url, clientId: c.client_id, clientSecret: c.client_secret, tokenUrl: `${svc.url}/api/auth/token` });

beforeAll(async () => {
  svc = await startTestService({
    data: { days: 2, ordersPerDay: 5 },
    env: { ROUTING_RATE_LIMIT: "1000000" },
    setup: async (db) => {
      const r = await loadRoutingConfig(db, base, { author: "test", reason: "base" });
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
    },
  });
  const routingAdmin = await createClient(svc.db, "dashboard routing", ["routing-admin"]);
  const plain = await createClient(svc.db, "dashboard without the scope");
  await svc.service.clients.refresh();
  read = clientFor(svc.client);
  admin = clientFor(routingAdmin);
  notAdmin = clientFor(plain);
});
afterAll(() => svc?.stop());

const clients = (): RoutingClients => ({ read, write: admin });

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected the call to be refused");
}

describe("routing configuration client", () => {
  it("reads the live version with each group's state, and every version", async () => {
    const live = await getRoutingConfig(clients());
    expect(live).toMatchObject({ version: 1, author: "test", reason: "base", restored_from: null });
    expect(live.config.rules).toEqual([expect.objectContaining({ rule_name: "X", group_id: 2, enabled: true })]);
    expect(live.groups_state.map((g) => g.group_id).sort()).toEqual([1, 2]);
    const versions = await listRoutingVersions(clients());
    expect(versions.map((v) => v.version)).toEqual([1]);
  });

  it("validates without applying, and previews live against proposed", async () => {
    expect(await validateRoutingConfig(moved, clients())).toMatchObject({ valid: true, problems: [] });
    const bad = await validateRoutingConfig({ groups: [], rules: [] }, clients());
    expect(bad.valid).toBe(false);
    expect(bad.problems.map((p) => p.path)).toContain("groups");
    const preview = await previewRouting({ config: moved, bins: [BIN_X] }, clients());
    expect(preview.rows[0]).toMatchObject({ bin: BIN_X, live: { group_id: 2, gateway_id: "3" }, proposed: { group_id: 1 } });
    const refused = await refusal(previewRouting({ bins: ["12"] }, clients()));
    expect(refused.status).toBe(400);
    expect(refused.details?.[0]?.path).toMatch(/^bins/);
    expect((await getRoutingConfig(clients())).version).toBe(1);
  });

  it("applies and restores with the routing credential, passing on 409 and 400 with their problems", async () => {
    const v2 = await applyRoutingConfig({ config: moved, reason: "move X", author: "ana@example.com", expected_version: 1 }, clients());
    expect(v2).toMatchObject({ version: 2, reason: "move X", author: "ana@example.com" });
    const stale = await refusal(applyRoutingConfig({ config: base, reason: "again", author: "ana@example.com", expected_version: 1 }, clients()));
    expect(stale.status).toBe(409);
    expect(stale.message).toContain("version 2");
    const invalid = await refusal(applyRoutingConfig({ config: { ...base, rules: [{ type: "BIN", rule_name: "Y", bin_prefix: "1", group_id: 7 }] }, reason: "bad", author: "a" }, clients()));
    expect(invalid.status).toBe(400);
    expect(invalid.details?.map((d) => d.path)).toEqual(expect.arrayContaining(["rules[0].bin_prefix"]));
    const v3 = await restoreRoutingConfig({ reason: "back", author: "bo@example.com", expected_version: 2 }, clients());
    expect(v3).toMatchObject({ version: 3, restored_from: 1 });
    const missing = await refusal(restoreRoutingConfig({ reason: "no such", author: "bo@example.com", version: 99 }, clients()));
    expect(missing.status).toBe(404);
    expect((await listRoutingVersions(clients())).map((v) => v.version)).toEqual([3, 2, 1]);
  });

  it("refuses to change anything without the routing credential, or with a client lacking the scope, saying why", async () => {
    const none = await refusal(applyRoutingConfig({ config: moved, reason: "r", author: "a" }, { read, write: null }));
    expect(none.status).toBe(503);
    expect(none.message).toBe(NO_WRITE_CREDENTIAL);
    expect((await refusal(restoreRoutingConfig({ reason: "r", author: "a" }, { read, write: null }))).message).toBe(NO_WRITE_CREDENTIAL);
    const scopeless = await refusal(applyRoutingConfig({ config: moved, reason: "r", author: "a" }, { read, write: notAdmin }));
    expect(scopeless.status).toBe(503);
    expect(scopeless.message).toContain("lacks the routing-admin scope");
    expect((await getRoutingConfig(clients())).version).toBe(3);
  });
});
