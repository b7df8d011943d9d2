import { describe, expect, it } from "vitest";
import type { RoutingConfigFile } from "@/lib/contract/routing-config";
import { diffConfigs, normalizeConfig } from "./diff";

type File = RoutingConfigFile & { rules: NonNullable<RoutingConfigFile["rules"]> };

const base: File = {
  groups: [
    { group_id: 1, group_name: "fallback", selection_method: "ROUND_ROBIN", is_fallback: true, members: [{ gateway_id: 1 }, { gateway_id: 2 }, { gateway_id: 3 }] },
    { group_id: 2, group_name: "two", selection_method: "WEIGHTAGE", members: [{ gateway_id: 4, weight: 3 }, { gateway_id: 5 }] },
  ],
  rules: [
    { type: "BIN", rule_name: "A", bin_prefix: "414720", group_id: 2, created_at: "2025-01-01T00:00:00Z" },
    { type: "BANK", rule_name: "B", bank: "CHASE", group_id: 2 },
    { type: "BIN", rule_name: "C", bin_prefix: "55554444", group_id: 1 },
  ],
};

const norm = (c: unknown) => {
  const n = normalizeConfig(c);
  if (!n) throw new Error("test configuration has the wrong shape");
  return n;
};
const clone = (): File => structuredClone(base);

describe("diffConfigs", () => {
  it("sees no change between a configuration and itself, with defaults written out or not, and created_at ignored", () => {
    const explicit = clone();
    explicit.groups[0]!.members = explicit.groups[0]!.members.map((m) => ({ ...m, weight: 1, active: true }));
    explicit.groups[0]!.cycle_scope = 2;
    explicit.rules[0] = { ...explicit.rules[0]!, enabled: true, created_at: "2026-11-27T10:00:00Z" };
    const d = diffConfigs(norm(base), norm(explicit));
    expect(d).toEqual({ groups: [], rules: [], unchanged: true, affected: { bin_prefixes: [], banks: [] } });
  });

  it("lists every changed field of groups and members as before → after", () => {
    const next = clone();
    next.groups[1] = { ...next.groups[1]!, group_name: "two (Chase)", selection_method: "ROUND_ROBIN", members: [{ gateway_id: 5, active: false }, { gateway_id: 4, weight: 2 }, { gateway_id: 6 }] };
    const d = diffConfigs(norm(base), norm(next));
    expect(d.groups).toEqual([
      {
        group_id: 2,
        group_name: "two (Chase)",
        change: "changed",
        fields: [
          { field: "group_name", before: "two", after: "two (Chase)" },
          { field: "selection_method", before: "WEIGHTAGE", after: "ROUND_ROBIN" },
          { field: "member 5.active", before: true, after: false },
          { field: "member 4.weight", before: 3, after: 2 },
          { field: "member 6", before: null, after: "weight 1, active" },
          { field: "member order", before: "4, 5", after: "5, 4" },
        ],
      },
    ]);
    // Group changes alone route no BIN differently by rule.
    expect(d.affected).toEqual({ bin_prefixes: [], banks: [] });
    expect(d.rules).toEqual([]);
  });

  it("reports added and removed groups with all their fields on one side", () => {
    const next = clone();
    next.groups.push({ group_id: 9, group_name: "new", selection_method: "RANDOM", members: [{ gateway_id: 7 }] });
    next.groups.splice(1, 1);
    next.rules = next.rules.map((r) => ({ ...r, group_id: 9 }));
    const d = diffConfigs(norm(base), norm(next));
    expect(d.groups.map((g) => [g.group_id, g.change])).toEqual([
      [9, "added"],
      [2, "removed"],
    ]);
    expect(d.groups[0]!.fields).toContainEqual({ field: "selection_method", before: null, after: "RANDOM" });
    expect(d.groups[0]!.fields).toContainEqual({ field: "member 7", before: null, after: "weight 1, active" });
    expect(d.groups[1]!.fields).toContainEqual({ field: "group_name", before: "two", after: null });
    expect(d.groups[1]!.fields).toContainEqual({ field: "member 4", before: "weight 3, active", after: null });
  });

  it("matches rules by name: added, removed, changed fields, and a real reorder, with the BINs and banks they affect", () => {
    const next = clone();
    next.rules = [
      { type: "BIN", rule_name: "NEW", bin_prefix: "411111", group_id: 1 },
      { type: "BANK", rule_name: "B", bank: "CHASE", group_id: 2, enabled: false },
      { type: "BIN", rule_name: "A", bin_prefix: "414721", group_id: 1 },
    ];
    const d = diffConfigs(norm(base), norm(next));
    expect(d.rules).toEqual([
      {
        rule_name: "NEW",
        type: "BIN",
        change: "added",
        fields: [
          { field: "type", before: null, after: "BIN" },
          { field: "bin_prefix", before: null, after: "411111" },
          { field: "group_id", before: null, after: 1 },
          { field: "enabled", before: null, after: true },
          { field: "position", before: null, after: 1 },
        ],
      },
      { rule_name: "B", type: "BANK", change: "changed", fields: [{ field: "enabled", before: true, after: false }] },
      {
        rule_name: "A",
        type: "BIN",
        change: "changed",
        fields: [
          { field: "bin_prefix", before: "414720", after: "414721" },
          { field: "group_id", before: 2, after: 1 },
          { field: "position", before: 1, after: 3 },
        ],
      },
      {
        rule_name: "C",
        type: "BIN",
        change: "removed",
        fields: [
          { field: "type", before: "BIN", after: null },
          { field: "bin_prefix", before: "55554444", after: null },
          { field: "group_id", before: 1, after: null },
          { field: "enabled", before: true, after: null },
          { field: "position", before: 3, after: null },
        ],
      },
    ]);
    expect(d.affected).toEqual({ bin_prefixes: ["411111", "414720", "414721", "55554444"], banks: ["CHASE"] });
    expect(d.unchanged).toBe(false);
  });

  it("does not call a rule moved when another was only inserted above it", () => {
    const next = clone();
    next.rules.unshift({ type: "BANK", rule_name: "FIRST", bank: "HSBC", group_id: 1 });
    const d = diffConfigs(norm(base), norm(next));
    expect(d.rules.map((r) => [r.rule_name, r.change])).toEqual([["FIRST", "added"]]);
    expect(d.affected).toEqual({ bin_prefixes: [], banks: ["HSBC"] });
  });

  it("normalizeConfig refuses a configuration of the wrong shape", () => {
    expect(normalizeConfig({ groups: "none" })).toBeNull();
    expect(normalizeConfig(base)?.groups[0]?.members[0]).toEqual({ gateway_id: 1, weight: 1, active: true });
  });
});
