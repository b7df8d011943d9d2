import { describe, expect, it } from "vitest";
import { labelOffsets } from "./chart-labels";

describe("the trend chart's threshold labels", () => {
  it("sit just above their lines when the lines are far enough apart", () => {
    // 1.5 % and 2 % on an axis to 2.3 %: about 38 px apart.
    expect(labelOffsets([0.015, 0.02], 0.023)).toEqual([5, 5]);
  });

  it("stack, each a label's height above the one below, when their lines are too close", () => {
    // 1 %, 1.5 % and 3 % under a ratio of 134 % (axis to 154 %): about 0.6 and 1.1 px apart.
    const ratios = [0.01, 0.015, 0.03];
    const offsets = labelOffsets(ratios, 1.54);
    const baselines = ratios.map((r, i) => (r / 1.54) * 174 + (offsets[i] ?? 0));
    expect(offsets[0]).toBe(5);
    expect(baselines[1]! - baselines[0]!).toBeCloseTo(14);
    expect(baselines[2]! - baselines[1]!).toBeCloseTo(14);
    // A close pair above a distant one: the distant one stays just above its line.
    expect(labelOffsets([0.01, 0.5, 0.505], 1.54)[1]).toBe(5);
  });

  it("has nothing to place without thresholds, and copes with an empty axis", () => {
    expect(labelOffsets([], 1)).toEqual([]);
    expect(labelOffsets([0, 0], 0)).toEqual([5, 19]);
  });
});
