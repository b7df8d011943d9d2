import { describe, expect, it } from "vitest";
import { fitColumnWidth, textWidth } from "./fit";

describe("fitColumnWidth", () => {
  it("keeps the minimum when every value fits it", () => {
    expect(fitColumnWidth(132, ["$12.00", "1,204"])).toBe(132);
    expect(fitColumnWidth(150, [])).toBe(150);
  });

  it("widens a column to its longest total or change, with the cell's padding", () => {
    const total = "$35,913,204.55";
    const change = "+$35,913,204.55 (better)";
    const w = fitColumnWidth(132, ["$1.00", total]);
    expect(w).toBeGreaterThan(132);
    expect(w).toBe(textWidth(total) + 30);
    expect(fitColumnWidth(170, [change, "\u2212$1.00 (worse)"])).toBe(textWidth(change) + 30);
  });

  it("allows at least 0.7 em for each digit of a 14 px number", () => {
    expect(textWidth("0000000000")).toBeGreaterThanOrEqual(98);
  });

  it("finds the widest text even when a longer one is narrower", () => {
    const narrow = "iiiiiiiiiiiiiiiiiiii"; // 20 × 0.4 em
    const wide = "MMMMMMMMMMMMMMMM"; // 16 × 1.05 em
    expect(fitColumnWidth(0, [narrow, wide])).toBe(textWidth(wide) + 30);
  });
});
