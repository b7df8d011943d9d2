// The live configuration over HTTP against the real service: who may change it, every problem listed
// with nothing applied, optimistic concurrency, and 64 concurrent routing clients while a version is
// applied and then restored (no failed call, each answer from exactly one version, rotation exact per
// the documented rule).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BinRoutingResponseSchema } from "@/lib/contract";
import { RoutingConfigVersionSchema, RoutingValidationSchema } from "@/lib/contract/bin-routing";
import { createClient } from "../clients";
import { startTestService, type TestService } from "../testing/harness";
import { loadRoutingConfig } from "./loader";
import { httpPoster } from "./test-helpers";

const BIN_X = "999999";
const OTHER_BIN = "000000";

/** Version A: BIN_X → group 2; fallback rotates gateways 1, 2, 3. */
const configA = {
  groups: [
    { group_id: 1, group_name: "fallback", selection_method: "ROUND_ROBIN", is_fallback: true, members: [{ gateway_id: 1 }, { gateway_id: 2 }, { gateway_id: 3 }] },
    { group_id: 2, group_name: "two", selection_method: "ROUND_ROBIN", members: [{ gateway_id: 4 }, { gateway_id: 5 }] },
    { group_id: 3, group_name: "three", selection_method: "WEIGHTAGE", members: [{ gateway_id: 6, weight: 3 }, { gateway_id: 7, weight: 1 }] },
  ],
  rules: [{ type: "BIN", rule_name: "X", bin_prefix: BIN_X, group_id: 2, created_at: "2025-01-01T00:00:00Z" }],
};
/** Version B: BIN_X → group 3; the fallback's members change (3 → 4), groups 2 and 3 are unchanged. */
const configB = {
  groups: [
    { ...configA.groups[0]!, members: [{ gateway_id: 1 }, { gateway_id: 2 }, { gateway_id: 4 }] },
    configA.groups[1]!,
    configA.groups[2]!,
  ],
  rules: [{ type: "BIN", rule_name: "X", bin_prefix: BIN_X, group_id: 3, created_at: "2025-01-01T00:00:00Z" }],
};

let svc: TestService;
let admin: Record<string, string>;

beforeAll(async () => {
  svc = await startTestService({
    data: { days: 2, ordersPerDay: 5 },
    env: { ROUTING_RATE_LIMIT: "1000000", REPORT_RATE_LIMIT: "1000000" },
    setup: async (db) => {
      const r = await loadRoutingConfig(db, configA, { author: "test", reason: "version A" });
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
    },
  });
  const c = await createClient(svc.db, "routing admin", ["routing-admin"]);
  await svc.service.clients.refresh();
  const t = (await (await fetch(`${svc.url}/api/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(c) })).json()) as {
    data: { access_token: string };
  };
  admin = { authorization: `Bearer ${t.data.access_token}` };
});
afterAll(() => svc?.stop());

const getJson = async (path: string, headers = svc.authHeaders()) => {
  const r = await fetch(`${svc.url}${path}`, { headers });
  return { status: r.status, body: (await r.json()) as { data: unknown; message: string } };
};
const postJson = async (path: string, body: unknown, headers: Record<string, string>) => {
  const r = await svc.post(path, body, headers);
  return { status: r.status, body: (await r.json()) as { data: unknown; message: string; error?: { type: string; details?: { path: string; message: string }[] } } };
};
const liveVersion = async () => RoutingConfigVersionSchema.parse((await getJson("/api/bin-routing/config")).body.data).version;

describe("live routing configuration", () => {
  it("is read by any client, changed only with the routing-admin scope", async () => {
    const live = await getJson("/api/bin-routing/config");
    expect(live.status).toBe(200);
    const v = RoutingConfigVersionSchema.parse(live.body.data);
    expect(v).toMatchObject({ version: 1, author: "test", reason: "version A", client_id: null });

    const refused = await postJson("/api/bin-routing/config", { ...configB, reason: "try", author: "someone" }, svc.authHeaders());
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain("routing-admin scope");
    const restore = await postJson("/api/bin-routing/config/restore", { reason: "try", author: "someone" }, svc.authHeaders());
    expect(restore.status).toBe(403);
    expect(await liveVersion()).toBe(1);
  });

  it("lists every problem and applies nothing; validate is a dry run; a stale expected_version is a 409", async () => {
    const bad = {
      groups: [
        { group_id: 1, group_name: "", selection_method: "SOMETIMES", is_fallback: true, members: [{ gateway_id: 1 }, { gateway_id: 1 }, { gateway_id: 999_999 }] },
      ],
      rules: [{ type: "BIN", rule_name: "X", bin_prefix: "12", group_id: 9 }],
      author: "admin",
    };
    const r = await postJson("/api/bin-routing/config", bad, admin);
    expect(r.status).toBe(400);
    const paths = (r.body.error?.details ?? []).map((d) => d.path).sort();
    expect(paths).toEqual(
      ["groups[0].group_name", "groups[0].members[1].gateway_id", "groups[0].members[2].gateway_id", "groups[0].selection_method", "reason", "rules[0].bin_prefix", "rules[0].group_id"].sort(),
    );
    expect(await liveVersion()).toBe(1);

    const dry = await postJson("/api/bin-routing/config/validate", configB, svc.authHeaders());
    expect(dry.status).toBe(200);
    const check = RoutingValidationSchema.parse(dry.body.data);
    expect(check.valid).toBe(true);
    expect(check.rotation.map((o) => [o.group_id, o.outcome])).toEqual([
      [1, "reset"],
      [2, "kept"],
      [3, "kept"],
    ]);
    expect(check.rotation[0]!.reason).toContain("gateways added: 4; gateways removed: 3");
    expect(await liveVersion()).toBe(1);

    const stale = await postJson("/api/bin-routing/config", { ...configB, reason: "stale", author: "admin", expected_version: 7 }, admin);
    expect(stale.status).toBe(409);
    expect(stale.body.error?.type).toBe("ConflictError");
    expect(await liveVersion()).toBe(1);
  });

  it("64 concurrent routing clients through an apply and a restore: no failed call, one version per answer, exact rotation", async () => {
    const poster = httpPoster(svc.url, { authorization: `Bearer ${svc.token}` }, 64);
    const answers: { bin: string; group: number; gateway: number; call: number; mids: number }[] = [];
    const failures: string[] = [];
    let stop = false;
    const worker = async (w: number) => {
      for (let k = 0; !stop; k++) {
        const bin = (w + k) % 2 === 0 ? BIN_X : OTHER_BIN;
        try {
          const res = await poster.route({ bin, customer_id: `w${w}-${k}` });
          if (res.status !== 200) {
            failures.push(`${res.status} ${JSON.stringify(res.body)}`);
            continue;
          }
          const b = BinRoutingResponseSchema.parse(res.body);
          answers.push({ bin, group: b.group_id, gateway: Number(b.gateway_id), call: b.session_info.total_calls, mids: b.session_info.total_mids });
        } catch (e) {
          failures.push(String(e));
        }
      }
    };
    const until = async (n: number) => {
      while (answers.length < n && failures.length === 0) await new Promise((r) => setTimeout(r, 5));
    };
    const running = Promise.all(Array.from({ length: 64 }, (_, w) => worker(w)));

    await until(600);
    const applied = await postJson("/api/bin-routing/config", { ...configB, reason: "move BIN X to group 3", author: "admin", expected_version: 1 }, admin);
    expect(applied.status).toBe(200);
    const vB = RoutingConfigVersionSchema.parse(applied.body.data);
    await until(answers.length + 600);
    const restored = await postJson("/api/bin-routing/config/restore", { reason: "back to A", author: "admin" }, admin);
    expect(restored.status).toBe(200);
    const vA2 = RoutingConfigVersionSchema.parse(restored.body.data);
    await until(answers.length + 600);
    stop = true;
    await running;
    poster.close();

    expect(failures).toEqual([]);
    expect(vB).toMatchObject({ version: 2, restored_from: null, author: "admin", reason: "move BIN X to group 3" });
    expect(vA2).toMatchObject({ version: 3, restored_from: 1, reason: "back to A" });
    const versions = (await getJson("/api/bin-routing/config/versions")).body.data as unknown[];
    expect(vA2.config).toEqual(RoutingConfigVersionSchema.parse(versions[2]).config);
    const outcome = (v: typeof vB, g: number) => v.rotation.find((o) => o.group_id === g)!;
    expect([1, 2, 3].map((g) => outcome(vB, g).outcome)).toEqual(["reset", "kept", "kept"]);
    expect([1, 2, 3].map((g) => outcome(vA2, g).outcome)).toEqual(["reset", "kept", "kept"]);

    // BIN X goes to group 2 (A) or group 3 (B), never elsewhere; each group's calls form one
    // unbroken sequence, and the kept groups rotate as if nothing had changed.
    const xs = answers.filter((a) => a.bin === BIN_X);
    expect(new Set(xs.map((a) => a.group))).toEqual(new Set([2, 3]));
    const seq = (g: number) => answers.filter((a) => a.group === g).sort((a, b) => a.call - b.call);
    for (const g of [1, 2, 3]) expect(seq(g).map((a) => a.call)).toEqual(seq(g).map((_, i) => i + 1));
    expect(seq(2).map((a) => a.gateway)).toEqual(seq(2).map((_, i) => [4, 5][i % 2]));
    const wrr = [6, 6, 7, 6]; // smooth weighted round-robin of 3:1
    expect(seq(3).map((a) => a.gateway)).toEqual(seq(3).map((_, i) => wrr[i % 4]));
    // Group 3 answered only under B, group 2 only under A: B's calls to BIN X are exactly group 3's.
    expect(seq(3).length).toBeGreaterThan(0);

    // The fallback restarted at each change, at the call count the change recorded: A, then B, then A again.
    const r1 = outcome(vB, 1).total_calls;
    const r2 = outcome(vA2, 1).total_calls;
    expect(r1).toBeGreaterThan(0);
    expect(r2).toBeGreaterThan(r1);
    const membersA = [1, 2, 3];
    const membersB = [1, 2, 4];
    const expected = seq(1).map((a) => (a.call <= r1 ? membersA[(a.call - 1) % 3] : a.call <= r2 ? membersB[(a.call - r1 - 1) % 3] : membersA[(a.call - r2 - 1) % 3]));
    expect(seq(1).map((a) => a.gateway)).toEqual(expected);
    expect(seq(1).filter((a) => a.call > r1 && a.call <= r2).length).toBeGreaterThan(0);
    expect(seq(1).filter((a) => a.call > r2).length).toBeGreaterThan(0);

    // The state the service reports continues from there.
    const live = (await getJson("/api/bin-routing/config")).body.data as { version: number; groups_state: { group_id: number; total_calls: number }[] };
    expect(live.version).toBe(3);
    expect(live.groups_state.map((s) => s.total_calls)).toEqual([1, 2, 3].map((g) => seq(g).length));
  });

  it("restores a named version and lists versions newest first", async () => {
    const r = await postJson("/api/bin-routing/config/restore", { version: 2, reason: "B again", author: "admin", expected_version: 3 }, admin);
    expect(r.status).toBe(200);
    expect(RoutingConfigVersionSchema.parse(r.body.data)).toMatchObject({ version: 4, restored_from: 2 });
    const routed = BinRoutingResponseSchema.parse(await (await svc.post("/api/bin-routing/route", { bin: BIN_X })).json());
    expect(routed.group_id).toBe(3);
    const list = (await getJson("/api/bin-routing/config/versions")).body.data as { version: number }[];
    expect(list.map((v) => v.version)).toEqual([4, 3, 2, 1]);
    const missing = await postJson("/api/bin-routing/config/restore", { version: 99, reason: "x", author: "admin" }, admin);
    expect(missing.status).toBe(404);
  });
});
