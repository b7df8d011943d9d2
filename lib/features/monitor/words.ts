/**
 * A programme's level in words, for the drill-down's sentence and its chart's threshold lines. A level
 * needs its ratio AND its minimum count, so both are always named: "1.80% and 212 chargebacks, at or
 * above 1.50% and 100" says why a MID is excessive, and "5.00% and 99 chargebacks … needs 1.00% and
 * 100" why one with a high ratio is not. Types only from the programmes' schemas: the browser draws
 * these without zod.
 */
import { formatValue } from "@/lib/report/metrics/format";
import type { Program, Threshold } from "./definitions";
import type { Measured } from "./evaluate";
import { STATUS_LABELS } from "./status";

const pct = (r: number | null) => formatValue(r, "percent");
const count = (n: number) => formatValue(Math.round(n), "count");

/** What a programme counts: "chargebacks", or "disputes" when alerts count as disputes too. */
export function numeratorNoun(program: Pick<Program, "numerator">): string {
  return program.numerator.alertTypes.length > 0 ? "disputes" : "chargebacks";
}

/** A threshold line's label: "Excessive 1.50% and 100 chargebacks". */
export function thresholdLabel(t: Pick<Threshold, "level" | "ratio" | "minCount">, noun: string): string {
  return `${STATUS_LABELS[t.level]} ${pct(t.ratio)} and ${count(t.minCount)} ${noun}`;
}

/**
 * A row's level in a sentence, naming the ratio and the count against the threshold's: the one
 * reached, or else the lowest in force (what "close" means for the row).
 */
export function levelSentence(program: Pick<Program, "numerator">, m: Pick<Measured, "numerator" | "ratio" | "level" | "threshold">, lowest: Pick<Threshold, "level" | "ratio" | "minCount"> | null): string {
  const noun = numeratorNoun(program);
  const reading = `${pct(m.ratio)} and ${count(m.numerator)} ${noun}`;
  if (m.level !== "ok" && m.threshold) return `${STATUS_LABELS[m.level]}: ${reading}, at or above ${pct(m.threshold.ratio)} and ${count(m.threshold.minCount)}.`;
  if (!lowest) return `No threshold of this programme is in force for the month: ${reading}.`;
  if (m.ratio === null) return `No sales to divide by: no ratio and no level, with ${count(m.numerator)} ${noun}.`;
  return `Below every threshold in force: ${reading}; the lowest, ${STATUS_LABELS[lowest.level]}, needs ${pct(lowest.ratio)} and ${count(lowest.minCount)}.`;
}
