/**
 * The order of records in every answer (SPEC.md §2.1): numbers numerically, strings by code point,
 * nulls last. The service sorts in SQL; the dashboard re-sorts merged and derived answers with this.
 */
export type OrderValue = string | number | null | undefined;

export function compareValues(a: OrderValue, b: OrderValue): number {
  const an = a === null || a === undefined;
  const bn = b === null || b === undefined;
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}
