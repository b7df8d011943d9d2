/**
 * Selection among a group's active members (SPEC.md §4.3). Every function here is synchronous and
 * mutates the state in place, so a caller on the event loop reads and advances a group's rotation
 * atomically: no other request can interleave between the pick and the update.
 */
import { randomInt } from "node:crypto";
import type { SelectionMethod } from "@/lib/contract/schemas";
import type { GroupState, Member } from "./model";

/** What selection needs of a group, precomputed once per configuration. */
export interface Rotation {
  method: SelectionMethod;
  /** Member-list positions of the active members, in order. */
  active: readonly number[];
  /** Weights of the active members, aligned with `active`. */
  weights: readonly number[];
  totalWeight: number;
}

export function rotationOf(method: SelectionMethod, members: readonly Member[]): Rotation {
  const active: number[] = [];
  const weights: number[] = [];
  members.forEach((m, i) => {
    if (m.active) {
      active.push(i);
      weights.push(m.weight);
    }
  });
  return { method, active, weights, totalWeight: weights.reduce((a, b) => a + b, 0) };
}

/** The state a group starts from (or restarts from when its member list changes). */
export function initialState(rot: Rotation, totalCalls = 0, draw: (n: number) => number = randomInt): GroupState {
  const n = rot.active.length;
  return {
    totalCalls,
    position: 0,
    credits: new Array<number>(n).fill(0),
    randomNext: rot.method === "RANDOM" && n > 0 ? draw(n) : null,
  };
}

/**
 * Makes a stored state usable with this rotation: right-sized credits, positions in range, a random
 * pick drawn if missing. A state that already fits is returned unchanged.
 */
export function normalizeState(rot: Rotation, s: GroupState, draw: (n: number) => number = randomInt): GroupState {
  const n = rot.active.length;
  if (n === 0) return s;
  const credits = s.credits.length === n && s.credits.every(Number.isSafeInteger) ? s.credits : new Array<number>(n).fill(0);
  const position = Number.isInteger(s.position) && s.position >= 0 && s.position < n ? s.position : 0;
  let randomNext = s.randomNext;
  if (rot.method === "RANDOM" && (randomNext === null || !Number.isInteger(randomNext) || randomNext < 0 || randomNext >= n)) randomNext = draw(n);
  return { totalCalls: s.totalCalls, position, credits, randomNext };
}

/** Index (among active members) that smooth weighted round-robin picks from `credits`: first maximum of credit + weight. */
function swrrPick(rot: Rotation, credits: readonly number[]): number {
  let best = 0;
  let bestValue = -Infinity;
  for (let i = 0; i < rot.weights.length; i++) {
    const v = (credits[i] ?? 0) + (rot.weights[i] ?? 0);
    if (v > bestValue) {
      bestValue = v;
      best = i;
    }
  }
  return best;
}

export interface Pick {
  /** Position of the chosen member in the group's member list. */
  memberIndex: number;
  /** Position in the member list of the member the next call will get. */
  nextMemberIndex: number;
}

/**
 * Chooses a member for one call and advances the state. Requires at least one active member.
 * - ROUND_ROBIN: active members in order.
 * - WEIGHTAGE: smooth weighted round-robin (nginx): every member gains its weight, the largest
 *   total is chosen and pays back the sum of weights. Over any Σweights consecutive calls each member
 *   is chosen exactly `weight` times, spread as evenly as possible.
 * - RANDOM: the pre-drawn pick, then a fresh uniform draw for the next call.
 */
export function selectMember(rot: Rotation, s: GroupState, draw: (n: number) => number = randomInt): Pick {
  const n = rot.active.length;
  if (n === 0) throw new Error("selectMember: group has no active member");
  let chosen: number;
  let next: number;
  switch (rot.method) {
    case "ROUND_ROBIN": {
      chosen = s.position % n;
      s.position = (chosen + 1) % n;
      next = s.position;
      break;
    }
    case "WEIGHTAGE": {
      chosen = swrrPick(rot, s.credits);
      for (let i = 0; i < n; i++) s.credits[i] = (s.credits[i] ?? 0) + (rot.weights[i] ?? 0);
      s.credits[chosen] = (s.credits[chosen] ?? 0) - rot.totalWeight;
      next = swrrPick(rot, s.credits);
      break;
    }
    case "RANDOM": {
      chosen = s.randomNext ?? draw(n);
      s.randomNext = draw(n);
      next = s.randomNext;
      break;
    }
  }
  s.totalCalls += 1;
  return { memberIndex: rot.active[chosen]!, nextMemberIndex: rot.active[next]! };
}

/** The member-list position the next call will get, without advancing; null without active members. */
export function peekNext(rot: Rotation, s: GroupState): number | null {
  const n = rot.active.length;
  if (n === 0) return null;
  switch (rot.method) {
    case "ROUND_ROBIN":
      return rot.active[s.position % n]!;
    case "WEIGHTAGE":
      return rot.active[swrrPick(rot, s.credits)]!;
    case "RANDOM":
      return s.randomNext === null ? null : (rot.active[s.randomNext] ?? null);
  }
}
