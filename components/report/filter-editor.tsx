"use client";
import { dimensionsFor } from "@/lib/contract/dimensions";
import type { Operation } from "@/lib/contract/operations";
import type { Filters } from "@/lib/report/state/filters";
import type { SelectGroup } from "@/components/ui/select";
import { FilterFields, groupsOf } from "./filter-fields";

/** Catalog dimensions as select groups (the catalog's own display groups, in catalog order). */
export function dimensionGroups(op: Operation, exclude: readonly string[] = []): SelectGroup[] {
  return groupsOf(dimensionsFor(op), exclude);
}

/** Filters on any dimension of the operation (./filter-fields.tsx, with the catalog's dimensions). */
export function FilterEditor({ op, value, onChange }: { op: Operation; value: Filters; onChange: (f: Filters) => void }) {
  return <FilterFields dimensions={dimensionsFor(op)} value={value} onChange={onChange} />;
}
