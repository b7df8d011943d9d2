/**
 * Exact money (SPEC.md §2.3): amounts travel as decimals with 2 places, are added as integer cents,
 * and become decimals again once, at the end. Every cents conversion in both systems is here.
 */
import { getMetric } from "./catalog";

/** Cents of an amount that travels with 2 decimals (19.99 → 1999). */
export function toCents(amount: number): number {
  return Math.round(amount * 100);
}

/** The amount of a whole number of cents: the one rounding step. */
export function fromCents(cents: number): number {
  return cents / 100;
}

/** Exact cents of a decimal (39.95 → 3995), or null when it has finer precision than cents (39.955). */
export function exactCents(amount: number): number | null {
  const cents = toCents(amount);
  return Math.abs(cents - amount * 100) < 1e-6 ? cents : null;
}

export function isAmountMetric(metric: string): boolean {
  return getMetric(metric)?.type === "amount";
}

/** A metric's value in integer units: cents for amounts, the count itself for counts. */
export function toUnits(metric: string, value: number): number {
  return isAmountMetric(metric) ? toCents(value) : value;
}

/** A metric's integer units back in its natural unit. */
export function fromUnits(metric: string, units: number): number {
  return isAmountMetric(metric) ? fromCents(units) : units;
}
