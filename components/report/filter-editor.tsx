"use client";
import { dimensionsFor } from "@/lib/contract/dimensions";
import type { Operation } from "@/lib/contract/operations";
import type { Filters } from "@/lib/report/state/filters";
import type { SelectGroup } from "@/components/ui/select";
import { FilterFields, FilterRowLoading, groupsOf } from "./filter-fields";
import { lazyPart } from "@/components/ui/lazy-part";

// One filter's editor (values, checkboxes, pasting, suggestions) is loaded with the first filter.
// A filter in the page's link is drawn on the server, and its row hydrates when its code has come,
// fetched as soon as the form hydrates.
const FilterRow = lazyPart(() => import("./filter-row").then((m) => m.FilterRowWithClient), <FilterRowLoading />);

/** Catalog dimensions as select groups (the catalog's own display groups, in catalog order). */
export function dimensionGroups(op: Operation, exclude: readonly string[] = []): SelectGroup[] {
  return groupsOf(dimensionsFor(op), exclude);
}

/** Filters on any dimension of the operation (./filter-fields.tsx, with the catalog's dimensions). */
export function FilterEditor({ op, value, onChange }: { op: Operation; value: Filters; onChange: (f: Filters) => void }) {
  return <FilterFields dimensions={dimensionsFor(op)} row={FilterRow} value={value} onChange={onChange} />;
}
