// The live configuration through a replica (service/replica.ts): the replica relays the calls whole
// to the owner, so reads, dry runs and changes act on the owner's one configuration, and the scope
// is checked there.
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RoutingConfigVersionSchema } from "@/lib/contract/bin-routing";
import { createClient } from "../clients";
import { loadServiceConfig } from "../config";
import { jsonLogger } from "../http/log";
import { listen } from "../http/server";
import { createReplica } from "../replica";
import { clickhouseServerBinary } from "../testing/clickhouse";
import { startTestService, TEST_TOKEN_SECRET, type TestService } from "../testing/harness";
import { loadRoutingConfig } from "./loader";

const config = (gateways: number[]) => ({
  groups: [{ group_id: 1, group_name: "rr", selection_method: "ROUND_ROBIN", is_fallback: true, members: gateways.map((gateway_id) => ({ gateway_id })) }],
  rules: [],
});

let owner: TestService;
let replica: { url: string; close(): Promise<void> };
let admin: Record<string, string>;

describe.skipIf(!clickhouseServerBinary())("live configuration through a replica", () => {
  beforeAll(async () => {
    owner = await startTestService({
      engine: "clickhouse",
      data: { days: 2, ordersPerDay: 5 },
      setup: async (db) => {
        const r = await loadRoutingConfig(db, config([1, 2]));
        if (!r.ok) throw new Error(JSON.stringify(r.problems));
      },
    });
    const r = await createReplica(
      loadServiceConfig({ SERVICE_TOKEN_SECRET: TEST_TOKEN_SECRET, SERVICE_ENGINE: "clickhouse", CLICKHOUSE_URL: owner.clickhouse!.urls.join(","), SERVICE_OWNER_URL: owner.url }),
      jsonLogger(() => undefined),
    );
    const { port } = (await listen(r.server, 0, "127.0.0.1")) as AddressInfo;
    replica = { url: `http://127.0.0.1:${port}`, close: () => r.close() };
    const c = await createClient(owner.db, "admin", ["routing-admin"]);
    await owner.service.clients.refresh();
    const t = (await (await fetch(`${owner.url}/api/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(c) })).json()) as { data: { access_token: string } };
    admin = { authorization: `Bearer ${t.data.access_token}` };
  });
  afterAll(async () => {
    await replica?.close();
    await owner?.stop();
  });

  it("reads, refuses without the scope, and applies on the owner", async () => {
    const viaReplica = (path: string, init: RequestInit = {}) => fetch(`${replica.url}${path}`, init);
    const live = await viaReplica("/api/bin-routing/config", { headers: { authorization: `Bearer ${owner.token}` } });
    expect(live.status).toBe(200);
    expect(RoutingConfigVersionSchema.parse(((await live.json()) as { data: unknown }).data).version).toBe(1);

    const body = JSON.stringify({ ...config([2, 1]), reason: "order", author: "ops" });
    const refused = await viaReplica("/api/bin-routing/config", { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${owner.token}` }, body });
    expect(refused.status).toBe(403);
    const applied = await viaReplica("/api/bin-routing/config", { method: "POST", headers: { "content-type": "application/json", ...admin }, body });
    expect(applied.status).toBe(200);
    const onOwner = await fetch(`${owner.url}/api/bin-routing/config`, { headers: { authorization: `Bearer ${owner.token}` } });
    const v = RoutingConfigVersionSchema.parse(((await onOwner.json()) as { data: unknown }).data);
    expect(v).toMatchObject({ version: 2, reason: "order" });
    expect(v.rotation).toEqual([{ group_id: 1, outcome: "reset", reason: "member order changed; rotation restarts at the first active member", total_calls: 0 }]);
  });
});
