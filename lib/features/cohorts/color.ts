/**
 * The grid's colour scale: seven blues for values from 0 to the maximum, reds below 0 (a
 * cohort still under water after CPA). Text colour is picked per step so every cell keeps at least
 * 4.5:1 contrast.
 */

const BLUES = ["#f8fafc", "#dbeafe", "#bfdbfe", "#93c5fd", "#60a5fa", "#2563eb", "#1e40af"] as const;
const REDS = ["#fef2f2", "#fee2e2", "#fecaca", "#fca5a5", "#f87171", "#dc2626"] as const;
const DARK = "#0f172a";
const LIGHT = "#ffffff";

export interface CellColour {
  background: string;
  color: string;
  /** 0 = lightest; negative for the red side. */
  step: number;
}

export function colourFor(value: number, min: number, max: number): CellColour {
  if (value < 0 && min < 0) {
    const t = Math.min(1, value / min);
    const i = Math.min(REDS.length - 1, Math.max(1, Math.round(t * (REDS.length - 1))));
    return { background: REDS[i]!, color: i === REDS.length - 1 ? LIGHT : DARK, step: -i };
  }
  const t = max > 0 ? Math.min(1, Math.max(0, value / max)) : 0;
  const i = Math.min(BLUES.length - 1, Math.round(t * (BLUES.length - 1)));
  return { background: BLUES[i]!, color: i >= 5 ? LIGHT : DARK, step: i };
}

/** Swatches for the legend: [value at the step's lower edge, colour]. */
export function legendSteps(min: number, max: number): { value: number; colour: CellColour }[] {
  const out: { value: number; colour: CellColour }[] = [];
  if (min < 0) out.push({ value: min, colour: colourFor(min, min, max) });
  for (let i = 0; i < BLUES.length; i++) {
    const v = max > 0 ? (max * i) / (BLUES.length - 1) : 0;
    out.push({ value: v, colour: colourFor(v, min, max) });
  }
  return out;
}
