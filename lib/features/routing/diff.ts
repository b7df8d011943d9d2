/**
 * What a routing configuration change changes (pure; the workspace's review and the measured-after
 * panel both use it): groups matched by group_id and rules matched by rule_name (both unique in a
 * valid file), each added, removed or changed with every changed field as before → after.
 *
 * Both sides are compared with the file format's defaults filled in (weight 1, active, enabled,
 * scope 2, not the fallback), so writing a default out or leaving it implicit is no change.
 * created_at is not compared: the service stamps rules without one when it applies them, so an
 * edited copy of the live configuration would otherwise differ in every new rule.
 */
import { RoutingConfigFileSchema, type RoutingConfig, type RoutingGroupConfig, type RoutingRuleConfig } from "@/lib/contract/routing-config";

export type DiffValue = string | number | boolean | null;

export interface FieldChange {
  /** The field as the file names it; members as "member <gateway_id>[.weight|.active]", and "member order". */
  field: string;
  before: DiffValue;
  after: DiffValue;
}

export type ChangeKind = "added" | "removed" | "changed";

export interface GroupDiff {
  group_id: number;
  group_name: string;
  change: ChangeKind;
  /** For "changed": what differs. For "added"/"removed": every field of the group on its one side. */
  fields: FieldChange[];
}

export interface RuleDiff {
  rule_name: string;
  type: "BIN" | "BANK";
  change: ChangeKind;
  fields: FieldChange[];
}

export interface ConfigDiff {
  groups: GroupDiff[];
  rules: RuleDiff[];
  /** True when neither groups nor rules differ. */
  unchanged: boolean;
  /**
   * Traffic whose rule changed: the BIN prefixes and banks of every rule added, removed or changed,
   * on both sides of the change (a prefix moved from 414720 to 414721 affects both).
   */
  affected: { bin_prefixes: string[]; banks: string[] };
}

/** The configuration with the file format's defaults filled in, or null when its shape is wrong. */
export function normalizeConfig(input: unknown): RoutingConfig | null {
  const r = RoutingConfigFileSchema.safeParse(input);
  return r.success ? r.data : null;
}

function memberText(m: RoutingGroupConfig["members"][number]): string {
  return `weight ${m.weight}, ${m.active ? "active" : "inactive"}`;
}

function groupFields(g: RoutingGroupConfig): Record<string, DiffValue> {
  return {
    group_name: g.group_name,
    selection_method: g.selection_method,
    cycle_scope: g.cycle_scope,
    is_fallback: g.is_fallback,
  };
}

function ruleFields(r: RoutingRuleConfig): Record<string, DiffValue> {
  return r.type === "BIN"
    ? { type: r.type, bin_prefix: r.bin_prefix, group_id: r.group_id, enabled: r.enabled }
    : { type: r.type, bank: r.bank, group_id: r.group_id, enabled: r.enabled };
}

function fieldChanges(before: Record<string, DiffValue>, after: Record<string, DiffValue>): FieldChange[] {
  const out: FieldChange[] = [];
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const b = before[field] ?? null;
    const a = after[field] ?? null;
    if (b !== a) out.push({ field, before: b, after: a });
  }
  return out;
}

function memberChanges(before: RoutingGroupConfig, after: RoutingGroupConfig): FieldChange[] {
  const out: FieldChange[] = [];
  const b = new Map(before.members.map((m) => [m.gateway_id, m]));
  const a = new Map(after.members.map((m) => [m.gateway_id, m]));
  for (const m of after.members) {
    const prev = b.get(m.gateway_id);
    if (!prev) out.push({ field: `member ${m.gateway_id}`, before: null, after: memberText(m) });
    else {
      if (prev.weight !== m.weight) out.push({ field: `member ${m.gateway_id}.weight`, before: prev.weight, after: m.weight });
      if (prev.active !== m.active) out.push({ field: `member ${m.gateway_id}.active`, before: prev.active, after: m.active });
    }
  }
  for (const m of before.members) if (!a.has(m.gateway_id)) out.push({ field: `member ${m.gateway_id}`, before: memberText(m), after: null });
  // Order matters to the rotation (it starts at the first active member); show it when only it moved.
  const common = (list: RoutingGroupConfig["members"], other: Map<number, unknown>) => list.filter((m) => other.has(m.gateway_id)).map((m) => m.gateway_id).join(", ");
  const orderBefore = common(before.members, a);
  const orderAfter = common(after.members, b);
  if (orderBefore !== orderAfter) out.push({ field: "member order", before: orderBefore, after: orderAfter });
  return out;
}

function oneSided(fields: Record<string, DiffValue>, side: "before" | "after"): FieldChange[] {
  return Object.entries(fields).map(([field, v]) => ({ field, before: side === "before" ? v : null, after: side === "after" ? v : null }));
}

/** The difference from `before` to `after`, both complete configurations (see normalizeConfig). */
export function diffConfigs(before: RoutingConfig, after: RoutingConfig): ConfigDiff {
  const groups: GroupDiff[] = [];
  const beforeGroups = new Map(before.groups.map((g) => [g.group_id, g]));
  const afterGroups = new Map(after.groups.map((g) => [g.group_id, g]));
  for (const g of after.groups) {
    const prev = beforeGroups.get(g.group_id);
    if (!prev) {
      const members = g.members.map((m) => ({ field: `member ${m.gateway_id}`, before: null, after: memberText(m) }));
      groups.push({ group_id: g.group_id, group_name: g.group_name, change: "added", fields: [...oneSided(groupFields(g), "after"), ...members] });
      continue;
    }
    const fields = [...fieldChanges(groupFields(prev), groupFields(g)), ...memberChanges(prev, g)];
    if (fields.length > 0) groups.push({ group_id: g.group_id, group_name: g.group_name, change: "changed", fields });
  }
  for (const g of before.groups) {
    if (afterGroups.has(g.group_id)) continue;
    const members = g.members.map((m) => ({ field: `member ${m.gateway_id}`, before: memberText(m), after: null }));
    groups.push({ group_id: g.group_id, group_name: g.group_name, change: "removed", fields: [...oneSided(groupFields(g), "before"), ...members] });
  }

  const rules: RuleDiff[] = [];
  const prefixes = new Set<string>();
  const banks = new Set<string>();
  const touch = (r: RoutingRuleConfig) => (r.type === "BIN" ? prefixes.add(r.bin_prefix) : banks.add(r.bank));
  const beforeRules = new Map(before.rules.map((r, i) => [r.rule_name, { r, i }]));
  const afterRules = new Map(after.rules.map((r, i) => [r.rule_name, { r, i }]));
  // A rule "moved" when its order among the rules on both sides changed, not when one was inserted above it.
  const rankAmongCommon = (list: readonly RoutingRuleConfig[], other: Map<string, unknown>) =>
    new Map(list.filter((r) => other.has(r.rule_name)).map((r, k) => [r.rule_name, k]));
  const rankBefore = rankAmongCommon(before.rules, afterRules);
  const rankAfter = rankAmongCommon(after.rules, beforeRules);
  after.rules.forEach((r, i) => {
    const prev = beforeRules.get(r.rule_name);
    if (!prev) {
      rules.push({ rule_name: r.rule_name, type: r.type, change: "added", fields: [...oneSided(ruleFields(r), "after"), { field: "position", before: null, after: i + 1 }] });
      touch(r);
      return;
    }
    const fields = fieldChanges(ruleFields(prev.r), ruleFields(r));
    // Position decides only between rules of equal prefix and time, so it does not make a rule "affected" traffic.
    const moved = rankBefore.get(r.rule_name) !== rankAfter.get(r.rule_name) && prev.i !== i ? [{ field: "position", before: prev.i + 1, after: i + 1 }] : [];
    if (fields.length > 0) {
      touch(prev.r);
      touch(r);
    }
    if (fields.length + moved.length > 0) rules.push({ rule_name: r.rule_name, type: r.type, change: "changed", fields: [...fields, ...moved] });
  });
  before.rules.forEach((r, i) => {
    if (afterRules.has(r.rule_name)) return;
    rules.push({ rule_name: r.rule_name, type: r.type, change: "removed", fields: [...oneSided(ruleFields(r), "before"), { field: "position", before: i + 1, after: null }] });
    touch(r);
  });

  return {
    groups,
    rules,
    unchanged: groups.length === 0 && rules.length === 0,
    affected: { bin_prefixes: [...prefixes].sort(), banks: [...banks].sort() },
  };
}
