/**
 * BIN routing's enumerations (SPEC.md §4), apart from the zod schemas in bin-routing.ts: the BIN
 * lookup's form draws its choices from these when the page loads, and loads the schemas (and zod,
 * about 30 KB gzipped) only to check what is sent.
 */
export const ROUTING_SALES_TYPES = ["INITIALS", "REBILLS"] as const;
export const SELECTION_METHODS = ["ROUND_ROBIN", "WEIGHTAGE", "RANDOM"] as const;
export type SelectionMethod = (typeof SELECTION_METHODS)[number];
