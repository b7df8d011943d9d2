"use client";
import dynamic from "next/dynamic";
import { dimensionsFor, type Operation } from "@/lib/contract/catalog";
import type { Filters } from "@/lib/report-state/filters";
import type { SelectGroup } from "@/components/ui/select";
import { FilterFields, FilterRowLoading, groupsOf } from "./filter-fields";

// One filter's editor (values, checkboxes, pasting, suggestions) is loaded with the first filter;
// a filter in the page's link is drawn on the server and its code comes with the page.
const FilterRow = dynamic(() => import("./filter-row").then((m) => m.FilterRowWithClient), { loading: FilterRowLoading });

/** Catalog dimensions as select groups (the catalog's own display groups, in catalog order). */
export function dimensionGroups(op: Operation, exclude: readonly string[] = []): SelectGroup[] {
  return groupsOf(dimensionsFor(op), exclude);
}

/** Filters on any dimension of the operation (./filter-fields.tsx, with the catalog's dimensions). */
export function FilterEditor({ op, value, onChange }: { op: Operation; value: Filters; onChange: (f: Filters) => void }) {
  return <FilterFields dimensions={dimensionsFor(op)} row={FilterRow} value={value} onChange={onChange} />;
}
