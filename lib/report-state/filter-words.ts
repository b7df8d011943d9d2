/**
 * Filters and dimension values in words, given the dimensions' labels and types rather than the
 * catalog (lib/report-state/filters.ts and lib/metrics/format-dimension.ts pass the catalog's), so a
 * page handed its dimensions by the server's render describes filters without loading the catalog.
 */
import type { DimensionType } from "@/lib/contract/dimensions";
import { EMPTY_DIMENSION } from "@/lib/metrics/format-time";

export type FilterWords = Record<string, readonly (string | number)[]>;

/** A dimension value as text: ids without separators, price points with 2 decimals. */
export function formatTypedValue(type: DimensionType | undefined, v: string | number | null | undefined): string {
  if (v === null || v === undefined || v === "") return EMPTY_DIMENSION;
  if (typeof v === "number" && type === "decimal") return v.toFixed(2);
  return String(v);
}

/** "Card brand: VISA or AMEX; Gateway ID: 3", or "none". */
export function describeFiltersBy(filters: FilterWords, dimension: (name: string) => { label: string; type: DimensionType } | undefined): string {
  const parts = Object.entries(filters).map(([k, values]) => {
    const d = dimension(k);
    return `${d?.label ?? k}: ${values.map((v) => formatTypedValue(d?.type, v)).join(" or ")}`;
  });
  return parts.length === 0 ? "none" : parts.join("; ");
}
