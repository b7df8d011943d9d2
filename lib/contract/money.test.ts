import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exactCents, fromCents, fromUnits, toCents, toUnits } from "./money";

describe("money", () => {
  it("adds amounts as cents without drift, rounding once", () => {
    const amounts = [0.1, 0.2, 19.99, 1234.56, 0.07];
    const float = amounts.reduce((a, b) => a + b, 0);
    const exact = fromCents(amounts.reduce((a, b) => a + toCents(b), 0));
    expect(exact).toBe(1254.92);
    expect(float).not.toBe(1254.92);
  });
  it("round-trips every 2-decimal amount", () => {
    fc.assert(fc.property(fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }), (c) => {
        expect(toCents(fromCents(c))).toBe(c);
      }),
    );
  });
  it("says when a decimal is finer than cents", () => {
    expect(exactCents(39.95)).toBe(3995);
    expect(exactCents(39.955)).toBeNull();
  });
  it("keeps counts as counts and amounts in cents, by the catalog", () => {
    expect(toUnits("revenue", 12.34)).toBe(1234);
    expect(toUnits("approvals", 12)).toBe(12);
    expect(fromUnits("cb_amount", 1234)).toBe(12.34);
    expect(fromUnits("cb_count", 3)).toBe(3);
  });
});
