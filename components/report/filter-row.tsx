"use client";
/** One filter of the filter editor: its dimension's values as checkboxes, or typed, pasted and suggested ones. */
import { useId, useState } from "react";
import type { DimensionDef } from "@/lib/contract/dimensions";
import type { FilterValue } from "@/lib/report/state/filters";
import { Providers } from "@/components/providers";
import { Button } from "@/components/ui/button";
import { Select } from "@/components/ui/select";
import { ValueList } from "./filter-values";

export type FilterRowProps = Parameters<typeof FilterRow>[0];

/**
 * The row with the browser's react-query client (its suggestions query): the Alerts page's first
 * load has no react-query and gets it with the first filter; under a page's own provider it is the
 * same client.
 */
export function FilterRowWithClient(props: FilterRowProps) {
  return (
    <Providers>
      <FilterRow {...props} />
    </Providers>
  );
}

export function FilterRow({
  dimension: d,
  values,
  onChange,
  onRemove,
}: {
  dimension: DimensionDef;
  values: FilterValue[];
  onChange: (v: FilterValue[]) => void;
  onRemove: () => void;
}) {
  const id = useId();
  const [mode, setMode] = useState<"any" | "not">("any");
  const all = d.values ?? [];
  // "is not" is the complement of the enumeration: the contract can only keep listed values.
  const checked = (v: string) => (mode === "any" ? values.includes(v) : !values.includes(v));
  const toggle = (v: string, on: boolean) => {
    const chosen = all.filter((x) => (x === v ? on : checked(x)));
    onChange(mode === "any" ? chosen : all.filter((x) => !chosen.includes(x)));
  };
  const switchMode = (next: "any" | "not") => {
    // The boxes stay as they are and now mean the other thing.
    const chosen = all.filter((x) => checked(x));
    setMode(next);
    onChange(next === "any" ? chosen : all.filter((x) => !chosen.includes(x)));
  };
  const excluded = all.filter((x) => !values.includes(x));
  return (
    <div role="group" aria-labelledby={`${id}-name`} className="flex min-w-0 flex-col gap-2">
      <div className="flex items-center justify-between gap-2">
        <span id={`${id}-name`} className="text-sm font-medium">
          {d.label}
          {d.values ? null : <span className="font-normal text-slate-600"> (any of)</span>}
        </span>
        <Button size="sm" variant="ghost" onClick={onRemove} aria-label={`Remove the ${d.label} filter`}>
          Remove
        </Button>
      </div>
      {d.values ? (
        <>
          <div className="flex items-center gap-2">
            <label htmlFor={`${id}-mode`} className="sr-only">
              {d.label} condition
            </label>
            <Select
              id={`${id}-mode`}
              value={mode}
              onChange={(e) => switchMode(e.target.value === "not" ? "not" : "any")}
              options={[
                { value: "any", label: "is any of" },
                { value: "not", label: "is not" },
              ]}
            />
          </div>
          <div className="flex flex-wrap gap-x-4 gap-y-1">
            {d.values.map((v) => (
              <label key={v} className="flex items-center gap-1.5 text-sm">
                <input type="checkbox" className="size-4" checked={checked(v)} onChange={(e) => toggle(v, e.target.checked)} />
                {v}
              </label>
            ))}
          </div>
          {mode === "not" && excluded.length > 0 && values.length > 0 ? (
            <p className="text-xs text-slate-600">
              Sent as any of {values.join(", ")}; records without a {d.label.toLowerCase()} do not count.
            </p>
          ) : null}
        </>
      ) : (
        <ValueList dimension={d} values={values} onChange={onChange} />
      )}
      {values.length === 0 ? (
        <p className="text-xs text-amber-800">
          {mode === "not" ? "Excluding every value leaves nothing: clear a box, or remove this filter." : "Choose at least one value, or remove this filter."}
        </p>
      ) : null}
    </div>
  );
}
