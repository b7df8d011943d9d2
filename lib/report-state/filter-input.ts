/**
 * A filter's values as typed or pasted into its row. Apart from ./filters.ts (the canonical form,
 * which the report pages check links with on first paint), as only a filter's row, loaded with the
 * first filter, uses these (issue 21).
 */
import type { DimensionDef } from "@/lib/contract/dimensions";
import { LIMITS } from "@/lib/contract/limits";
import { filterValueHint, parseFilterValue, type FilterValue } from "./filters";

/** Why one typed token is not a value of the dimension (never quoting more than a short prefix). */
export function rejectReason(d: DimensionDef, token: string): string {
  if (d.type === "string" && !d.values && token.length > LIMITS.maxStringFilterLength) {
    return `longer than ${LIMITS.maxStringFilterLength} characters (it has ${token.length.toLocaleString("en-US")})`;
  }
  return `not ${filterValueHint(d)}`;
}

export interface FilterInput {
  /** New values, in the order typed. */
  added: FilterValue[];
  /** Tokens that are not values of the dimension, each with why. */
  rejected: { token: string; reason: string }[];
  /** Values typed that the filter already holds (or typed twice). */
  duplicates: number;
  /** Valid values left out because the filter would hold more than the contract allows. */
  overLimit: number;
}

/**
 * What typing or pasting `text` into a filter adds. Numbers and dates are lists separated by commas,
 * semicolons, spaces or new lines (`12, 13` is two values); free text is one value per line (it may
 * hold commas). Nothing is dropped in silence: every token is added, rejected with a reason, counted
 * as a duplicate, or counted as over the limit.
 */
export function parseFilterInput(d: DimensionDef, text: string, existing: readonly FilterValue[]): FilterInput {
  const tokens = (d.type === "string" ? text.split(/\r?\n/) : text.split(/[\s,;]+/)).map((t) => t.trim()).filter((t) => t !== "");
  const out: FilterInput = { added: [], rejected: [], duplicates: 0, overLimit: 0 };
  for (const token of tokens) {
    const v = parseFilterValue(d, token);
    if (v === undefined) out.rejected.push({ token, reason: rejectReason(d, token) });
    else if (existing.includes(v) || out.added.includes(v)) out.duplicates++;
    else if (existing.length + out.added.length >= LIMITS.maxFilterValues) out.overLimit++;
    else out.added.push(v);
  }
  return out;
}
