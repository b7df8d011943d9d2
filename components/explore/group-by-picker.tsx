"use client";
import { useId } from "react";
import { getDimension } from "@/lib/contract/dimensions";
import { LIMITS } from "@/lib/contract/limits";
import type { Operation } from "@/lib/contract/operations";
import { Button } from "@/components/ui/button";
import { Select } from "@/components/ui/select";
import { dimensionGroups } from "@/components/report/filter-editor";

/** Up to six dimensions, in order: the first is the outermost grouping and the table's first column. */
export function GroupByPicker({ op, value, onChange }: { op: Operation; value: string[]; onChange: (v: string[]) => void }) {
  const id = useId();
  const full = value.length >= LIMITS.maxGroupBy;
  const move = (i: number, by: -1 | 1) => {
    const next = [...value];
    const [d] = next.splice(i, 1);
    next.splice(i + by, 0, d!);
    onChange(next);
  };
  return (
    <fieldset className="flex flex-col gap-2">
      <legend className="text-sm font-medium text-slate-900">
        Group by <span className="font-normal text-slate-600">(up to {LIMITS.maxGroupBy}, in order)</span>
      </legend>
      {value.length === 0 ? (
        <p className="text-xs text-slate-600">Not grouped: one row with the totals of the whole range.</p>
      ) : (
        <ol className="flex flex-col gap-1">
          {value.map((d, i) => {
            const label = getDimension(d)?.label ?? d;
            return (
              <li key={d} className="flex items-center gap-1 rounded-md border border-slate-300 bg-white py-0.5 pr-0.5 pl-2 text-sm">
                <span className="flex-1">
                  <span className="text-slate-600">{i + 1}.</span> {label}
                </span>
                <Button size="sm" variant="ghost" aria-label={`Move ${label} up`} disabled={i === 0} onClick={() => move(i, -1)}>
                  <span aria-hidden="true">↑</span>
                </Button>
                <Button size="sm" variant="ghost" aria-label={`Move ${label} down`} disabled={i === value.length - 1} onClick={() => move(i, 1)}>
                  <span aria-hidden="true">↓</span>
                </Button>
                <Button size="sm" variant="ghost" aria-label={`Remove ${label} from group by`} onClick={() => onChange(value.filter((x) => x !== d))}>
                  <span aria-hidden="true">×</span>
                </Button>
              </li>
            );
          })}
        </ol>
      )}
      <div className="flex flex-col gap-1">
        <label htmlFor={`${id}-add`} className="text-xs text-slate-700">
          Add a dimension
        </label>
        <Select
          id={`${id}-add`}
          value=""
          disabled={full}
          placeholder={full ? `At most ${LIMITS.maxGroupBy} dimensions` : "Choose a dimension…"}
          groups={dimensionGroups(op, value)}
          onChange={(e) => {
            if (e.target.value) onChange([...value, e.target.value]);
          }}
        />
      </div>
    </fieldset>
  );
}
