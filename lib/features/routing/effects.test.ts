/**
 * Measured after: the windows (equal, full days, the apply day in neither, cut before the next
 * version touching the same traffic), the figures as ratios of sums with "not enough data" below
 * the minimum, and the whole path against the real service: two versions loaded on chosen days, the
 * effect of the second read through the report gateway, its counts equal to direct service calls
 * over each window summed by the test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RoutingConfigVersion } from "@/lib/contract/bin-routing";
import type { RoutingConfig } from "@/lib/contract/routing-config";
import { UpstreamClient } from "@/lib/core/upstream/client";
import { loadRoutingConfig } from "@/service/routing/loader";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";
import { buildEffects, EFFECT_METRICS, measureEffect, planEffects, type EffectQuery, type RoutingEffectsAnswer } from "./effects";
import { loadRoutingEffects } from "./effects-load";

const member = (gateway_id: number) => ({ gateway_id, weight: 1, active: true });
const groups: RoutingConfig["groups"] = [
  { group_id: 1, group_name: "fallback", selection_method: "ROUND_ROBIN", cycle_scope: 2, is_fallback: true, members: [member(1), member(2)] },
  { group_id: 2, group_name: "two", selection_method: "ROUND_ROBIN", cycle_scope: 2, is_fallback: false, members: [member(3)] },
];

function version(n: number, created_at: string, rules: RoutingConfig["rules"]): RoutingConfigVersion {
  return { version: n, created_at, author: "a@test.local", reason: `v${n}`, client_id: null, restored_from: null, config: { groups, rules }, rotation: [] };
}
const bin = (name: string, prefix: string, group = 2) => ({ type: "BIN" as const, rule_name: name, bin_prefix: prefix, group_id: group, enabled: true });
const bank = (name: string, b: string, group: number) => ({ type: "BANK" as const, rule_name: name, bank: b, group_id: group, enabled: true });

describe("planEffects", () => {
  const versions = [
    version(1, "2025-06-01T08:00:00Z", []),
    version(2, "2025-06-10T23:30:00Z", [bin("A", "41472099")]),
    version(3, "2025-06-15T09:00:00Z", [bin("A", "41472099"), bank("B", "CHASE", 2)]),
    version(4, "2025-06-18T09:00:00Z", [bin("A", "41472011", 1), bank("B", "CHASE", 2)]),
    version(5, "2025-06-25T09:00:00Z", [bin("A", "41472011", 1), bank("B", "CHASE", 2)]),
    version(6, "2025-06-30T09:00:00Z", [bin("A", "41472011", 1), bank("B", "CHASE", 1)]),
  ];
  const plans = planEffects(versions, "2025-07-01", "UTC");
  const byVersion = new Map(plans.map((p) => [p.version, p]));

  it("lists the newest first, with the first version and group-only versions unmeasured, saying why", () => {
    expect(plans.map((p) => p.version)).toEqual([6, 5, 4, 3, 2, 1]);
    expect(byVersion.get(1)).toMatchObject({ queries: [], before: null, note: expect.stringContaining("first version") });
    expect(byVersion.get(5)).toMatchObject({ queries: [], note: expect.stringContaining("No rule changed") });
  });

  it("measures equal windows of full days around the apply day, cut before the next version touching the same BINs", () => {
    // Version 2 changed 41472099 (reports: 414720); version 4 changed the same 6 digits on 06-18.
    expect(byVersion.get(2)).toMatchObject({
      applied_date: "2025-06-10",
      affected: { bin_prefixes: ["41472099"], banks: [] },
      after: { start_date: "2025-06-11", end_date: "2025-06-17", days: 7 },
      before: { start_date: "2025-06-03", end_date: "2025-06-09", days: 7 },
    });
    expect(byVersion.get(2)!.queries).toEqual([
      {
        kind: "BIN",
        values: ["414720"],
        omitted: 0,
        request: { start_date: "2025-06-03", end_date: "2025-06-17", group_by: ["date"], metrics: EFFECT_METRICS, filters: { bin: ["414720"] } },
      },
    ]);
    // Version 3 added only the bank rule, changed again by version 6 on 06-30: 06-16 … 06-29.
    expect(byVersion.get(3)).toMatchObject({ affected: { bin_prefixes: [], banks: ["CHASE"] }, after: { start_date: "2025-06-16", end_date: "2025-06-29", days: 14 } });
    expect(byVersion.get(3)!.queries.map((q) => [q.kind, q.request.filters])).toEqual([["BANK", { bank: ["CHASE"] }]]);
    // At most 14 days, and never today.
    expect(byVersion.get(4)).toMatchObject({ after: { start_date: "2025-06-19", end_date: "2025-06-30", days: 12 }, before: { start_date: "2025-06-06", end_date: "2025-06-17" } });
    expect(byVersion.get(6)).toMatchObject({ after: null, queries: [], note: expect.stringContaining("first full day after the apply") });
  });

  it("gives a version overtaken within a day no after window of its own", () => {
    const quick = planEffects([version(1, "2025-06-01T08:00:00Z", []), version(2, "2025-06-10T08:00:00Z", [bin("A", "414720")]), version(3, "2025-06-10T09:00:00Z", [bin("A", "414720", 1)])], "2025-07-01", "UTC");
    expect(quick.find((p) => p.version === 2)).toMatchObject({ after: null, note: expect.stringContaining("Version 3 changed the same traffic") });
  });
});

describe("measureEffect", () => {
  const query: EffectQuery = { kind: "BIN", values: ["414720"], omitted: 0, request: { start_date: "", end_date: "", group_by: ["date"], metrics: [], filters: {} } };
  const before = { start_date: "2025-06-01", end_date: "2025-06-02", days: 2 };
  const after = { start_date: "2025-06-04", end_date: "2025-06-05", days: 2 };
  const records = [
    { date: "2025-06-01", attempts: 100, approvals: 50, cb_count: 1 },
    { date: "2025-06-02", attempts: 150, approvals: 70, cb_count: 2 },
    { date: "2025-06-03", attempts: 9999, approvals: 9999, cb_count: 9999 },
    { date: "2025-06-04", attempts: 120, approvals: 80, cb_count: 4 },
    { date: "2025-06-05", attempts: 80, approvals: 40, cb_count: 0 },
  ];

  it("sums each window (the apply day in neither) and compares ratios of sums", () => {
    const e = measureEffect(query, before, after, records, 200);
    expect(e.before).toMatchObject({ attempts: 250, approvals: 120, cb_count: 3, approval_rate: 120 / 250, cb_rate: 3 / 120 });
    expect(e.after).toMatchObject({ attempts: 200, approvals: 120, cb_count: 4, approval_rate: 0.6, cb_rate: 4 / 120 });
    expect(e).toMatchObject({ enough: true, note: null });
    expect(e.approval_change_pp).toBeCloseTo((0.6 - 0.48) * 100, 10);
    expect(e.cb_change_pp).toBeCloseTo((4 / 120 - 3 / 120) * 100, 10);
  });

  it("says not enough data, with the counts, when either window is below the minimum", () => {
    const e = measureEffect(query, before, after, records, 201);
    expect(e).toMatchObject({ enough: false, approval_change_pp: null, cb_change_pp: null });
    expect(e.note).toBe("Not enough data: 200 after; each window needs at least 201 attempts.");
    const empty = measureEffect(query, before, after, [], 1);
    expect(empty.before).toMatchObject({ attempts: 0, approval_rate: null, cb_rate: null });
    expect(empty.note).toContain("0 attempts before, 0 after");
  });

  it("buildEffects leaves unmeasured versions without effects", () => {
    const plans = planEffects([version(1, "2025-06-01T08:00:00Z", [])], "2025-07-01", "UTC");
    expect(buildEffects(plans, [[]])).toEqual([expect.objectContaining({ version: 1, effects: [] })]);
  });
});

describe("measured after, against the real service", () => {
  let svc: TestService;
  let top: string;
  beforeAll(async () => {
    svc = await startTestService({
      data: { days: 60, ordersPerDay: 300, seed: 11, endDate: "2025-07-31" },
      env: { REPORT_RATE_LIMIT: "1000000" },
      setup: async (db) => {
        const [row] = await db.all<{ bin: string }>(
          "SELECT bin FROM attempts WHERE attempt_date BETWEEN DATE '2025-06-26' AND DATE '2025-07-24' GROUP BY bin ORDER BY count(*) DESC, bin LIMIT 1",
        );
        top = row!.bin;
        const steps: [string, RoutingConfig["rules"]][] = [
          ["2025-07-01T10:00:00Z", []],
          ["2025-07-10T12:00:00Z", [bin("TOP", top)]],
        ];
        for (const [now, rules] of steps) {
          const r = await loadRoutingConfig(db, { groups, rules }, { now: new Date(now), author: "test", reason: "effects" });
          if (!r.ok) throw new Error(JSON.stringify(r.problems));
        }
      },
    });
  });
  afterAll(() => svc?.stop());

  it("measures the changed BIN in the 14 days before and after the apply day, counts equal to direct calls over each window", async () => {
    const gateway = gatewayFor(svc);
    const read = new UpstreamClient({ baseUrl: svc.url, clientId: svc.client.client_id, clientSecret: svc.client.client_secret, tokenUrl: `${svc.url}/api/auth/token` });
    const answer = (await loadRoutingEffects(gateway, { read, write: null }, { now: new Date("2025-07-31T12:00:00Z"), waitMs: 60_000, minAttempts: 20 })) as RoutingEffectsAnswer;
    expect(answer.state).toBe("done");
    const v2 = answer.versions.find((v) => v.version === 2)!;
    expect(v2).toMatchObject({
      applied_date: "2025-07-10",
      affected: { bin_prefixes: [top], banks: [] },
      before: { start_date: "2025-06-26", end_date: "2025-07-09", days: 14 },
      after: { start_date: "2025-07-11", end_date: "2025-07-24", days: 14 },
    });
    expect(v2.effects).toHaveLength(1);
    const e = v2.effects[0]!;
    for (const side of ["before", "after"] as const) {
      const w = v2[side]!;
      const direct = await svc.allRecords("/api/data", { start_date: w.start_date, end_date: w.end_date, metrics: ["attempts", "approvals", "cb_count"], filters: { bin: [top] } });
      const sum = (m: string) => direct.reduce((s, r) => s + Number(r[m] ?? 0), 0);
      expect(e[side]).toMatchObject({ attempts: sum("attempts"), approvals: sum("approvals"), cb_count: sum("cb_count") });
      expect(e[side].attempts).toBeGreaterThan(20);
      expect(e[side].approval_rate).toBe(sum("approvals") / sum("attempts"));
    }
    expect(e.enough).toBe(true);
    expect(answer.versions.find((v) => v.version === 1)).toMatchObject({ effects: [], note: expect.stringContaining("first version") });

    // Asked again: answered from the gateway's cache, no further upstream call.
    const calls = gateway.client.reportCalls;
    await loadRoutingEffects(gateway, { read, write: null }, { now: new Date("2025-07-31T12:00:00Z"), minAttempts: 20 });
    expect(gateway.client.reportCalls).toBe(calls);
  });
});
