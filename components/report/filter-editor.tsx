"use client";
import { lazy, Suspense } from "react";
import { dimensionsFor } from "@/lib/contract/dimensions";
import type { Operation } from "@/lib/contract/operations";
import type { Filters } from "@/lib/report/state/filters";
import type { SelectGroup } from "@/components/ui/select";
import { FilterFields, FilterRowLoading, groupsOf } from "./filter-fields";
import type { FilterRowProps } from "./filter-row";

// One filter's editor (values, checkboxes, pasting, suggestions) is loaded with the first filter.
// React's own lazy rather than next/dynamic: a filter
// in the page's link is drawn on the server, and its row hydrates when its code has come, fetched
// as soon as the form hydrates.
const LazyFilterRow = lazy(() => import("./filter-row").then((m) => ({ default: m.FilterRowWithClient })));
function FilterRow(props: FilterRowProps) {
  return (
    <Suspense fallback={<FilterRowLoading />}>
      <LazyFilterRow {...props} />
    </Suspense>
  );
}

/** Catalog dimensions as select groups (the catalog's own display groups, in catalog order). */
export function dimensionGroups(op: Operation, exclude: readonly string[] = []): SelectGroup[] {
  return groupsOf(dimensionsFor(op), exclude);
}

/** Filters on any dimension of the operation (./filter-fields.tsx, with the catalog's dimensions). */
export function FilterEditor({ op, value, onChange }: { op: Operation; value: Filters; onChange: (f: Filters) => void }) {
  return <FilterFields dimensions={dimensionsFor(op)} row={FilterRow} value={value} onChange={onChange} />;
}
