/**
 * The BIN routing model (SPEC.md §4.3): groups with ordered members, rules that point BIN prefixes or
 * issuing banks at groups, and the per-group rotation state. The configuration file's format and its
 * checks are in lib/contract/routing-config.ts (shared with the dashboard); reading the
 * reference data they are checked against (gateways, banks) is in loader.ts.
 */
import type { SelectionMethod } from "@/lib/contract/schemas";
import type { CycleScope } from "@/lib/contract/routing-config";

export * from "@/lib/contract/routing-config";

// ---------------------------------------------------------------------------------------------
// Runtime shapes

export interface Member {
  gatewayId: number;
  weight: number;
  active: boolean;
}

export interface Group {
  id: number;
  name: string;
  method: SelectionMethod;
  scope: CycleScope;
  isFallback: boolean;
  createdAtMs: number;
  /** In configured order; `current_index` is a position in this list. */
  members: readonly Member[];
}

/**
 * Rotation state of one group. Positions and credits refer to the group's *active* members, in
 * member order, so the state is only meaningful for the member list it was made with: `signature`.
 */
export interface GroupState {
  totalCalls: number;
  /** ROUND_ROBIN: index (among active members) of the next pick. */
  position: number;
  /** WEIGHTAGE: smooth weighted round-robin current weights, one per active member. */
  credits: number[];
  /** RANDOM: the pre-drawn next pick (index among active members); null when there is none. */
  randomNext: number | null;
}

/** Identifies what a group's rotation state depends on: the method and the member list. */
export function groupSignature(method: SelectionMethod, members: readonly Member[]): string {
  return JSON.stringify([method, members.map((m) => [m.gatewayId, m.weight, m.active ? 1 : 0])]);
}

export function admitsSalesType(scope: CycleScope, salesType: "INITIALS" | "REBILLS" | undefined): boolean {
  if (salesType === undefined || scope === 2) return true;
  return salesType === "INITIALS" ? scope === 0 : scope === 1;
}
