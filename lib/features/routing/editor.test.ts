import { describe, expect, it } from "vitest";
import { parseRoutingConfig, type RoutingConfig } from "@/lib/contract/routing-config";
import { addGroup, addRule, applyProposal, nextGroupId, problemsAt, problemsElsewhere, removeRule, rulesInPrecedence, setFallback, updateRule } from "./editor";
import { proposeFor, type Proposal } from "./proposals";

const base: RoutingConfig = {
  groups: [
    { group_id: 1, group_name: "Default", selection_method: "ROUND_ROBIN", cycle_scope: 2, is_fallback: true, members: [{ gateway_id: 10, weight: 1, active: true }, { gateway_id: 11, weight: 1, active: true }] },
    { group_id: 3, group_name: "Chase", selection_method: "WEIGHTAGE", cycle_scope: 2, is_fallback: false, members: [{ gateway_id: 16, weight: 5, active: true }, { gateway_id: 17, weight: 1, active: false }] },
  ],
  rules: [
    { type: "BANK", bank: "Chase", rule_name: "bank old", group_id: 3, enabled: true, created_at: "2025-01-01T00:00:00Z" },
    { type: "BIN", bin_prefix: "414720", rule_name: "six old", group_id: 3, enabled: true, created_at: "2025-01-01T00:00:00Z" },
    { type: "BIN", bin_prefix: "41472012", rule_name: "eight", group_id: 1, enabled: false, created_at: "2024-01-01T00:00:00Z" },
    { type: "BIN", bin_prefix: "414721", rule_name: "six new", group_id: 1, enabled: true, created_at: "2025-02-01T00:00:00Z" },
    { type: "BANK", bank: "Citi", rule_name: "bank new", group_id: 1, enabled: true, created_at: "2025-03-01T00:00:00Z" },
    { type: "BIN", bin_prefix: "414722", rule_name: "six same time, later in file", group_id: 1, enabled: true, created_at: "2025-01-01T00:00:00Z" },
  ],
};

describe("rulesInPrecedence", () => {
  it("orders BIN rules by prefix length, then newest, then later in the file; then BANK rules newest first", () => {
    expect(rulesInPrecedence(base.rules).map((r) => r.rule.rule_name)).toEqual(["eight", "six new", "six same time, later in file", "six old", "bank new", "bank old"]);
    expect(rulesInPrecedence(base.rules).map((r) => r.index)).toEqual([2, 3, 5, 1, 4, 0]);
  });
});

describe("problems by field", () => {
  it("puts a validate problem on the field its path names and lists the rest apart", () => {
    const bad = updateRule(base, 1, { bin_prefix: "41" });
    const parsed = parseRoutingConfig(bad);
    expect(parsed.config).toBeNull();
    expect(problemsAt(parsed.problems, "rules[1].bin_prefix")).toEqual(["bin_prefix must be a string of 6 to 8 digits"]);
    expect(problemsElsewhere(parsed.problems, bad)).toEqual([]);
    const noFallback = { ...base, groups: base.groups.map((g) => ({ ...g, is_fallback: false })) };
    expect(problemsElsewhere(parseRoutingConfig(noFallback).problems, noFallback).map((p) => p.path)).toEqual(["groups"]);
  });
});

describe("edits", () => {
  it("keeps exactly one fallback, gives new groups a free id, and adds and removes rules", () => {
    expect(setFallback(base, 1).groups.map((g) => g.is_fallback)).toEqual([false, true]);
    expect(nextGroupId(base)).toBe(2);
    const { config, groupId } = addGroup(base, 20);
    expect(groupId).toBe(2);
    expect(nextGroupId(config)).toBe(4);
    const added = addRule(base, "BIN");
    expect(added.rules).toHaveLength(7);
    expect(added.rules[6]).toMatchObject({ type: "BIN", bin_prefix: "", group_id: 1 });
    // An empty prefix is refused by the service's own schema, at that field.
    expect(problemsAt(parseRoutingConfig(added).problems, "rules[6].bin_prefix")).toHaveLength(1);
    expect(removeRule(added, 6)).toEqual(base);
  });
});

function proposal(key: string, gateway: string): Proposal {
  const p = proposeFor({
    kind: "BIN",
    key,
    current_gateway_id: "10",
    active_gateway_ids: ["10", "11", "16"],
    counts: [
      { gateway_id: "10", attempts: 2_000, approvals: 1_100, cb_count: 10 },
      { gateway_id: gateway, attempts: 2_000, approvals: 1_300, cb_count: 12 },
    ],
  });
  if (!p) throw new Error("the counts were meant to give a proposal");
  return p;
}

describe("applyProposal", () => {
  it("routes to the group whose only active MID is the proposed one, re-pointing a rule on the same prefix", () => {
    const placed = applyProposal(base, proposal("414720", "16"));
    expect(placed.ruleIndex).toBe(1);
    expect(placed.config.rules[1]).toMatchObject({ bin_prefix: "414720", group_id: 3, rule_name: "six old" });
    expect(placed.config.groups).toHaveLength(2);
    expect(parseRoutingConfig(placed.config).problems).toEqual([]);
  });

  it("makes a one-MID group and adds the proposal's rule when neither exists", () => {
    const placed = applyProposal(base, proposal("400000", "11"));
    expect(placed.config.groups.at(-1)).toMatchObject({ group_id: 2, group_name: "MID #11", members: [{ gateway_id: 11, weight: 1, active: true }] });
    expect(placed.config.rules[placed.ruleIndex]).toEqual({ type: "BIN", bin_prefix: "400000", rule_name: "BIN 400000 to MID #11", group_id: 2, enabled: true });
    expect(placed.note).toContain("a new group “MID #11” (group #2)");
    // Named as the page names MIDs, when it knows the alias.
    const named = applyProposal(base, proposal("400000", "11"), (id) => `Wells ${id} (#${id})`);
    expect(named.config.groups.at(-1)).toMatchObject({ group_name: "Wells 11 (#11)" });
    expect(named.note).toContain("a new group “Wells 11 (#11)” (group #2)");
    expect(parseRoutingConfig(placed.config).problems).toEqual([]);
  });
});
