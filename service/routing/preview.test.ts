// The preview extension (POST /api/bin-routing/preview) over real HTTP: the answer the next routed
// call would get, while no rotation, counter, journal or pre-drawn random pick moves.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BinRoutingResponseSchema, type BinRoutingResponse } from "@/lib/contract";
import { startTestService, type TestService } from "../testing/harness";
import { loadRoutingConfig } from "./loader";
import { binsByBank } from "./test-helpers";

let svc: TestService;
let bins: { rr: string; weighted: string; random: string };

beforeAll(async () => {
  svc = await startTestService({
    data: { days: 1, ordersPerDay: 1 },
    env: { ROUTING_RATE_LIMIT: "40", TOKEN_RATE_LIMIT: "1000" },
    setup: async (db) => {
      const [a] = await binsByBank(db);
      bins = { rr: a!.bins[0]!, weighted: a!.bins[1]!, random: a!.bins[2]! };
      const members = (ids: number[], weights?: number[]) => ids.map((gateway_id, i) => ({ gateway_id, ...(weights ? { weight: weights[i]! } : {}) }));
      const r = await loadRoutingConfig(db, {
        groups: [
          { group_id: 1, group_name: "fallback", selection_method: "ROUND_ROBIN", members: members([1]), is_fallback: true },
          { group_id: 2, group_name: "rr", selection_method: "ROUND_ROBIN", members: members([2, 3, 4]) },
          { group_id: 3, group_name: "weighted", selection_method: "WEIGHTAGE", members: members([5, 6], [3, 1]) },
          { group_id: 4, group_name: "random", selection_method: "RANDOM", members: members([7, 8, 9, 10]) },
        ],
        rules: [
          { type: "BIN", rule_name: "rr", bin_prefix: bins.rr, group_id: 2 },
          { type: "BIN", rule_name: "weighted", bin_prefix: bins.weighted, group_id: 3 },
          { type: "BIN", rule_name: "random", bin_prefix: bins.random, group_id: 4 },
        ],
      });
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
    },
  });
});
afterAll(async () => svc?.stop());

async function call(path: "route" | "preview", bin: string): Promise<BinRoutingResponse> {
  const res = await svc.post(`/api/bin-routing/${path}`, { bin });
  expect(res.status).toBe(200);
  return BinRoutingResponseSchema.parse(await res.json());
}

describe("routing preview", () => {
  it.each(["rr", "weighted", "random"] as const)("answers what the next routed call gets, for %s groups, and moves nothing", async (kind) => {
    const bin = bins[kind];
    await call("route", bin); // a state that is not the initial one
    const previews = await Promise.all(Array.from({ length: 8 }, () => call("preview", bin)));
    // Every preview, however many and however concurrent, gives the same answer.
    expect(new Set(previews.map((p) => `${p.gateway_id}/${p.session_info.current_index}/${p.session_info.total_calls}`)).size).toBe(1);
    // The routed call is the one after the first route: the previews did not advance anything.
    const routed = await call("route", bin);
    expect(routed.gateway_id).toBe(previews[0]!.gateway_id);
    expect(routed.session_info.current_index).toBe(previews[0]!.session_info.current_index);
    expect(routed.session_info.total_calls).toBe(previews[0]!.session_info.total_calls);
  });

  it("validates, authenticates and counts like routing", async () => {
    const bad = await svc.post("/api/bin-routing/preview", { bin: "12ab" });
    expect(bad.status).toBe(400);
    const anonymous = await fetch(`${svc.url}/api/bin-routing/preview`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ bin: bins.rr }) });
    expect(anonymous.status).toBe(401);
    const ok = await svc.post("/api/bin-routing/preview", { bin: bins.rr });
    expect(ok.headers.get("x-ratelimit-limit")).toBe("40");
    const statuses: number[] = [];
    for (let i = 0; i < 45; i++) statuses.push((await svc.post("/api/bin-routing/preview", { bin: bins.rr })).status);
    expect(statuses).toContain(429);
  });
});
