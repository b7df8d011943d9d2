import { describe, expect, it } from "vitest";
import { formatValue } from "@/lib/report/metrics/format";
import { DEFAULT_MONITOR_CONFIG } from "./definitions";
import { evaluatePrograms, type MonthData } from "./evaluate";
import { levelSentence, numeratorNoun, thresholdLabel } from "./words";

const ECP = DEFAULT_MONITOR_CONFIG.programs.find((p) => p.id === "mastercard-ecp")!;
const VAMP = DEFAULT_MONITOR_CONFIG.programs.find((p) => p.id === "visa-vamp")!;
// Built with the product's own percent format, so the words follow it wherever it goes.
const p = (r: number) => formatValue(r, "percent");

/** ECP's row for one MID in April 2026: `chargebacks` received in April on `sales` of March. */
function ecpRow(chargebacks: number, sales: number) {
  const mids = (sales: number, chargebacks: number) =>
    new Map([["1|MASTERCARD", { gatewayId: 1, gatewayName: "One", cardBrand: "MASTERCARD", sales, chargebacks, chargebackCents: 0, alerts: { ETHOCA: { count: 0, cents: 0 }, CDRN: { count: 0, cents: 0 }, RDR: { count: 0, cents: 0 } } }]]);
  const months = new Map<string, MonthData>([
    ["2026-04", { month: "2026-04", daysInMonth: 30, daysElapsed: 30, mids: mids(0, chargebacks) }],
    ["2026-03", { month: "2026-03", daysInMonth: 31, daysElapsed: 31, mids: mids(sales, 0) }],
  ]);
  return evaluatePrograms({ ...DEFAULT_MONITOR_CONFIG, programs: [ECP] }, months, ["2026-04"])[0]!;
}

describe("a programme's level in words", () => {
  it("names what is counted", () => {
    expect(numeratorNoun(ECP)).toBe("chargebacks");
    expect(numeratorNoun(VAMP)).toBe("disputes");
  });

  it("labels a threshold line with its ratio and its minimum count", () => {
    expect(thresholdLabel({ level: "excessive", ratio: 0.015, minCount: 100 }, "chargebacks")).toBe(`Excessive ${p(0.015)} and 100 chargebacks`);
    expect(thresholdLabel({ level: "excessive", ratio: 0.015, minCount: 1501 }, "disputes")).toBe(`Excessive ${p(0.015)} and 1,501 disputes`);
  });

  it("says which threshold a breach reached, ratio and count", () => {
    const row = ecpRow(212, 11_780);
    expect(row.actual.level).toBe("excessive");
    expect(levelSentence(ECP, row.actual, row.lowest)).toBe(`Excessive: ${p(212 / 11_780)} and 212 chargebacks, at or above ${p(0.015)} and 100.`);
    const high = ecpRow(300, 10_000);
    expect(levelSentence(ECP, high.actual, high.lowest)).toBe(`High excessive: ${p(0.03)} and 300 chargebacks, at or above ${p(0.03)} and 300.`);
  });

  it("says what the lowest threshold needs when none is reached, even a ratio far above it with too few chargebacks", () => {
    const few = ecpRow(99, 1_980);
    expect(few.actual.ratio).toBe(0.05);
    expect(few.actual.level).toBe("ok");
    expect(levelSentence(ECP, few.actual, few.lowest)).toBe(`Below every threshold in force: ${p(0.05)} and 99 chargebacks; the lowest, Monitored, needs ${p(0.01)} and 100.`);
    const low = ecpRow(45, 11_250);
    expect(levelSentence(ECP, low.actual, low.lowest)).toBe(`Below every threshold in force: ${p(0.004)} and 45 chargebacks; the lowest, Monitored, needs ${p(0.01)} and 100.`);
  });

  it("says when there is nothing to divide by, or no threshold in force", () => {
    const none = ecpRow(120, 0);
    expect(levelSentence(ECP, none.actual, none.lowest)).toBe("No sales to divide by: no ratio and no level, with 120 chargebacks.");
    expect(levelSentence(VAMP, { numerator: 40, ratio: 0.02, level: "ok", threshold: null }, null)).toBe(`No threshold of this programme is in force for the month: ${p(0.02)} and 40 disputes.`);
  });
});
