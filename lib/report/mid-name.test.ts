import { describe, expect, it } from "vitest";
import { compareMidIds, midName } from "./mid-name";

describe("midName", () => {
  it("names a MID by its alias and id", () => {
    expect(midName(2, "Wells 02")).toBe("Wells 02 (#2)");
    expect(midName("12", "Chase East")).toBe("Chase East (#12)");
  });

  it("says MID and the id when no alias is known", () => {
    expect(midName(2)).toBe("MID #2");
    expect(midName(2, null)).toBe("MID #2");
    expect(midName(2, "  ")).toBe("MID #2");
  });
});

describe("compareMidIds", () => {
  it("sorts by number, not as text", () => {
    expect(["10", "2", "1", "11", "4"].sort(compareMidIds)).toEqual(["1", "2", "4", "10", "11"]);
    expect([10, 2, 1, 11, 4].sort(compareMidIds)).toEqual([1, 2, 4, 10, 11]);
  });

  it("puts ids that are not numbers after the numbers", () => {
    expect(["b", "3", "a", "20"].sort(compareMidIds)).toEqual(["3", "20", "a", "b"]);
  });
});
