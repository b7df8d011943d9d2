// The preview of a configuration (POST /api/bin-routing/config/preview) over real HTTP: per BIN, the
// live decision and the one a proposed configuration would give, built as an apply builds it (checks,
// rotation rule) but never swapped in: no rotation, counter, version or journal line moves.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BinRoutingResponseSchema } from "@/lib/contract";
import { RoutingLiveConfigSchema, RoutingPreviewSchema, type RoutingPreview } from "@/lib/contract/bin-routing";
import { startTestService, type TestService } from "../testing/harness";
import { journalSegments } from "./journal-segments";
import { loadRoutingConfig } from "./loader";
import { binsByBank } from "./test-helpers";

const BIN_X = "999999";
const BIN_X8 = "99999912";
const UNKNOWN_BIN = "000000";

let svc: TestService;
let bankBin: string;
let bank: string;

const configFor = (bankName: string) => ({
  groups: [
    { group_id: 1, group_name: "fallback", selection_method: "ROUND_ROBIN", is_fallback: true, members: [{ gateway_id: 1 }, { gateway_id: 2 }, { gateway_id: 3 }] },
    { group_id: 2, group_name: "two", selection_method: "ROUND_ROBIN", members: [{ gateway_id: 4 }, { gateway_id: 5 }] },
    { group_id: 3, group_name: "three", selection_method: "WEIGHTAGE", members: [{ gateway_id: 6, weight: 3 }, { gateway_id: 7, weight: 1 }] },
    { group_id: 4, group_name: "initials only", selection_method: "ROUND_ROBIN", cycle_scope: 0, members: [{ gateway_id: 8 }] },
  ],
  rules: [
    { type: "BIN", rule_name: "X", bin_prefix: BIN_X, group_id: 2, created_at: "2025-01-01T00:00:00Z" },
    { type: "BIN", rule_name: "X8 initials", bin_prefix: BIN_X8, group_id: 4, created_at: "2025-01-01T00:00:00Z" },
    { type: "BANK", rule_name: "the bank", bank: bankName, group_id: 3, created_at: "2025-01-01T00:00:00Z" },
  ],
});

beforeAll(async () => {
  svc = await startTestService({
    data: { days: 2, ordersPerDay: 5 },
    env: { ROUTING_RATE_LIMIT: "1000000" },
    setup: async (db) => {
      const [first] = await binsByBank(db);
      bank = first!.bank;
      bankBin = first!.bins[0]!;
      const r = await loadRoutingConfig(db, configFor(bank), { author: "test", reason: "base" });
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
    },
  });
});
afterAll(() => svc?.stop());

async function preview(body: unknown): Promise<RoutingPreview> {
  const res = await svc.post("/api/bin-routing/config/preview", body);
  const json = (await res.json()) as { data: unknown };
  expect(res.status, JSON.stringify(json)).toBe(200);
  return RoutingPreviewSchema.parse(json.data);
}

async function live() {
  const r = await fetch(`${svc.url}/api/bin-routing/config`, { headers: svc.authHeaders() });
  return RoutingLiveConfigSchema.parse(((await r.json()) as { data: unknown }).data);
}

async function versionCount(): Promise<number> {
  const r = await fetch(`${svc.url}/api/bin-routing/config/versions`, { headers: svc.authHeaders() });
  return ((await r.json()) as { data: unknown[] }).data.length;
}

/** The last journal batch written: the newest line of the segments, or the folded checkpoint (segments first: a fold deletes them after its checkpoint). */
async function journalSeq(): Promise<number> {
  let last = 0;
  for (const s of journalSegments(join(svc.dir, "service.duckdb"))) {
    for (const line of readFileSync(s.path, "utf8").split("\n")) {
      if (line.trim() === "") continue;
      last = Math.max(last, (JSON.parse(line) as { seq: number }).seq);
    }
  }
  const [row] = await svc.db.all<{ s: number | string }>("SELECT max(applied_seq) AS s FROM routing_journal_checkpoint");
  return Math.max(last, Number(row?.s ?? 0));
}

async function route(bin: string) {
  const res = await svc.post("/api/bin-routing/route", { bin });
  expect(res.status).toBe(200);
  return BinRoutingResponseSchema.parse(await res.json());
}

describe("preview of a configuration", () => {
  it("without a configuration: the live decision on both sides, with the rule, group, gateway and why", async () => {
    await route(BIN_X); // group 2 is now at its second member
    const p = await preview({ bins: [BIN_X, bankBin, UNKNOWN_BIN] });
    expect(p.live_version).toBe(1);
    expect(p.proposed_valid).toBe(true);
    expect(p.problems).toEqual([]);
    expect(p.rows.map((r) => r.bin)).toEqual([BIN_X, bankBin, UNKNOWN_BIN]);
    const [x, b, unknown] = p.rows;
    expect(x!.live).toEqual({ rule_id: 1, rule_name: "X", matched_by: "BIN", is_fallback: false, group_id: 2, group_name: "two", gateway_id: "5", reason: `BIN prefix ${BIN_X} matches rule "X"` });
    expect(b!.live).toEqual({ rule_id: 3, rule_name: "the bank", matched_by: "BANK", is_fallback: false, group_id: 3, group_name: "three", gateway_id: "6", reason: `issuing bank ${bank} matches rule "the bank"` });
    expect(unknown!.live).toMatchObject({ rule_id: null, rule_name: "FALLBACK", matched_by: "FALLBACK", is_fallback: true, group_id: 1, gateway_id: "1" });
    for (const r of p.rows) expect(r.proposed).toEqual(r.live);
  });

  it("follows the sales type as routing does: a rebill skips the initials-only rule", async () => {
    const initials = await preview({ bins: [BIN_X8], sales_type: "initials" });
    expect(initials.rows[0]!.live).toMatchObject({ rule_name: "X8 initials", group_id: 4, gateway_id: "8" });
    const rebills = await preview({ bins: [BIN_X8], sales_type: "REBILLS" });
    // The 6-digit rule still matches the 8-digit BIN when the longer one's group does not admit rebills.
    expect(rebills.rows[0]!.live).toMatchObject({ rule_name: "X", group_id: 2 });
  });

  it("builds the proposed table as an apply would: rules moved, rotation kept for unchanged groups, restarted for changed ones", async () => {
    const before = await live();
    const proposed = configFor(bank);
    proposed.groups[0] = { ...proposed.groups[0]!, members: [{ gateway_id: 3 }, { gateway_id: 2 }, { gateway_id: 1 }] }; // fallback reordered: reset
    proposed.rules[0] = { ...proposed.rules[0]!, group_id: 3 }; // BIN_X to the unchanged weighted group
    const p = await preview({ config: proposed, bins: [BIN_X, UNKNOWN_BIN, bankBin] });
    expect(p.proposed_valid).toBe(true);
    const [x, unknown, b] = p.rows;
    const next = (g: number) => before.groups_state.find((s) => s.group_id === g)!.next_gateway_id;
    expect(x!.live).toMatchObject({ group_id: 2, gateway_id: next(2) });
    expect(x!.proposed).toMatchObject({ rule_id: 1, rule_name: "X", group_id: 3, gateway_id: next(3) });
    expect(unknown!.proposed).toMatchObject({ is_fallback: true, gateway_id: "3" }); // restarted at its first active member
    expect(b!.proposed).toEqual(b!.live);
  });

  it("moves nothing: rotation, counters, versions and the journal are as before, and the next routed call is the one previewed", async () => {
    await route(UNKNOWN_BIN);
    const before = { live: await live(), versions: await versionCount(), journal: await journalSeq() };
    const proposed = configFor(bank);
    proposed.groups[1] = { ...proposed.groups[1]!, members: [{ gateway_id: 5 }, { gateway_id: 4 }] };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => preview(i % 2 === 0 ? { bins: [BIN_X, UNKNOWN_BIN, bankBin] } : { config: proposed, bins: [BIN_X, UNKNOWN_BIN, bankBin] })),
    );
    expect(new Set(answers.map((a) => JSON.stringify(a.rows.map((r) => r.live)))).size).toBe(1);
    const after = { live: await live(), versions: await versionCount(), journal: await journalSeq() };
    expect(after.live.groups_state).toEqual(before.live.groups_state);
    expect(after.live.version).toBe(before.live.version);
    expect(after.versions).toBe(before.versions);
    expect(after.journal).toBe(before.journal);

    const routed = await route(BIN_X);
    expect(routed.gateway_id).toBe(answers[0]!.rows[0]!.live!.gateway_id);
    const calls = (l: typeof before.live, g: number) => l.groups_state.find((s) => s.group_id === g)!.total_calls;
    expect(routed.session_info.total_calls).toBe(calls(before.live, 2) + 1);
    expect(await journalSeq()).toBeGreaterThan(before.journal);
  });

  it("a configuration with problems: every problem with its path, only the live side, nothing changed", async () => {
    const before = { live: await live(), versions: await versionCount() };
    const bad = configFor(bank);
    bad.groups[1] = { ...bad.groups[1]!, members: [{ gateway_id: 4 }, { gateway_id: 4 }] };
    const broken = { ...bad, rules: [...bad.rules, { type: "BIN", rule_name: "nowhere", bin_prefix: "12", group_id: 99 }] };
    const p = await preview({ config: broken, bins: [BIN_X] });
    expect(p.proposed_valid).toBe(false);
    expect(p.problems.map((x) => x.path)).toEqual(expect.arrayContaining(["groups[1].members[1].gateway_id", "rules[3].bin_prefix"]));
    expect(p.problems.length).toBeGreaterThanOrEqual(3);
    expect(p.rows).toEqual([{ bin: BIN_X, live: expect.objectContaining({ group_id: 2 }), proposed: null }]);
    const after = { live: await live(), versions: await versionCount() };
    expect(after).toEqual(before);
  });

  it("refuses a bad request with every problem, needs a token, and counts in the routing bucket", async () => {
    for (const body of [{ bins: [] }, { bins: ["12ab"] }, { bins: Array.from({ length: 501 }, () => BIN_X) }, { bins: [BIN_X], sales_type: "SOMETIMES" }, { bins: [BIN_X], extra: 1 }]) {
      const res = await svc.post("/api/bin-routing/config/preview", body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const j = (await res.json()) as { error: { details: { path: string }[] } };
      expect(j.error.details.length).toBeGreaterThan(0);
    }
    expect((await preview({ bins: Array.from({ length: 500 }, () => BIN_X) })).rows).toHaveLength(500);
    const anonymous = await fetch(`${svc.url}/api/bin-routing/config/preview`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ bins: [BIN_X] }) });
    expect(anonymous.status).toBe(401);
    const ok = await svc.post("/api/bin-routing/config/preview", { bins: [BIN_X] });
    expect(ok.headers.get("x-ratelimit-limit")).toBe("1000000");
  });
});
