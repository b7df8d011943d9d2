/**
 * The `routing_group_state` table: every statement that reads or writes it. Each group's rotation
 * state is stored with the signature of the member list it was made for, and its WEIGHTAGE credits
 * as JSON text. Three writers (a configuration load, the engine restarting a rotation at start, the
 * journal's fold) and two readers (the routing table, `routing show`) share it, so the row's shape
 * and the credits' encoding live here once instead of in each of them.
 */
import type { Tx } from "../db";
import type { GroupState } from "./model";

/** Anything that runs SQL: the database itself or a transaction. */
export type Sql = Pick<Tx, "all" | "run">;

/** One row: a group's rotation state, valid for the member list `signature` describes. */
export interface StoredGroupState {
  groupId: number;
  signature: string;
  totalCalls: number;
  position: number;
  /** As stored (JSON text); `rotationState` decodes it. */
  credits: string;
  randomNext: number | null;
}

type StateRow = {
  group_id: number;
  signature: string;
  /** BIGINT: a string from DuckDB. */
  total_calls: string | number;
  position: number;
  credits: string;
  random_next: number | null;
};

const encodeCredits = (credits: readonly number[]): string => JSON.stringify(credits);

/** Unreadable credits read as none, which `normalizeState` (selection.ts) replaces with fresh ones. */
function decodeCredits(text: string): number[] {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) && v.every((x) => Number.isSafeInteger(x)) ? (v as number[]) : [];
  } catch {
    return [];
  }
}

/** The row that stores `state` for a group whose member list has `signature`. */
export function storedGroupState(groupId: number, signature: string, state: GroupState): StoredGroupState {
  return {
    groupId,
    signature,
    totalCalls: state.totalCalls,
    position: state.position,
    credits: encodeCredits(state.credits),
    randomNext: state.randomNext,
  };
}

/** The rotation state a row holds (check its signature against the group's first). */
export function rotationState(s: StoredGroupState): GroupState {
  return { totalCalls: s.totalCalls, position: s.position, credits: decodeCredits(s.credits), randomNext: s.randomNext };
}

/** Every stored state, by group id. */
export async function selectGroupStates(sql: Sql): Promise<Map<number, StoredGroupState>> {
  const rows = await sql.all<StateRow>("SELECT group_id, signature, total_calls, position, credits, random_next FROM routing_group_state");
  return new Map(
    rows.map((r) => [
      r.group_id,
      { groupId: r.group_id, signature: r.signature, totalCalls: Number(r.total_calls), position: r.position, credits: r.credits, randomNext: r.random_next },
    ]),
  );
}

async function insertGroupState(tx: Tx, s: StoredGroupState): Promise<void> {
  await tx.run(
    "INSERT INTO routing_group_state (group_id, signature, total_calls, position, credits, random_next, updated_at) VALUES (?, ?, ?, ?, ?, ?, current_timestamp)",
    [s.groupId, s.signature, s.totalCalls, s.position, s.credits, s.randomNext],
  );
}

/** Replaces every stored state with `states` (a configuration load). */
export async function replaceAllGroupStates(tx: Tx, states: readonly StoredGroupState[]): Promise<void> {
  await tx.run("DELETE FROM routing_group_state");
  for (const s of states) await insertGroupState(tx, s);
}

/** Replaces one group's state, signature included (a rotation restarted for a changed member list). */
export async function replaceGroupState(tx: Tx, s: StoredGroupState): Promise<void> {
  await tx.run("DELETE FROM routing_group_state WHERE group_id = ?", [s.groupId]);
  await insertGroupState(tx, s);
}

/**
 * Moves a group's rotation on to `state`, keeping its signature: the journal records states only for
 * the member lists the running service loaded, whose rows the engine wrote at start.
 */
export async function updateRotationState(tx: Tx, groupId: number, state: GroupState): Promise<void> {
  await tx.run(
    "UPDATE routing_group_state SET total_calls = ?, position = ?, credits = ?, random_next = ?, updated_at = current_timestamp WHERE group_id = ?",
    [state.totalCalls, state.position, encodeCredits(state.credits), state.randomNext, groupId],
  );
}
