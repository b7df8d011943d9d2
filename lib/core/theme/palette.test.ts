/**
 * The chart colours of app/globals.css, as the browser reads them, in both schemes: every mark keeps
 * 3:1 against the chart's surface (WCAG 1.4.11) and tick and label text 4.5:1 (1.4.3). The series
 * stay distinct from each other and from the total.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { contrastRatio } from "./contrast";

const css = readFileSync(new URL("../../../app/globals.css", import.meta.url), "utf8");

/** The --chart-* declarations of the first block opened by `selector`. */
function chartVars(selector: string): Map<string, string> {
  const start = css.indexOf(`${selector} {`);
  expect(start, `${selector} block in globals.css`).toBeGreaterThanOrEqual(0);
  const body = css.slice(start, css.indexOf("}", start));
  return new Map([...body.matchAll(/--(chart-[a-z0-9-]+):\s*(#[0-9a-fA-F]{3,6})\s*;/g)].map((m) => [m[1]!, m[2]!]));
}

const schemes = { light: chartVars(":root"), dark: chartVars("html.dark") };
const MARKS = [...Array.from({ length: 10 }, (_, i) => `chart-series-${i + 1}`), "chart-other", "chart-total", "chart-threshold", "chart-ratio", "chart-axis"];
const TEXT = ["chart-tick", "chart-threshold-label"];

describe.each(Object.entries(schemes))("chart colours, %s scheme", (_, vars) => {
  const get = (name: string) => {
    const v = vars.get(name);
    expect(v, `--${name}`).toBeDefined();
    return v!;
  };

  it("declares the same colours in both schemes", () => {
    expect([...vars.keys()].sort()).toEqual([...schemes.light.keys()].sort());
  });

  it.each(MARKS)("--%s keeps 3:1 against the surface", (name) => {
    expect(contrastRatio(get(name), get("chart-surface"))).toBeGreaterThanOrEqual(3);
  });

  it.each(TEXT)("--%s keeps 4.5:1 against the surface", (name) => {
    expect(contrastRatio(get(name), get("chart-surface"))).toBeGreaterThanOrEqual(4.5);
  });

  it("no two series (nor the total) share a colour", () => {
    const colours = MARKS.filter((m) => m.startsWith("chart-series") || m === "chart-total").map((m) => get(m).toLowerCase());
    expect(new Set(colours).size).toBe(colours.length);
  });
});

describe("contrastRatio", () => {
  it("is 21 for black on white, 1 for a colour on itself, and symmetric", () => {
    expect(contrastRatio("#000", "#fff")).toBeCloseTo(21, 5);
    expect(contrastRatio("#2f5f8f", "#2f5f8f")).toBe(1);
    expect(contrastRatio("#767676", "#ffffff")).toBeCloseTo(4.54, 2);
    expect(contrastRatio("#ffffff", "#767676")).toBe(contrastRatio("#767676", "#ffffff"));
  });
  it("refuses what is not a hex colour", () => {
    expect(() => contrastRatio("red", "#fff")).toThrow(/not a #rrggbb/);
  });
});
