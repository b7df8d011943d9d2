import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Member } from "./model";
import { initialState, normalizeState, peekNext, rotationOf, selectMember } from "./selection";

const members = (weights: number[], inactive: number[] = []): Member[] =>
  weights.map((weight, i) => ({ gatewayId: 100 + i, weight, active: !inactive.includes(i) }));

function run(method: "ROUND_ROBIN" | "WEIGHTAGE" | "RANDOM", ms: Member[], calls: number) {
  const rot = rotationOf(method, ms);
  const s = initialState(rot);
  const picks: number[] = [];
  const nexts: number[] = [];
  for (let i = 0; i < calls; i++) {
    const p = selectMember(rot, s);
    picks.push(p.memberIndex);
    nexts.push(p.nextMemberIndex);
  }
  return { picks, nexts, state: s, rot };
}

describe("selection", () => {
  it("ROUND_ROBIN goes through the active members in order, skipping inactive ones", () => {
    const { picks, state } = run("ROUND_ROBIN", members([1, 1, 1, 1], [1]), 7);
    expect(picks).toEqual([0, 2, 3, 0, 2, 3, 0]);
    expect(state.totalCalls).toBe(7);
  });

  it("WEIGHTAGE 5,3,2 is smooth and exact over every window of 10", () => {
    const { picks } = run("WEIGHTAGE", members([5, 3, 2]), 100);
    // nginx's smooth sequence for 5,3,2.
    expect(picks.slice(0, 10)).toEqual([0, 1, 2, 0, 0, 1, 0, 2, 1, 0]);
    for (let i = 0; i + 10 <= picks.length; i++) {
      const w = picks.slice(i, i + 10);
      expect([0, 1, 2].map((m) => w.filter((x) => x === m).length)).toEqual([5, 3, 2]);
    }
  });

  it("WEIGHTAGE: every window of Σweights calls holds each member exactly weight times (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 40 }), (weights, skip) => {
        const total = weights.reduce((a, b) => a + b, 0);
        const { picks } = run("WEIGHTAGE", members(weights), skip + 3 * total);
        const tail = picks.slice(skip);
        for (let i = 0; i + total <= tail.length; i++) {
          const w = tail.slice(i, i + total);
          weights.forEach((weight, m) => expect(w.filter((x) => x === m).length).toBe(weight));
        }
      }),
      { numRuns: 200 },
    );
  });

  it("next pick is always the member the following call gets, for every method", () => {
    for (const method of ["ROUND_ROBIN", "WEIGHTAGE", "RANDOM"] as const) {
      const { picks, nexts, state, rot } = run(method, members([4, 1, 2, 3], [2]), 500);
      for (let i = 0; i + 1 < picks.length; i++) expect(nexts[i]).toBe(picks[i + 1]);
      expect(peekNext(rot, state)).toBe(nexts[nexts.length - 1]);
    }
  });

  it("RANDOM picks only active members, all of them", () => {
    const { picks } = run("RANDOM", members([1, 1, 1, 1], [0]), 400);
    expect(new Set(picks)).toEqual(new Set([1, 2, 3]));
  });

  it("normalizeState repairs out-of-range positions, wrong-sized credits and a missing random pick", () => {
    const rot = rotationOf("RANDOM", members([1, 1, 1]));
    const s = normalizeState(rot, { totalCalls: 9, position: 7, credits: [1], randomNext: null });
    expect(s.totalCalls).toBe(9);
    expect(s.position).toBe(0);
    expect(s.credits).toEqual([0, 0, 0]);
    expect(s.randomNext).toBeGreaterThanOrEqual(0);
    expect(s.randomNext).toBeLessThan(3);
  });

  it("a group without active members has no next pick and refuses to select", () => {
    const rot = rotationOf("ROUND_ROBIN", members([1, 1], [0, 1]));
    const s = initialState(rot);
    expect(peekNext(rot, s)).toBeNull();
    expect(() => selectMember(rot, s)).toThrow();
  });
});
