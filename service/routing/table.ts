/**
 * The routing configuration in memory, indexed for the request path: BIN rules by prefix, BANK rules
 * by bank, BIN reference data by 6-digit BIN. Immutable apart from the groups' rotation state: a new
 * configuration version is a new table (`withConfig`), which the engine swaps in as one reference.
 */
import type { Database } from "../db";
import { rotationState, selectGroupStates } from "./group-state";
import { admitsSalesType, FALLBACK_RULE_NAME, groupSignature, type CycleScope, type Group, type GroupState, type RoutingConfig } from "./model";
import { membersOf, type SignedState } from "./versions";
import { normalizeState, rotationOf, type Rotation } from "./selection";
import type { SelectionMethod } from "@/lib/contract/schemas";

export interface BinInfo {
  bin: string;
  bank: string;
  card_brand: string;
  card_type: string;
}

export interface RuntimeGroup extends Group {
  rotation: Rotation;
  state: GroupState;
  signature: string;
  /** gateway ids as the wire shows them (strings), aligned with `members`. */
  gatewayIds: readonly string[];
}

interface IndexedRule {
  id: number;
  name: string;
  group: RuntimeGroup;
  createdAtMs: number;
}

export interface Resolution {
  group: RuntimeGroup;
  ruleName: string;
  isFallback: boolean;
  /** The matching rule's 1-based position in the configuration's rules; null for the fallback. */
  ruleId: number | null;
  /** What matched: the BIN prefix, the issuing bank, or nothing (the fallback). */
  matched: { type: "BIN"; prefix: string } | { type: "BANK"; bank: string } | { type: "FALLBACK" };
}

export type SalesType = "INITIALS" | "REBILLS" | undefined;

/** Newest first: created_at descending, then the later rule (higher id) first. */
const newestFirst = (a: IndexedRule, b: IndexedRule) => b.createdAtMs - a.createdAtMs || b.id - a.id;

export class RoutingTable {
  private constructor(
    readonly groups: ReadonlyMap<number, RuntimeGroup>,
    readonly fallback: RuntimeGroup | null,
    private readonly binRules: ReadonlyMap<string, readonly IndexedRule[]>,
    private readonly bankRules: ReadonlyMap<string, readonly IndexedRule[]>,
    private readonly bins: ReadonlyMap<string, BinInfo>,
  ) {}

  static build(input: {
    groups: readonly (Group & { state: GroupState | null; stateSignature: string | null })[];
    rules: readonly { id: number; name: string; type: "BIN" | "BANK"; binPrefix: string | null; bank: string | null; groupId: number; enabled: boolean; createdAtMs: number }[];
    bins: readonly BinInfo[] | ReadonlyMap<string, BinInfo>;
  }): { table: RoutingTable; resetGroups: number[] } {
    const groups = new Map<number, RuntimeGroup>();
    const resetGroups: number[] = [];
    for (const g of input.groups) {
      const rotation = rotationOf(g.method, g.members);
      const signature = groupSignature(g.method, g.members);
      let state: GroupState;
      if (g.state && g.stateSignature === signature) {
        state = normalizeState(rotation, g.state);
      } else {
        // No state, or state made for another member list: restart the rotation, keep the count.
        state = normalizeState(rotation, { totalCalls: g.state?.totalCalls ?? 0, position: 0, credits: [], randomNext: null });
        resetGroups.push(g.id);
      }
      groups.set(g.id, { ...g, rotation, state, signature, gatewayIds: g.members.map((m) => String(m.gatewayId)) });
    }
    const binRules = new Map<string, IndexedRule[]>();
    const bankRules = new Map<string, IndexedRule[]>();
    for (const r of input.rules) {
      const group = groups.get(r.groupId);
      if (!r.enabled || !group) continue;
      const key = r.type === "BIN" ? r.binPrefix : r.bank;
      if (!key) continue;
      const index = r.type === "BIN" ? binRules : bankRules;
      const list = index.get(key) ?? [];
      list.push({ id: r.id, name: r.name, group, createdAtMs: r.createdAtMs });
      index.set(key, list);
    }
    for (const list of binRules.values()) list.sort(newestFirst);
    for (const list of bankRules.values()) list.sort(newestFirst);
    const fallback = [...groups.values()].find((g) => g.isFallback) ?? null;
    const bins = input.bins instanceof Map ? input.bins : new Map((input.bins as readonly BinInfo[]).map((b) => [b.bin, b]));
    return { table: new RoutingTable(groups, fallback, binRules, bankRules, bins), resetGroups };
  }

  static async load(db: Database): Promise<{ table: RoutingTable; resetGroups: number[] }> {
    const [groupRows, memberRows, ruleRows, states, binRows] = await Promise.all([
      db.all<{ group_id: number; group_name: string; selection_method: SelectionMethod; cycle_scope: number; is_fallback: boolean; created_ms: string | number }>(
        "SELECT group_id, group_name, selection_method, cycle_scope, is_fallback, epoch_ms(created_at) AS created_ms FROM routing_groups ORDER BY group_id",
      ),
      db.all<{ group_id: number; gateway_id: number; weight: number; active: boolean }>(
        "SELECT group_id, gateway_id, weight, active FROM routing_group_members ORDER BY group_id, position",
      ),
      db.all<{ rule_id: number; rule_name: string; rule_type: "BIN" | "BANK"; bin_prefix: string | null; bank: string | null; group_id: number; enabled: boolean; created_ms: string | number }>(
        "SELECT rule_id, rule_name, rule_type, bin_prefix, bank, group_id, enabled, epoch_ms(created_at) AS created_ms FROM routing_rules ORDER BY rule_id",
      ),
      selectGroupStates(db),
      db.all<{ bin: string; bank: string; card_brand: string; card_type: string }>("SELECT bin, bank, card_brand, card_type FROM bins"),
    ]);
    const members = new Map<number, Group["members"][number][]>();
    for (const m of memberRows) {
      const list = members.get(m.group_id) ?? [];
      list.push({ gatewayId: m.gateway_id, weight: m.weight, active: m.active });
      members.set(m.group_id, list);
    }
    return RoutingTable.build({
      groups: groupRows.map((g) => {
        const s = states.get(g.group_id);
        return {
          id: g.group_id,
          name: g.group_name,
          method: g.selection_method,
          scope: g.cycle_scope as CycleScope,
          isFallback: g.is_fallback,
          createdAtMs: Number(g.created_ms),
          members: members.get(g.group_id) ?? [],
          state: s ? rotationState(s) : null,
          stateSignature: s?.signature ?? null,
        };
      }),
      rules: ruleRows.map((r) => ({
        id: r.rule_id,
        name: r.rule_name,
        type: r.rule_type,
        binPrefix: r.bin_prefix,
        bank: r.bank,
        groupId: r.group_id,
        enabled: r.enabled,
        createdAtMs: Number(r.created_ms),
      })),
      bins: binRows,
    });
  }

  /**
   * A table for `config` with the same BIN reference data, each group starting from `states` (the
   * rotation rule's result: versions.ts carryRotation). Synchronous, so the engine can build and
   * swap in one step of the event loop.
   */
  withConfig(config: RoutingConfig, states: ReadonlyMap<number, SignedState>): RoutingTable {
    return RoutingTable.build({
      groups: config.groups.map((g) => {
        const s = states.get(g.group_id);
        return {
          id: g.group_id,
          name: g.group_name,
          method: g.selection_method,
          scope: g.cycle_scope,
          isFallback: g.is_fallback,
          createdAtMs: Date.parse(g.created_at ?? ""),
          members: membersOf(g),
          state: s ? { ...s.state, credits: [...s.state.credits] } : null,
          stateSignature: s?.signature ?? null,
        };
      }),
      rules: config.rules.map((r, i) => ({
        id: i + 1,
        name: r.rule_name,
        type: r.type,
        binPrefix: r.type === "BIN" ? r.bin_prefix : null,
        bank: r.type === "BANK" ? r.bank : null,
        groupId: r.group_id,
        enabled: r.enabled,
        createdAtMs: Date.parse(r.created_at ?? ""),
      })),
      bins: this.bins,
    }).table;
  }

  binInfo(bin: string): BinInfo | null {
    return this.bins.get(bin.slice(0, 6)) ?? null;
  }

  /**
   * SPEC.md §4.3: enabled rules whose group admits the sales type; BIN rules before BANK rules, the
   * longest prefix first, newest first among equals; a group without an active member is skipped.
   * Null when nothing matches and the fallback has no active member (or there is no configuration).
   */
  resolve(bin: string, salesType: SalesType, info: BinInfo | null = this.binInfo(bin)): Resolution | null {
    for (let len = Math.min(8, bin.length); len >= 6; len--) {
      const prefix = bin.slice(0, len);
      const hit = this.pick(this.binRules.get(prefix), salesType);
      if (hit) return { group: hit.group, ruleName: hit.name, isFallback: false, ruleId: hit.id, matched: { type: "BIN", prefix } };
    }
    if (info) {
      const hit = this.pick(this.bankRules.get(info.bank), salesType);
      if (hit) return { group: hit.group, ruleName: hit.name, isFallback: false, ruleId: hit.id, matched: { type: "BANK", bank: info.bank } };
    }
    const fb = this.fallback;
    if (fb && fb.rotation.active.length > 0) return { group: fb, ruleName: FALLBACK_RULE_NAME, isFallback: true, ruleId: null, matched: { type: "FALLBACK" } };
    return null;
  }

  private pick(rules: readonly IndexedRule[] | undefined, salesType: SalesType): IndexedRule | null {
    if (!rules) return null;
    for (const r of rules) {
      if (r.group.rotation.active.length > 0 && admitsSalesType(r.group.scope, salesType)) return r;
    }
    return null;
  }
}
