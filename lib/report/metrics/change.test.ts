import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { exportValue, formatChange, formatCompact, formatCount, type ValueFormat } from "./format";
import { measureFor } from "./kpis";
import { changeCells } from "@/lib/report/table/change";

const MINUS = "\u2212";

describe("formatChange", () => {
  it("writes a decrease with a minus sign and an increase with a plus, in every unit", () => {
    expect(formatChange(-40, "count")).toBe(`${MINUS}40`);
    expect(formatChange(40, "count")).toBe("+40");
    expect(formatChange(-0.404, "percent")).toBe(`${MINUS}40.40%`);
    expect(formatChange(5243.75, "currency")).toBe("+$5,243.75");
    expect(formatChange(-5243.75, "currency")).toBe(`${MINUS}$5,243.75`);
    expect(formatChange(-0.0044, "points")).toBe(`${MINUS}0.44 pp`);
    expect(formatChange(0.021, "points")).toBe("+2.10 pp");
  });

  it("writes no change, or one that rounds to nothing at the shown precision, as an unsigned zero in its unit", () => {
    const zero = { count: "0", currency: "$0.00", percent: "0.00%", points: "0.00 pp" } as const;
    for (const f of ["count", "currency", "percent", "points"] as const) {
      expect(formatChange(0, f)).toBe(zero[f]);
      expect(formatChange(-0, f)).toBe(zero[f]);
    }
    expect(formatChange(0.4, "count")).toBe("0");
    expect(formatChange(-0.004, "currency")).toBe("$0.00");
    expect(formatChange(-0.00004, "percent")).toBe("0.00%");
    expect(formatChange(0.00004, "points")).toBe("0.00 pp");
  });

  it("writes a zero change with the same unit and decimals as a non-zero one", () => {
    for (const f of ["count", "currency", "percent", "points"] as const) {
      const shape = (t: string) => t.replace(/^[+\u2212]/, "").replace(/\d/g, "9");
      expect(shape(formatChange(0, f))).toBe(shape(formatChange(f === "count" ? 1 : f === "currency" ? 1.25 : 0.0125, f)));
    }
  });

  it("shows the same sign and digits as the CSV's number for any value", () => {
    const formats: ValueFormat[] = ["count", "currency", "percent", "points"];
    fc.assert(
      fc.property(fc.double({ min: -1e7, max: 1e7, noNaN: true }), fc.constantFrom(...formats), (v, f) => {
        const text = formatChange(v, f);
        const csv = exportValue(v, f)!;
        if (csv === 0) return !/[+\u2212]/.test(text) && Number(text.replace(/[^0-9.]/g, "")) === 0;
        const sign = csv > 0 ? "+" : MINUS;
        if (!text.startsWith(sign)) return false;
        // The digits on screen are the CSV's number, with separators and symbols taken out.
        const digits = text.replace(/[^0-9.]/g, "");
        return Number(digits) === Math.abs(csv);
      }),
    );
  });
});

describe("change cells", () => {
  const revenue = measureFor("revenue", "orders")!;
  const cbRate = measureFor("cb_rate_count", "orders")!;
  const cbCount = measureFor("cb_count", "orders")!;

  it("signs a fall in chargebacks and calls it better beside the sign", () => {
    const [diff, pct] = changeCells(cbCount, 59, 99);
    expect(diff).toMatchObject({ value: -40, text: `${MINUS}40 (better)`, tone: "good" });
    expect(pct?.text).toBe(`${MINUS}40.40% (better)`);
    expect(pct?.tone).toBe("good");
  });

  it("signs a fall in revenue to the cent and calls it worse", () => {
    const [diff] = changeCells(revenue, 10_000.1, 15_243.85);
    expect(diff).toMatchObject({ value: -5243.75, text: `${MINUS}$5,243.75 (worse)`, tone: "bad" });
  });

  it("gives a rate's change in signed points, and a zero change no verdict", () => {
    const [pts] = changeCells(cbRate, 0.0056, 0.01);
    expect(pts?.text).toBe(`${MINUS}0.44 pp (better)`);
    const [none] = changeCells(cbRate, 0.01, 0.01);
    expect(none).toEqual({ value: 0, text: "0.00 pp" });
    const [tiny] = changeCells(cbRate, 0.0100001, 0.01);
    expect(tiny?.text).toBe("0.00 pp");
    expect(tiny?.tone).toBeUndefined();
  });

  it("says neither better nor worse for a neutral measure", () => {
    const attempts = measureFor("attempts", "orders")!;
    expect(attempts.better).toBe("neutral");
    const [diff, pct] = changeCells(attempts, 90, 100);
    expect(diff).toEqual({ value: -10, text: `${MINUS}10` });
    expect(pct?.text).toBe(`${MINUS}10.00%`);
  });
});

describe("formatCount", () => {
  it("agrees in number", () => {
    expect(formatCount(1, "row")).toBe("1 row");
    expect(formatCount(0, "row")).toBe("0 rows");
    expect(formatCount(1250, "row")).toBe("1,250 rows");
  });
});

describe("formatCompact", () => {
  it("writes axis amounts as browsers do, so a chart drawn on the server hydrates unchanged", () => {
    // Chromium's ICU, read in the browser: no padding to the currency's two decimals.
    expect([0, 500, 1500, 12_345, 250_000, 1e6, -1500].map((v) => formatCompact(v, "currency"))).toEqual(["$0", "$500", "$1.5K", "$12.3K", "$250K", "$1M", "-$1.5K"]);
    expect([0, 500, 250_000, 1e6].map((v) => formatCompact(v, "count"))).toEqual(["0", "500", "250K", "1M"]);
  });
});
