/**
 * Versions of the routing configuration (docs/routing.md, "Live configuration"): every configuration
 * applied (by `routing load` or over HTTP) is a numbered version with its author and reason, stored in
 * `routing_config_versions` in the file format, with what happened to each group's rotation.
 *
 * The rotation rule lives here once, for both ways of changing the configuration: a group whose
 * selection method and member list (gateways, order, weights, active flags) are unchanged keeps its
 * rotation exactly; otherwise its rotation starts again from the first active member, with the reason
 * recorded; its `total_calls` is kept either way, so call numbers never repeat.
 */
import type { Sql } from "./group-state";
import { groupSignature, type GroupState, type Member, type RoutingConfig, type RoutingGroupConfig } from "./model";
import { initialState, rotationOf } from "./selection";
import type { Tx } from "../db";

/** What a configuration change did to one group's rotation. */
export interface RotationOutcome {
  group_id: number;
  /** kept: method and member list unchanged; reset: rotation restarted; new: no previous state; removed: the group is gone. */
  outcome: "kept" | "reset" | "new" | "removed";
  reason: string;
  /** The group's calls answered when the change took effect (its call numbers continue from here). */
  total_calls: number;
}

export interface VersionMeta {
  version: number;
  created_at: string;
  author: string;
  reason: string;
  /** The API client that applied it (null for `routing load`). */
  client_id: string | null;
  /** The version it restored, when it was a restore. */
  restored_from: number | null;
}

export interface ConfigVersion extends VersionMeta {
  /** Complete: every default filled in, so applying it again gives the same tables. */
  config: RoutingConfig;
  rotation: RotationOutcome[];
}

/** A group's rotation state together with the member list it belongs to. */
export interface SignedState {
  signature: string;
  state: GroupState;
}

export function membersOf(g: RoutingGroupConfig): Member[] {
  return g.members.map((m) => ({ gatewayId: m.gateway_id, weight: m.weight, active: m.active }));
}

/** The configuration with every created_at filled in (missing ones: `nowMs`), as stored in a version. */
export function completeConfig(config: RoutingConfig, nowMs: number): RoutingConfig {
  const at = (iso: string | undefined) => new Date(iso === undefined ? nowMs : Date.parse(iso)).toISOString();
  return {
    groups: config.groups.map((g) => ({ ...g, created_at: at(g.created_at), members: g.members.map((m) => ({ ...m })) })),
    rules: config.rules.map((r) => ({ ...r, created_at: at(r.created_at) })),
  };
}

type SignatureParts = [string, [number, number, 0 | 1][]];

/** In words, how the member list or method of a group changed. */
function describeChange(before: string, after: string): string {
  let b: SignatureParts;
  let a: SignatureParts;
  try {
    b = JSON.parse(before) as SignatureParts;
    a = JSON.parse(after) as SignatureParts;
  } catch {
    return "member list changed";
  }
  const parts: string[] = [];
  if (b[0] !== a[0]) parts.push(`selection method ${b[0]} → ${a[0]}`);
  const ids = (s: SignatureParts) => s[1].map((m) => m[0]);
  const [bi, ai] = [ids(b), ids(a)];
  const added = ai.filter((g) => !bi.includes(g));
  const removed = bi.filter((g) => !ai.includes(g));
  if (added.length) parts.push(`gateways added: ${added.join(", ")}`);
  if (removed.length) parts.push(`gateways removed: ${removed.join(", ")}`);
  const common = ai.filter((g) => bi.includes(g));
  if (!added.length && !removed.length && common.join() !== bi.join()) parts.push("member order changed");
  const find = (s: SignatureParts, g: number) => s[1].find((m) => m[0] === g);
  const weights = common.filter((g) => find(a, g)?.[1] !== find(b, g)?.[1]);
  const flags = common.filter((g) => find(a, g)?.[2] !== find(b, g)?.[2]);
  if (weights.length) parts.push(`weights changed: gateways ${weights.join(", ")}`);
  if (flags.length) parts.push(`active flags changed: gateways ${flags.join(", ")}`);
  return parts.length ? parts.join("; ") : "member list changed";
}

/**
 * Applies the rotation rule: the state each group of `config` starts with, given the states before
 * the change, and what happened to each group (removed groups included).
 */
export function carryRotation(
  before: ReadonlyMap<number, SignedState>,
  config: RoutingConfig,
  draw?: (n: number) => number,
): { states: Map<number, SignedState>; rotation: RotationOutcome[] } {
  const states = new Map<number, SignedState>();
  const rotation: RotationOutcome[] = [];
  for (const g of config.groups) {
    const members = membersOf(g);
    const signature = groupSignature(g.selection_method, members);
    const prev = before.get(g.group_id);
    if (prev && prev.signature === signature) {
      states.set(g.group_id, { signature, state: { ...prev.state, credits: [...prev.state.credits] } });
      rotation.push({ group_id: g.group_id, outcome: "kept", reason: "selection method and member list unchanged", total_calls: prev.state.totalCalls });
    } else {
      const fresh = initialState(rotationOf(g.selection_method, members), prev ? prev.state.totalCalls : 0, draw);
      states.set(g.group_id, { signature, state: fresh });
      rotation.push(
        prev
          ? { group_id: g.group_id, outcome: "reset", reason: `${describeChange(prev.signature, signature)}; rotation restarts at the first active member`, total_calls: prev.state.totalCalls }
          : { group_id: g.group_id, outcome: "new", reason: "new group; rotation starts at the first active member", total_calls: 0 },
      );
    }
  }
  for (const [id, prev] of before) {
    if (!states.has(id)) rotation.push({ group_id: id, outcome: "removed", reason: "group removed; its state is dropped", total_calls: prev.state.totalCalls });
  }
  return { states, rotation };
}

/** Unix ms of a complete configuration's timestamp (always present there; 0 keeps a broken one visible). */
const msOf = (iso: string | undefined): number => (iso === undefined ? 0 : Date.parse(iso));

/** Replaces the configuration tables with `config` (complete: see completeConfig). */
export async function writeConfigTables(tx: Tx, config: RoutingConfig): Promise<void> {
  await tx.run("DELETE FROM routing_rules");
  await tx.run("DELETE FROM routing_group_members");
  await tx.run("DELETE FROM routing_groups");
  for (const g of config.groups) {
    await tx.run("INSERT INTO routing_groups VALUES (?, ?, ?, ?, ?, epoch_ms(?::BIGINT))", [
      g.group_id,
      g.group_name,
      g.selection_method,
      g.cycle_scope,
      g.is_fallback,
      msOf(g.created_at),
    ]);
    for (const [pos, m] of g.members.entries()) {
      await tx.run("INSERT INTO routing_group_members VALUES (?, ?, ?, ?, ?)", [g.group_id, pos, m.gateway_id, m.weight, m.active]);
    }
  }
  for (const [i, r] of config.rules.entries()) {
    await tx.run("INSERT INTO routing_rules VALUES (?, ?, ?, ?, ?, ?, ?, epoch_ms(?::BIGINT))", [
      i + 1,
      r.rule_name,
      r.type,
      r.type === "BIN" ? r.bin_prefix : null,
      r.type === "BANK" ? r.bank : null,
      r.group_id,
      r.enabled,
      msOf(r.created_at),
    ]);
  }
}

export async function insertVersion(tx: Tx, v: ConfigVersion): Promise<void> {
  await tx.run("INSERT INTO routing_config_versions VALUES (?, epoch_ms(?::BIGINT), ?, ?, ?, ?, ?, ?)", [
    v.version,
    msOf(v.created_at),
    v.author,
    v.reason,
    v.client_id,
    v.restored_from,
    JSON.stringify(v.config),
    JSON.stringify(v.rotation),
  ]);
}

/** Every stored version, oldest first. */
export async function selectVersions(sql: Sql): Promise<ConfigVersion[]> {
  const rows = await sql.all<{ version: number; created_at: string; author: string; reason: string; client_id: string | null; restored_from: number | null; config: string; rotation: string }>(
    "SELECT version, strftime(created_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS created_at, author, reason, client_id, restored_from, config, rotation FROM routing_config_versions ORDER BY version",
  );
  return rows.map((r) => ({ ...r, config: JSON.parse(r.config) as RoutingConfig, rotation: JSON.parse(r.rotation) as RotationOutcome[] }));
}
