import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countsByKey, erf, normalCdf, normalUpperTail, PROPOSAL_DEFAULTS, proposeFor, twoProportionZTest, type ProposalInput } from "./proposals";

describe("the normal distribution", () => {
  it("matches tabulated values", () => {
    // erf and Φ from standard tables (Abramowitz & Stegun 7.1, 26.2), to 7 significant digits.
    expect(erf(0.5)).toBeCloseTo(0.5204998778, 7);
    expect(erf(1)).toBeCloseTo(0.8427007929, 7);
    expect(erf(-1)).toBeCloseTo(-0.8427007929, 7);
    expect(erf(2)).toBeCloseTo(0.995322265, 7);
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959963985)).toBeCloseTo(0.975, 7);
    expect(normalCdf(2.326347874)).toBeCloseTo(0.99, 7);
    expect(normalCdf(-1.644853627)).toBeCloseTo(0.05, 7);
    // Far tails keep their relative accuracy.
    expect(normalUpperTail(3) / 0.001349898032).toBeCloseTo(1, 5);
    expect(normalUpperTail(5) / 2.866515719e-7).toBeCloseTo(1, 5);
    expect(normalUpperTail(8) / 6.220960574e-16).toBeCloseTo(1, 5);
  });

  it("Φ is monotone and symmetric", () => {
    fc.assert(
      fc.property(fc.double({ min: -8, max: 8, noNaN: true }), fc.double({ min: 0.001, max: 2, noNaN: true }), (x, d) => {
        expect(normalCdf(x + d)).toBeGreaterThanOrEqual(normalCdf(x));
        expect(normalCdf(x) + normalCdf(-x)).toBeCloseTo(1, 7);
      }),
    );
  });
});

describe("the pooled two-proportion z-test", () => {
  it("matches a worked example", () => {
    // 61.2 % of 1,840 vs 55.1 % of 2,210: pooled p = (1126 + 1218) / 4050.
    const { z, p } = twoProportionZTest(1126, 1840, 1218, 2210);
    const pooled = (1126 + 1218) / 4050;
    const zRef = (1126 / 1840 - 1218 / 2210) / Math.sqrt(pooled * (1 - pooled) * (1 / 1840 + 1 / 2210));
    expect(z).toBeCloseTo(zRef, 12);
    expect(z).toBeCloseTo(3.9, 1);
    expect(p).toBeCloseTo(normalUpperTail(zRef), 12);
    expect(twoProportionZTest(0, 300, 0, 300)).toEqual({ z: 0, p: 0.5 });
  });
});

/** A small seeded generator (mulberry32), so every simulated sample is reproducible. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const binomial = (n: number, p: number, r: () => number) => {
  let x = 0;
  for (let i = 0; i < n; i++) if (r() < p) x++;
  return x;
};

const input = (cur: [number, number], alt: [number, number], extra: Partial<ProposalInput> = {}): ProposalInput => ({
  kind: "BIN",
  key: "414720",
  current_gateway_id: "15",
  active_gateway_ids: ["15", "16"],
  counts: [
    { gateway_id: "15", attempts: cur[1], approvals: cur[0], cb_count: Math.round(cur[0] * 0.01) },
    { gateway_id: "16", attempts: alt[1], approvals: alt[0], cb_count: Math.round(alt[0] * 0.01) },
  ],
  ...extra,
});

describe("proposals", () => {
  // Two MIDs with the same true approval rate: every difference is noise.
  const noise = fc.record({ rate: fc.double({ min: 0.2, max: 0.8, noNaN: true }), n1: fc.integer({ min: 200, max: 2500 }), n2: fc.integer({ min: 200, max: 2500 }), seed: fc.integer() });
  const samples = fc.sample(noise, { numRuns: 3000, seed: 37 });
  const simulated = samples.map(({ rate, n1, n2, seed }) => {
    const r = rng(seed);
    return { cur: [binomial(n1, rate, r), n1] as [number, number], alt: [binomial(n2, rate, r), n2] as [number, number] };
  });

  // The samples are seeded, so these rates are the same on every run.
  it("proposes something for noise at most alpha of the time", () => {
    const proposed = simulated.filter((s) => proposeFor(input(s.cur, s.alt)) !== null).length;
    expect(proposed / simulated.length).toBeLessThanOrEqual(PROPOSAL_DEFAULTS.alpha);
  });

  it("the test alone (no margin) is calibrated: its false positive rate is alpha within sampling error, neither above nor far below", () => {
    const opts = { ...PROPOSAL_DEFAULTS, marginPp: 0 };
    const rate = simulated.filter((s) => proposeFor(input(s.cur, s.alt), opts) !== null).length / simulated.length;
    const sd = Math.sqrt((opts.alpha * (1 - opts.alpha)) / simulated.length);
    expect(rate).toBeLessThanOrEqual(opts.alpha + 3 * sd);
    expect(rate).toBeGreaterThanOrEqual(opts.alpha - 3 * sd);
  });

  it("proposes the truly better MID, with numbers computed from the counts", () => {
    fc.assert(
      fc.property(fc.double({ min: 0.3, max: 0.7, noNaN: true }), fc.double({ min: 0.06, max: 0.2, noNaN: true }), fc.integer({ min: 2000, max: 5000 }), fc.integer({ min: 2000, max: 5000 }), (base, lift, n1, n2) => {
        const cur: [number, number] = [Math.round(base * n1), n1];
        const alt: [number, number] = [Math.round(Math.min(0.99, base + lift) * n2), n2];
        const p = proposeFor(input(cur, alt));
        expect(p).not.toBeNull();
        expect(p!.proposed.gateway_id).toBe("16");
        expect(p!.proposed.approval_rate).toBe(alt[0] / alt[1]);
        expect(p!.current.approval_rate).toBe(cur[0] / cur[1]);
        expect(p!.difference_pp).toBeCloseTo((alt[0] / alt[1] - cur[0] / cur[1]) * 100, 10);
        expect(p!.p_value).toBeLessThan(0.01);
        expect(p!.p_value).toBe(twoProportionZTest(alt[0], alt[1], cur[0], cur[1]).p);
      }),
    );
  });

  it("finds a truly better MID in simulated samples nearly always", () => {
    const r = rng(11);
    let found = 0;
    for (let i = 0; i < 300; i++) {
      const cur: [number, number] = [binomial(2210, 0.551, r), 2210];
      const alt: [number, number] = [binomial(1840, 0.612, r), 1840];
      if (proposeFor(input(cur, alt))?.proposed.gateway_id === "16") found++;
    }
    expect(found / 300).toBeGreaterThan(0.9);
  });

  it("says what it proposes in the product's words", () => {
    const p = proposeFor(input([1218, 2210], [1126, 1840]))!;
    expect(p.summary).toBe("route BIN 414720 to MID #16: 61.2 % vs 55.1 %, n = 1,840 / 2,210");
    expect(p.rule).toEqual({ type: "BIN", bin_prefix: "414720", rule_name: "BIN 414720 to MID #16" });
    expect(p.threshold).toBe(0.01);
  });

  it("needs the minimum counts on both sides, an active MID, a margin and a current MID", () => {
    expect(proposeFor(input([1218, 2210], [119, 199]))).toBeNull();
    expect(proposeFor(input([110, 199], [1126, 1840]))).toBeNull();
    expect(proposeFor(input([1218, 2210], [1126, 1840], { active_gateway_ids: ["15"] }))).toBeNull();
    expect(proposeFor(input([1218, 2210], [1126, 1840], { current_gateway_id: null }))).toBeNull();
    // Significant but smaller than the margin: 1.5 pp on very large counts.
    expect(proposeFor(input([500_000, 1_000_000], [515_000, 1_000_000]))).toBeNull();
    expect(proposeFor(input([500_000, 1_000_000], [515_000, 1_000_000]), { ...PROPOSAL_DEFAULTS, marginPp: 1 })).not.toBeNull();
  });

  it("flags, never drops, a proposal with a worse chargeback rate", () => {
    const base = input([1218, 2210], [1126, 1840]);
    const worse = { ...base, counts: [{ ...base.counts[0]!, cb_count: 6 }, { ...base.counts[1]!, cb_count: 40 }] };
    const p = proposeFor(worse)!;
    expect(p.chargeback_worse).toBe(true);
    expect(p.proposed.cb_rate).toBe(40 / 1126);
    expect(p.current.cb_rate).toBe(6 / 1218);
    const better = { ...base, counts: [{ ...base.counts[0]!, cb_count: 40 }, { ...base.counts[1]!, cb_count: 6 }] };
    expect(proposeFor(better)!.chargeback_worse).toBe(false);
  });

  it("splits alpha among several candidates and proposes the best one", () => {
    const p = proposeFor({
      kind: "BANK",
      key: "ACME BANK",
      current_gateway_id: "1",
      active_gateway_ids: ["1", "2", "3"],
      counts: [
        { gateway_id: "1", attempts: 2000, approvals: 1000, cb_count: 10 },
        { gateway_id: "2", attempts: 2000, approvals: 1150, cb_count: 10 },
        { gateway_id: "3", attempts: 2000, approvals: 1250, cb_count: 10 },
      ],
    })!;
    expect(p.proposed.gateway_id).toBe("3");
    expect(p.threshold).toBe(0.005);
    expect(p.rule).toEqual({ type: "BANK", bank: "ACME BANK", rule_name: "BANK ACME BANK to MID #3" });
  });

  it("reads order-summary records grouped by key and gateway", () => {
    const m = countsByKey(
      [
        { bin: "414720", gateway_id: "15", attempts: "10", approvals: 5, cb_count: 1 },
        { bin: "414720", gateway_id: "15", attempts: 2, approvals: 1, cb_count: 0 },
        { bin: "414720", gateway_id: 16, attempts: 3, approvals: 3, cb_count: null },
        { bin: null, gateway_id: "15", attempts: 9, approvals: 9, cb_count: 9 },
      ],
      "bin",
    );
    expect(m.get("414720")).toEqual([
      { gateway_id: "15", attempts: 12, approvals: 6, cb_count: 1 },
      { gateway_id: "16", attempts: 3, approvals: 3, cb_count: 0 },
    ]);
    expect(m.size).toBe(1);
  });
});
