import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SlidingWindowLimiter } from "./rate-limit";

describe("SlidingWindowLimiter", () => {
  it("never admits more than the limit in any window, and admits whenever a slot is free", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 200 }), (limit, gaps) => {
        const windowMs = 1000;
        const lim = new SlidingWindowLimiter(limit, windowMs);
        const admitted: number[] = [];
        let t = 0;
        for (const g of gaps) {
          t += g;
          const d = lim.hit("k", t);
          const inWindow = admitted.filter((a) => a > t - windowMs).length;
          expect(d.allowed).toBe(inWindow < limit);
          if (d.allowed) admitted.push(t);
          else {
            // Retry-After is whole seconds, at least 1, and waiting that long frees a slot.
            expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(1);
            const oldest = admitted.filter((a) => a > t - windowMs)[0]!;
            expect(t + d.retryAfterSeconds * 1000).toBeGreaterThanOrEqual(oldest + windowMs);
          }
        }
      }),
    );
  });

  it("keeps clients apart", () => {
    const lim = new SlidingWindowLimiter(1, 60_000);
    expect(lim.hit("a", 0).allowed).toBe(true);
    expect(lim.hit("a", 1).allowed).toBe(false);
    expect(lim.hit("b", 1).allowed).toBe(true);
  });
});
