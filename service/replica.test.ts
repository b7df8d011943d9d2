/**
 * Several instances over one data set (service/http/owner.ts): an owner with the DuckDB file and two
 * replicas reading ClickHouse, all real, over HTTP. Reports answer the same on every instance, a
 * client's report limit is one window over all of them, routing stays exact when calls are spread
 * over them, and only instances can use the owner's admission or relay a caller's address.
 */
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BinRoutingResponseSchema, OPERATION_TABLE } from "@/lib/contract";
import { freePort } from "@/lib/core/testing/free-port";
import { loadServiceConfig, type ServiceConfig } from "./config";
import { jsonLogger } from "./http/log";
import { ADMIT_PATH, instanceKey } from "./http/owner";
import { INSTANCE_KEY_HEADER } from "./http/admission";
import { listen } from "./http/server";
import { createReplica } from "./replica";
import { loadRoutingConfig } from "./routing/loader";
import { bySequence, httpPoster } from "./routing/test-helpers";
import { clickhouseServerBinary } from "./testing/clickhouse";
import { startTestService, TEST_TOKEN_SECRET, type TestService } from "./testing/harness";

const ORDERS = OPERATION_TABLE.orders.servicePath;
const COHORT = OPERATION_TABLE.cohort.servicePath;

let owner: TestService;
const replicas: { url: string; logLines: string[]; close(): Promise<void> }[] = [];

function replicaConfig(ownerUrl: string): ServiceConfig {
  const ch = owner.clickhouse!;
  return loadServiceConfig({
    SERVICE_TOKEN_SECRET: TEST_TOKEN_SECRET,
    SERVICE_ENGINE: "clickhouse",
    CLICKHOUSE_URL: ch.urls.join(","),
    SERVICE_OWNER_URL: ownerUrl,
  });
}

async function startReplica(ownerUrl: string) {
  const logLines: string[] = [];
  const replica = await createReplica(replicaConfig(ownerUrl), jsonLogger((s) => logLines.push(s)));
  const { port } = (await listen(replica.server, 0, "127.0.0.1")) as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, logLines, close: () => replica.close() };
}

describe.skipIf(!clickhouseServerBinary())("an owner and two replicas", () => {
  beforeAll(async () => {
    owner = await startTestService({
      engine: "clickhouse",
      env: { REPORT_RATE_LIMIT: "5", ROUTING_RATE_LIMIT: "1000000", TOKEN_ADDRESS_RATE_LIMIT: "40", TOKEN_RATE_LIMIT: "1000" },
      setup: async (db) => {
        const r = await loadRoutingConfig(db, {
          groups: [{ group_id: 1, group_name: "rr3", selection_method: "ROUND_ROBIN", is_fallback: true, members: [{ gateway_id: 3 }, { gateway_id: 5 }, { gateway_id: 7 }] }],
          rules: [],
        });
        if (!r.ok) throw new Error(JSON.stringify(r.problems));
      },
    });
    for (let i = 0; i < 2; i++) replicas.push(await startReplica(owner.url));
  });
  afterAll(async () => {
    for (const r of replicas) await r.close();
    await owner?.stop();
  });

  const instances = () => [owner.url, ...replicas.map((r) => r.url)];

  it("answers every report on a replica as the owner does, with a token issued through a replica", async () => {
    const c = await owner.newClient("replica reader");
    // A token asked of a replica is the owner's: the replica relays the call.
    const tokenRes = await fetch(`${replicas[0]!.url}/api/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_id: c.client_id, client_secret: c.client_secret }) });
    expect(tokenRes.status).toBe(200);
    const token = ((await tokenRes.json()) as { data: { access_token: string } }).data.access_token;
    const headers = { "content-type": "application/json", authorization: `Bearer ${token}`, "x-client-id": c.client_id, "x-client-secret": c.client_secret };
    // Two requests on two instances and one refused: the client's 5 reports of the minute.
    const requests: [string, object][] = [
      [ORDERS, { start_date: "2025-06-15", end_date: "2025-07-31", group_by: ["date", "gateway_id"] }],
      [COHORT, { start_date: "2025-06-15", end_date: "2025-07-31", group_by: ["billing_cycle"] }],
    ];
    for (const [path, body] of requests) {
      const [onOwner, onReplica] = await Promise.all(
        [owner.url, replicas[1]!.url].map(async (base) => {
          const r = await fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
          expect(r.status).toBe(200);
          const j = (await r.json()) as { data: unknown[]; pagination: unknown };
          return { data: j.data, pagination: j.pagination };
        }),
      );
      expect(onReplica).toEqual(onOwner);
    }
    // Bad input is refused on the replica as on the owner, and costs the caller a call there too.
    const bad = await fetch(`${replicas[0]!.url}${ORDERS}`, { method: "POST", headers, body: JSON.stringify({ start_date: "2025-07-31", end_date: "2025-06-01" }) });
    expect(bad.status).toBe(400);
  });

  it("counts a client's reports in one window over every instance: of 30 at once, exactly 5 are answered", async () => {
    const c = await owner.newClient("spread");
    const headers = { "content-type": "application/json", authorization: `Bearer ${c.token}`, "x-client-id": c.client_id, "x-client-secret": c.client_secret };
    const body = JSON.stringify({ start_date: "2025-07-01", end_date: "2025-07-31", group_by: ["date"] });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => fetch(`${instances()[i % 3]}${ORDERS}`, { method: "POST", headers, body })));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(25);
    for (const r of answers.filter((a) => a.status === 429)) {
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
      const j = (await r.json()) as { code: number; retry_after: number; request_id: string };
      expect(j.code).toBe(429);
      expect(j.retry_after).toBeGreaterThanOrEqual(1);
      expect(j.request_id).toMatch(/^[0-9A-Z]{26}$/);
    }
  });

  it("refuses wrong credentials on a replica as the owner does (401), without counting them", async () => {
    const c = await owner.newClient("wrong secret");
    const headers = { "content-type": "application/json", authorization: `Bearer ${c.token}`, "x-client-id": c.client_id, "x-client-secret": "not-the-secret" };
    const r = await fetch(`${replicas[0]!.url}${ORDERS}`, { method: "POST", headers, body: JSON.stringify({ start_date: "2025-07-01", end_date: "2025-07-31" }) });
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toBe('Bearer realm="api"');
    expect(((await r.json()) as { message: string }).message).toBe("Invalid credentials");
    const missing = await fetch(`${replicas[1]!.url}${ORDERS}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(missing.status).toBe(401);
  });

  it("keeps routing exact with 1,200 concurrent calls spread over three instances: one rotation, 400 each", async () => {
    const posters = instances().map((u) => httpPoster(u, { authorization: `Bearer ${owner.token}` }, 64));
    try {
      const results = await Promise.all(Array.from({ length: 1200 }, (_, i) => posters[i % 3]!.route({ bin: "000000", customer_id: `c${i}` })));
      for (const r of results) expect(r.status).toBe(200);
      const answers = results.map((r) => BinRoutingResponseSchema.parse(r.body));
      const seq = bySequence(answers);
      seq.forEach((a, i) => expect(a.gateway_id).toBe(["3", "5", "7"][i % 3]));
      for (let i = 0; i + 1 < seq.length; i++) expect(seq[i]!.session_info.next_gateway_id).toBe(seq[i + 1]!.gateway_id);
      // Each instance's answers are a share of the one sequence (none kept a rotation of its own).
      for (let k = 0; k < 3; k++) expect(results.filter((_, i) => i % 3 === k)).toHaveLength(400);
    } finally {
      for (const p of posters) p.close();
    }
  });

  it("opens its admission and trusts a relayed address only for instances", async () => {
    const admit = (headers: Record<string, string>) =>
      fetch(`${owner.url}${ADMIT_PATH}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ auth: "client", bucket: "report" }) });
    expect((await admit({})).status).toBe(404);
    expect((await admit({ [INSTANCE_KEY_HEADER]: instanceKey("another-secret-another-secret-0123456789") })).status).toBe(404);
    expect((await admit({ [INSTANCE_KEY_HEADER]: instanceKey(TEST_TOKEN_SECRET) })).status).toBe(200);
    // Another method: still no such endpoint for anyone but an instance (a 405 would say there is one).
    expect((await fetch(`${owner.url}${ADMIT_PATH}`)).status).toBe(404);
    expect((await fetch(`${owner.url}${ADMIT_PATH}`, { headers: { [INSTANCE_KEY_HEADER]: instanceKey(TEST_TOKEN_SECRET) } })).status).toBe(405);
    // A caller naming other addresses is still one address: the per-address token limit holds.
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        fetch(`${owner.url}/api/auth/token`, { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": `10.0.0.${i}` }, body: JSON.stringify({ client_id: `made-up-${i}`, client_secret: "x" }) }),
      ),
    );
    expect(answers.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(20);
  });

  it("answers 503 with what to do when the owner cannot be reached, for reports and routing alike", async () => {
    const orphan = await startReplica(`http://127.0.0.1:${await freePort()}`);
    try {
      const headers = { "content-type": "application/json", authorization: `Bearer ${owner.token}`, "x-client-id": owner.client.client_id, "x-client-secret": owner.client.client_secret };
      for (const path of [ORDERS, "/api/bin-routing/route"]) {
        const r = await fetch(`${orphan.url}${path}`, { method: "POST", headers, body: JSON.stringify({ start_date: "2025-07-01", end_date: "2025-07-31", bin: "000000" }) });
        expect(r.status, path).toBe(503);
        const j = (await r.json()) as { message: string };
        expect(j.message).toBe("The service cannot reach its owner instance; try again shortly");
      }
      // The cause is in the replica's log, never in a body, and no secret is in either.
      expect(orphan.logLines.join("\n")).toMatch(/ECONNREFUSED/);
      for (const line of [...orphan.logLines, ...replicas.flatMap((r) => r.logLines), ...owner.logLines]) {
        expect(line).not.toContain(instanceKey(TEST_TOKEN_SECRET));
        expect(line).not.toContain(owner.client.client_secret);
      }
    } finally {
      await orphan.close();
    }
  });
});
