/**
 * A dimension value as text, by the catalog's type of that dimension. Apart from format.ts, so that
 * pages formatting only numbers, money and instants do not load the catalog (about 6 KB gzipped).
 */
import { getDimension } from "@/lib/contract/catalog";
import { EMPTY_DIMENSION } from "./format";

/** A dimension value as text: ids without separators, price points with 2 decimals. */
export function formatDimensionValue(dimension: string, v: string | number | null | undefined): string {
  if (v === null || v === undefined || v === "") return EMPTY_DIMENSION;
  if (typeof v === "number" && getDimension(dimension)?.type === "decimal") return v.toFixed(2);
  return String(v);
}
