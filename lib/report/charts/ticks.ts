/**
 * A value axis's ticks: round numbers, a step of 1, 2, 2.5 or 5 × 10^n, from a round number at or
 * below the data (and 0) to one at or above it, and labels that show each tick exactly ("$1.25M",
 * "0.25%"), never rounded to a neighbour ("$1.3M"). Pure, so the chart only follows what it decides.
 */
import { DISPLAY_CURRENCY, type ValueFormat } from "@/lib/report/metrics/format";
import { stackOf } from "./drawing";
import type { ChartData } from "./shape";

/** The multiples of a power of ten a step may be. */
const NICE = [1, 2, 2.5, 5, 10] as const;

export interface ValueScale {
  /** The axis runs from domain[0] to domain[1], both ticks. */
  domain: [number, number];
  ticks: number[];
  step: number;
}

/** Decimal digits that show `v` exactly (up to 12); 0 for whole numbers. */
function decimalsOf(v: number): number {
  for (let d = 0; d < 12; d++) {
    const scaled = v * 10 ** d;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-9 * Math.max(1, Math.abs(scaled))) return d;
  }
  return 12;
}

/** Rounds off the float noise of k × step (0.1 + 0.2): to the step's own decimals. */
function clean(v: number, step: number): number {
  const d = decimalsOf(step);
  const r = Number(v.toFixed(Math.min(d, 20)));
  return Object.is(r, -0) ? 0 : r;
}

/** The smallest step of 1, 2, 2.5 or 5 × 10^n at or above `rough` (> 0). */
export function niceStep(rough: number): number {
  const power = 10 ** Math.floor(Math.log10(rough));
  for (const m of NICE) {
    const step = clean(m * power, m * power);
    if (step >= rough * (1 - 1e-9)) return step;
  }
  return 10 * power;
}

/**
 * Ticks from a round number at or below min(0, low) to one at or above max(0, high), at most
 * `maxTicks` of them (at least 2), each a multiple of a nice step. `wholeSteps`: the step is at least 1
 * (counts). An empty or flat range (nothing but zeros) gets the axis 0 to 1 step.
 */
export function niceScale(low: number, high: number, maxTicks: number, opts: { wholeSteps?: boolean } = {}): ValueScale {
  // Values within a millionth of 0 are no amount, rate or count anyone reads: 0.
  const near = (v: number) => (Number.isFinite(v) && Math.abs(v) >= 1e-6 ? v : 0);
  let lo = Math.min(0, near(low));
  let hi = Math.max(0, near(high));
  const asked = Math.max(1, Math.floor(maxTicks) - 1);
  if (lo === hi) hi = opts.wholeSteps ? asked : 1;
  // Values on both sides of 0 need a tick below it, 0 and one above it, however few were asked for.
  const intervals = Math.max(lo < 0 && hi > 0 ? 2 : 1, asked);
  // No step below a millionth (what is read as 0 above), nor below 1 for counts.
  let step = Math.max(niceStep((hi - lo) / intervals), opts.wholeSteps ? 1 : 1e-6);
  // The rounded ends can need one interval more than the rough step allowed: take the next step up
  // (a few times at most: each next step is at least 2 × 10^n / 1 × 10^n larger).
  for (;;) {
    const first = Math.floor(lo / step + 1e-9);
    const last = Math.ceil(hi / step - 1e-9);
    if (last - first <= intervals) {
      const ticks = Array.from({ length: last - first + 1 }, (_, k) => clean((first + k) * step, step));
      lo = ticks[0]!;
      hi = ticks[ticks.length - 1]!;
      return { domain: [lo, hi], ticks, step };
    }
    step = niceStep(step * 1.000001);
  }
}

/** The lowest and highest value drawn on one value axis, stacked bars counted as their stack's top and bottom. */
export function axisExtent(chart: Pick<ChartData, "series" | "data" | "stacked">, axis: "left" | "right"): [number, number] {
  let low = 0;
  let high = 0;
  const onAxis = chart.series.filter((s) => s.axis === axis);
  for (const d of chart.data) {
    let up = 0;
    let down = 0;
    for (const s of onAxis) {
      const v = d[s.key];
      if (typeof v !== "number" || !Number.isFinite(v)) continue;
      if (s.shape === "bar" && stackOf(chart, s) !== undefined) {
        if (v >= 0) up += v;
        else down += v;
      } else {
        low = Math.min(low, v);
        high = Math.max(high, v);
      }
    }
    low = Math.min(low, down);
    high = Math.max(high, up);
  }
  return [low, high];
}

/** The ticks of a chart's value axis: its drawn values, at most `maxTicks`; a count axis steps by whole numbers. */
export function chartScale(chart: Pick<ChartData, "series" | "data" | "stacked">, axis: "left" | "right", format: ValueFormat, maxTicks: number): ValueScale {
  const [low, high] = axisExtent(chart, axis);
  return niceScale(low, high, maxTicks, { wholeSteps: format === "count" });
}

const LOCALE = "en-US";
const MINUS = "\u2212";
const COMPACT_UNITS = [1e12, 1e9, 1e6, 1e3] as const;

/** How Intl's compact notation divides `v`: by 1e3 from a thousand, 1e6 from a million… */
function compactUnit(v: number): number {
  const a = Math.abs(v);
  for (const u of COMPACT_UNITS) if (a >= u) return u;
  return 1;
}

/**
 * A tick's label, exact at the tick's own value: "$0", "$250K", "$1.25M", "1.2K", "0.25%", "+0.5 pp".
 * Amounts and counts are compact (K, M, B); percentages show as many decimals as the tick needs.
 */
export function formatTick(v: number, f: ValueFormat): string {
  if (!Number.isFinite(v)) return "";
  if (f === "percent" || f === "points") {
    const pct = Number((v * 100).toPrecision(12));
    const digits = Math.min(decimalsOf(pct), 6);
    if (f === "percent") return new Intl.NumberFormat(LOCALE, { style: "percent", minimumFractionDigits: 0, maximumFractionDigits: digits }).format(v);
    const text = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 0, maximumFractionDigits: digits, signDisplay: "exceptZero" }).format(pct).replace("-", MINUS);
    return `${text} pp`;
  }
  const inUnit = Number((v / compactUnit(v)).toPrecision(12));
  const digits = Math.min(decimalsOf(inUnit), 6);
  // Both fraction bounds are stated: Node's ICU pads compact amounts to the currency's 2 decimals
  // ("$500.0") where browsers' does not, and a chart drawn on the server must hydrate unchanged.
  return new Intl.NumberFormat(LOCALE, {
    notation: "compact",
    minimumFractionDigits: 0,
    maximumFractionDigits: digits,
    ...(f === "currency" ? { style: "currency", currency: DISPLAY_CURRENCY } : {}),
  }).format(v);
}
