/**
 * The routing workspace's editor, as pure functions over a configuration in the file format
 * (lib/contract/routing-config.ts): the rules in the order the service resolves them, edits that
 * return a new configuration, the validate endpoint's problems sorted to the field they name, and a
 * proposal from evidence turned into a rule. Browser-safe; the page's components only draw these.
 */
import type { RoutingConfig, RoutingGroupConfig, RoutingRuleConfig } from "@/lib/contract/routing-config";
import { midName } from "@/lib/report/mid-name";
import type { MidNamer, Proposal } from "./proposals";

export type { RoutingConfig, RoutingGroupConfig, RoutingRuleConfig };

/** A problem as the validate endpoint and the service name it: a JSON path into the configuration. */
export interface PathProblem {
  path: string;
  message: string;
}

/**
 * The rules in precedence order, as the service resolves a call (docs/routing.md "Resolution"): BIN
 * rules first, the longest prefix first, then the newest `created_at` (a rule without one counts as
 * newest: the service stamps it when applied), equal times the later in the file first; then BANK
 * rules, newest first. Each keeps its index in the file, which the editor and problems refer to.
 */
export function rulesInPrecedence(rules: readonly RoutingRuleConfig[]): { rule: RoutingRuleConfig; index: number }[] {
  const time = (r: RoutingRuleConfig) => (r.created_at ? Date.parse(r.created_at) : Number.POSITIVE_INFINITY);
  return rules
    .map((rule, index) => ({ rule, index }))
    .sort((a, b) => {
      const ka = a.rule.type === "BIN" ? 0 : 1;
      const kb = b.rule.type === "BIN" ? 0 : 1;
      if (ka !== kb) return ka - kb;
      if (a.rule.type === "BIN" && b.rule.type === "BIN" && a.rule.bin_prefix.length !== b.rule.bin_prefix.length) {
        return b.rule.bin_prefix.length - a.rule.bin_prefix.length;
      }
      const ta = time(a.rule);
      const tb = time(b.rule);
      if (ta !== tb) return tb > ta ? 1 : -1;
      return b.index - a.index;
    });
}

/** The rule's condition in words: "BIN 414720…" or "bank Chase". */
export function ruleCondition(r: RoutingRuleConfig): string {
  return r.type === "BIN" ? `BIN ${r.bin_prefix}…` : `bank ${r.bank}`;
}

/** "Default rotation (#1)", or "#7 (no such group)". */
export function groupLabel(groups: readonly RoutingGroupConfig[], groupId: number): string {
  const g = groups.find((x) => x.group_id === groupId);
  return g ? `${g.group_name} (#${g.group_id})` : `#${groupId} (no such group)`;
}

// ---------------------------------------------------------------------------------------------
// Problems by field

/**
 * Problems for one field: those whose path is exactly `path`. The validate endpoint names a field's
 * path as `groups[0].members[1].weight`, `rules[2].bin_prefix` and so on.
 */
export function problemsAt(problems: readonly PathProblem[], path: string): string[] {
  return problems.filter((p) => p.path === path).map((p) => p.message);
}

/** The paths the editor draws a field for, so the problems no field shows can be listed on their own. */
export function editorPaths(config: RoutingConfig): Set<string> {
  const paths = new Set<string>();
  config.groups.forEach((g, i) => {
    for (const f of ["group_id", "group_name", "selection_method", "cycle_scope", "is_fallback"]) paths.add(`groups[${i}].${f}`);
    g.members.forEach((_, j) => {
      for (const f of ["gateway_id", "weight", "active"]) paths.add(`groups[${i}].members[${j}].${f}`);
    });
  });
  config.rules.forEach((r, i) => {
    for (const f of ["rule_name", "group_id", "enabled", r.type === "BIN" ? "bin_prefix" : "bank", "type"]) paths.add(`rules[${i}].${f}`);
  });
  return paths;
}

/** Problems whose path is no field of the editor (the whole file, a list, a group as a whole). */
export function problemsElsewhere(problems: readonly PathProblem[], config: RoutingConfig): PathProblem[] {
  const paths = editorPaths(config);
  return problems.filter((p) => !paths.has(p.path));
}

// ---------------------------------------------------------------------------------------------
// Edits (each returns a new configuration)

export function updateGroup(c: RoutingConfig, i: number, patch: Partial<Omit<RoutingGroupConfig, "members">>): RoutingConfig {
  return { ...c, groups: c.groups.map((g, k) => (k === i ? { ...g, ...patch } : g)) };
}

/** Only one group may be the fallback: making one the fallback clears the flag on the others. */
export function setFallback(c: RoutingConfig, i: number): RoutingConfig {
  return { ...c, groups: c.groups.map((g, k) => ({ ...g, is_fallback: k === i })) };
}

export function updateMember(c: RoutingConfig, gi: number, mi: number, patch: Partial<RoutingGroupConfig["members"][number]>): RoutingConfig {
  return { ...c, groups: c.groups.map((g, k) => (k === gi ? { ...g, members: g.members.map((m, j) => (j === mi ? { ...m, ...patch } : m)) } : g)) };
}

export function addMember(c: RoutingConfig, gi: number, gatewayId: number): RoutingConfig {
  return { ...c, groups: c.groups.map((g, k) => (k === gi ? { ...g, members: [...g.members, { gateway_id: gatewayId, weight: 1, active: true }] } : g)) };
}

export function removeMember(c: RoutingConfig, gi: number, mi: number): RoutingConfig {
  return { ...c, groups: c.groups.map((g, k) => (k === gi ? { ...g, members: g.members.filter((_, j) => j !== mi) } : g)) };
}

/** The smallest group id not in use (ids need not be contiguous). */
export function nextGroupId(c: RoutingConfig): number {
  const used = new Set(c.groups.map((g) => g.group_id));
  let id = 1;
  while (used.has(id)) id++;
  return id;
}

export function addGroup(c: RoutingConfig, gatewayId: number, name?: string): { config: RoutingConfig; groupId: number } {
  const groupId = nextGroupId(c);
  const group: RoutingGroupConfig = {
    group_id: groupId,
    group_name: name ?? `Group ${groupId}`,
    selection_method: "ROUND_ROBIN",
    cycle_scope: 2,
    is_fallback: false,
    members: [{ gateway_id: gatewayId, weight: 1, active: true }],
  };
  return { config: { ...c, groups: [...c.groups, group] }, groupId };
}

export function removeGroup(c: RoutingConfig, i: number): RoutingConfig {
  return { ...c, groups: c.groups.filter((_, k) => k !== i) };
}

export function updateRule(c: RoutingConfig, i: number, patch: Partial<{ rule_name: string; group_id: number; enabled: boolean; bin_prefix: string; bank: string }>): RoutingConfig {
  return {
    ...c,
    rules: c.rules.map((r, k) => {
      if (k !== i) return r;
      const { bin_prefix, bank, ...common } = patch;
      const next = { ...r, ...common };
      if (next.type === "BIN" && bin_prefix !== undefined) return { ...next, bin_prefix };
      if (next.type === "BANK" && bank !== undefined) return { ...next, bank };
      return next;
    }),
  };
}

/** A new rule at the end of the file, pointing at the fallback group (or the first) until chosen. */
export function addRule(c: RoutingConfig, type: "BIN" | "BANK"): RoutingConfig {
  const group = c.groups.find((g) => g.is_fallback) ?? c.groups[0];
  const n = c.rules.length + 1;
  const common = { rule_name: `New rule ${n}`, group_id: group?.group_id ?? 1, enabled: true };
  const rule: RoutingRuleConfig = type === "BIN" ? { type, bin_prefix: "", ...common } : { type, bank: "", ...common };
  return { ...c, rules: [...c.rules, rule] };
}

export function removeRule(c: RoutingConfig, i: number): RoutingConfig {
  return { ...c, rules: c.rules.filter((_, k) => k !== i) };
}

// ---------------------------------------------------------------------------------------------
// A proposal into the editor

export interface ProposalPlacement {
  config: RoutingConfig;
  /** The rule's index in the new configuration. */
  ruleIndex: number;
  /** What was done, in words, for the status line. */
  note: string;
}

/**
 * A proposal as a rule of the configuration: routed to a group whose only active member is the
 * proposed MID (made, named after the MID as `name` names it, when none exists). A rule on the same
 * BIN prefix or bank is re-pointed rather than duplicated, so the new group really takes those calls.
 */
export function applyProposal(c: RoutingConfig, p: Proposal, name: MidNamer = (id) => midName(id)): ProposalPlacement {
  const mid = name(p.proposed.gateway_id);
  const gatewayId = Number(p.proposed.gateway_id);
  const single = c.groups.find((g) => {
    const active = g.members.filter((m) => m.active);
    return active.length === 1 && active[0]!.gateway_id === gatewayId && !g.is_fallback;
  });
  let config = c;
  let groupId: number;
  let groupNote: string;
  if (single) {
    groupId = single.group_id;
    groupNote = `group ${single.group_name} (group #${groupId}), whose only active MID is ${mid}`;
  } else {
    const made = addGroup(c, gatewayId, mid);
    config = made.config;
    groupId = made.groupId;
    groupNote = `a new group “${mid}” (group #${groupId}) with that MID alone`;
  }
  const same = config.rules.findIndex((r) =>
    p.rule.type === "BIN" ? r.type === "BIN" && r.bin_prefix === p.rule.bin_prefix : r.type === "BANK" && r.bank === p.rule.bank,
  );
  if (same >= 0) {
    const name = config.rules[same]!.rule_name;
    return {
      config: updateRule(config, same, { group_id: groupId, enabled: true }),
      ruleIndex: same,
      note: `Rule "${name}" now routes to ${groupNote}.`,
    };
  }
  const rule: RoutingRuleConfig =
    p.rule.type === "BIN"
      ? { type: "BIN", bin_prefix: p.rule.bin_prefix, rule_name: p.rule.rule_name, group_id: groupId, enabled: true }
      : { type: "BANK", bank: p.rule.bank, rule_name: p.rule.rule_name, group_id: groupId, enabled: true };
  return {
    config: { ...config, rules: [...config.rules, rule] },
    ruleIndex: config.rules.length,
    note: `Added rule "${p.rule.rule_name}" routing to ${groupNote}.`,
  };
}
