/**
 * Filters in words, given the dimensions' labels and types (lib/report/state/filters.ts passes the
 * catalog's; a page handed its dimensions by the server's render passes those).
 */
import type { DimensionType } from "@/lib/contract/dimensions";
import { formatTypedValue } from "@/lib/report/metrics/format";

export type FilterWords = Record<string, readonly (string | number)[]>;

/** "Card brand: VISA or AMEX; Gateway ID: 3", or "none". */
export function describeFiltersBy(filters: FilterWords, dimension: (name: string) => { label: string; type: DimensionType } | undefined): string {
  const parts = Object.entries(filters).map(([k, values]) => {
    const d = dimension(k);
    return `${d?.label ?? k}: ${values.map((v) => formatTypedValue(d?.type, v)).join(" or ")}`;
  });
  return parts.length === 0 ? "none" : parts.join("; ");
}
