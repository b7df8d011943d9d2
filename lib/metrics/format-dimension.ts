/**
 * A dimension value as text, by the catalog's type of that dimension. Apart from format.ts, so that
 * pages formatting only numbers, money and instants do not load the catalog (about 6 KB gzipped).
 */
import { getDimension } from "@/lib/contract/catalog";
import { formatTypedValue } from "@/lib/report-state/filter-words";

/** A dimension value as text: ids without separators, price points with 2 decimals. */
export function formatDimensionValue(dimension: string, v: string | number | null | undefined): string {
  return formatTypedValue(getDimension(dimension)?.type, v);
}
