/**
 * Report filters: dimension → one or more values ("any of"), typed by the catalog. Canonical form:
 * keys in catalog order, values unique and sorted (numbers numerically, text by code point), enum
 * values in their catalog spelling, at most 100 values per dimension.
 */
import { dimensionsFor, type DimensionDef } from "@/lib/contract/dimensions";
import { LIMITS } from "@/lib/contract/limits";
import type { Operation } from "@/lib/contract/operations";
import { compareValues } from "@/lib/contract/order";
import { isCalendarDate } from "@/lib/contract/dates";

export type FilterValue = string | number;
export type Filters = Record<string, FilterValue[]>;

/**
 * Free text as a filter sends it and its chip shows it: trimmed, every inner run of white space
 * (tabs, new lines, non-breaking spaces, repeated spaces) one space, so nothing sent is invisible.
 */
export function normalizeText(raw: string): string {
  return raw.replace(/\s+/g, " ").trim();
}

/** A typed filter value from text, or undefined when the text is not a value of the dimension. */
export function parseFilterValue(d: DimensionDef, raw: string): FilterValue | undefined {
  const s = raw.trim();
  if (s === "") return undefined;
  switch (d.type) {
    case "integer": {
      // Ids, cycles and attempt numbers: none is negative.
      if (!/^\d+$/.test(s)) return undefined;
      const n = Number(s);
      return Number.isSafeInteger(n) ? n : undefined;
    }
    case "decimal": {
      if (!/^-?(\d+\.?\d*|\.\d+)$/.test(s)) return undefined;
      const n = Number(s);
      return Number.isFinite(n) ? n : undefined;
    }
    case "date":
      return isCalendarDate(s) ? s : undefined;
    case "string": {
      const t = normalizeText(s);
      if (d.values && d.values.length > 0) return d.values.find((v) => v.toLowerCase() === t.toLowerCase());
      return t.length <= LIMITS.maxStringFilterLength ? t : undefined;
    }
  }
}

/** Why a text is not a value of the dimension, for the form. */
export function filterValueHint(d: DimensionDef): string {
  switch (d.type) {
    case "integer":
      return "a whole number of 0 or more";
    case "decimal":
      return "a number";
    case "date":
      return "a date YYYY-MM-DD";
    case "string":
      return d.values ? `one of ${d.values.join(", ")}` : `text of at most ${LIMITS.maxStringFilterLength} characters`;
  }
}

/** Canonical filters for an operation: unknown dimensions and mistyped values dropped. */
export function normalizeFilters(op: Operation, filters: Readonly<Record<string, readonly FilterValue[]>>): Filters {
  const out: Filters = {};
  for (const d of dimensionsFor(op)) {
    const raw = filters[d.name];
    if (!raw || raw.length === 0) continue;
    const typed: FilterValue[] = [];
    for (const v of raw) {
      const t = parseFilterValue(d, String(v));
      if (t !== undefined && !typed.includes(t)) typed.push(t);
    }
    if (typed.length === 0) continue;
    out[d.name] = typed.sort(compareValues).slice(0, LIMITS.maxFilterValues);
  }
  return out;
}

/** Filters as the contract's request field: every dimension an array of values. */
export function requestFilters(filters: Filters): Record<string, FilterValue[]> | undefined {
  const keys = Object.keys(filters);
  if (keys.length === 0) return undefined;
  const out: Record<string, FilterValue[]> = {};
  for (const k of keys) out[k] = [...filters[k]!];
  return out;
}
