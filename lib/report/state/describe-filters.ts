/**
 * Filters in words, with the catalog's labels. Apart from ./filters.ts, which the report pages' forms
 * load on first paint, as only what comes later (a CSV's notes, a shared dashboard) says filters in
 * words.
 */
import { getDimension } from "@/lib/contract/dimensions";
import { lastReports, unseenValues, valueWords, type KnownValues } from "./filter-input";
import { formatTypedValue } from "@/lib/report/metrics/format";
import { describeFiltersBy } from "./filter-words";
import type { FilterValue, Filters } from "./filters";

/** "Card brand: VISA or MASTERCARD; Product ID: 903" (or "none"). */
export function describeFilters(filters: Filters): string {
  return describeFiltersBy(filters, getDimension);
}

/** One filter in a sentence: "Issuing bank is “BANK OF X”", "Gateway ID is 3 or 12". */
function filterPhrase(name: string, values: readonly FilterValue[]): string {
  const d = getDimension(name);
  return `${d?.label ?? name} is ${values.map((v) => (typeof v === "number" ? formatTypedValue(d?.type, v) : valueWords(v))).join(" or ")}`;
}

const and = (parts: string[]) => (parts.length <= 1 ? (parts[0] ?? "") : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`);

/**
 * What an empty answer says about its filters, from what is already known and at no upstream
 * call: with one filter, that filter matched nothing in the range; with several, those holding a
 * value recent answers never held (`known`, by dimension) are named as what emptied it, else all of
 * them together. Without filters, the range itself holds nothing.
 */
export function emptyResultWords(filters: Filters, known: Readonly<Record<string, KnownValues | undefined>>): string {
  const names = Object.keys(filters).filter((n) => (filters[n]?.length ?? 0) > 0);
  if (names.length === 0) return "No records in this range. Widen the range.";
  const unseen = names.flatMap((n) => {
    const vs = unseenValues(filters[n]!, known[n]);
    return vs.length > 0 ? [{ n, vs, reports: known[n]!.reports }] : [];
  });
  const notSeen = (u: { vs: FilterValue[]; reports: number }) => `${u.vs.map(valueWords).join(", ")} ${u.vs.length === 1 ? "was" : "were"} not seen in ${lastReports(u.reports)}`;
  if (names.length === 1) {
    const n = names[0]!;
    const u = unseen[0];
    return `No records: the filter ${filterPhrase(n, filters[n]!)} matched nothing in this range.${u ? ` ${cap(notSeen(u))} either.` : ""} Remove it, choose another value or widen the range.`;
  }
  if (unseen.length > 0) {
    const which = unseen.map((u) => filterPhrase(u.n, filters[u.n]!));
    return `No records, most likely because of the filter${which.length === 1 ? "" : "s"} ${and(which)}: ${unseen.map(notSeen).join("; ")}. Remove ${which.length === 1 ? "it" : "them"} or choose values the suggestions offer.`;
  }
  return `No records: the filters ${and(names.map((n) => filterPhrase(n, filters[n]!)))} together match nothing in this range. Remove one at a time to see which empties it, or widen the range.`;
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
