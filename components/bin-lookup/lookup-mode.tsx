"use client";
import { useId } from "react";
import { LOOKUP_MODES, type LookupMode } from "@/lib/features/bin-lookup/lookup";
import { RotationNote } from "./rotation-note";

/** Preview (the default, moves nothing) or a real routing call (an explicit choice, with its warning). */
export function LookupModePicker({ value, onChange, bulk = false }: { value: LookupMode; onChange: (m: LookupMode) => void; bulk?: boolean }) {
  const id = useId();
  return (
    <fieldset className="flex flex-col gap-2">
      <legend className="text-sm font-medium">Lookup</legend>
      {(Object.keys(LOOKUP_MODES) as LookupMode[]).map((m) => (
        <label key={m} className="flex items-start gap-2 text-sm">
          <input type="radio" name={`${id}-mode`} value={m} checked={value === m} onChange={() => onChange(m)} className="mt-1 size-4" />
          <span>
            <span className="font-medium">{LOOKUP_MODES[m].label}</span>
            <span className="block text-xs text-slate-600">{LOOKUP_MODES[m].hint}</span>
          </span>
        </label>
      ))}
      {value === "route" ? <RotationNote bulk={bulk} /> : null}
    </fieldset>
  );
}
