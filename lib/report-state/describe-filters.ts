/**
 * Filters in words, with the catalog's labels. Apart from ./filters.ts, which the report pages' forms
 * load on first paint, as only what comes later (a CSV's notes, a shared dashboard) says filters in
 * words (issue 21).
 */
import { getDimension } from "@/lib/contract/dimensions";
import { describeFiltersBy } from "./filter-words";
import type { Filters } from "./filters";

/** "Card brand: VISA or MASTERCARD; Product ID: 903" (or "none"). */
export function describeFilters(filters: Filters): string {
  return describeFiltersBy(filters, getDimension);
}
