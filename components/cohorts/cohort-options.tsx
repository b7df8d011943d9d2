"use client";
import { useId, useState } from "react";
import { type CohortState, COHORT_CELLS, COHORT_LIMITS, COHORT_ROWS, type CohortCell, type CohortRows } from "@/lib/report/state/cohort";
import { CELL_LABELS, ROW_LABELS } from "@/lib/features/cohorts/labels";
import { quote } from "@/lib/report/state/words";
import { inputClass } from "@/components/ui/field";
import { Select } from "@/components/ui/select";


/** How the grid is drawn; applied at once (no new request). */
export function CohortOptions({ state, onChange }: { state: CohortState; onChange: (p: Partial<CohortState>) => void }) {
  const id = useId();
  return (
    <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 xl:grid-cols-5">
      <div className="flex flex-col gap-1">
        <label htmlFor={`${id}-rows`} className="text-xs text-slate-700">
          Rows
        </label>
        <Select
          id={`${id}-rows`}
          value={state.rows}
          onChange={(e) => onChange({ rows: e.target.value as CohortRows })}
          options={COHORT_ROWS.map((r) => ({ value: r, label: ROW_LABELS[r] }))}
        />
      </div>
      <div className="flex flex-col gap-1 xl:col-span-2">
        <label htmlFor={`${id}-cell`} className="text-xs text-slate-700">
          Cells show
        </label>
        <Select
          id={`${id}-cell`}
          value={state.cell}
          onChange={(e) => onChange({ cell: e.target.value as CohortCell })}
          options={COHORT_CELLS.map((c) => ({ value: c, label: CELL_LABELS[c] }))}
        />
      </div>
      <NumberSetting label="Billing cycles shown" value={state.cycles} limits={COHORT_LIMITS.cycles} onCommit={(cycles) => onChange({ cycles })} />
      <div className="grid grid-cols-2 gap-2">
        <NumberSetting
          label="Trial (days)"
          value={state.trialDays}
          limits={COHORT_LIMITS.trialDays}
          onCommit={(trialDays) => onChange({ trialDays })}
          hint="To cycle 1"
        />
        <NumberSetting
          label="Period (days)"
          value={state.periodDays}
          limits={COHORT_LIMITS.periodDays}
          onCommit={(periodDays) => onChange({ periodDays })}
          hint="Between rebills"
        />
      </div>
    </div>
  );
}

/**
 * A whole-number setting that applies as soon as what is typed is valid. Anything else is refused
 * with a message that says what the grid still uses, never clamped or cut to fit.
 */
function NumberSetting({
  label,
  value,
  limits,
  onCommit,
  hint,
}: {
  label: string;
  value: number;
  limits: { min: number; max: number };
  onCommit: (n: number) => void;
  hint?: string;
}) {
  const id = useId();
  const [text, setText] = useState(String(value));
  const [seen, setSeen] = useState(value);
  if (seen !== value) {
    setSeen(value);
    setText(String(value));
  }
  const n = Number(text);
  const valid = /^\d+$/.test(text) && n >= limits.min && n <= limits.max;
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs text-slate-700">
        {label}
      </label>
      <input
        id={id}
        type="text"
        inputMode="numeric"
        autoComplete="off"
        className={inputClass}
        value={text}
        aria-invalid={!valid}
        aria-describedby={`${id}-hint`}
        onChange={(e) => {
          setText(e.target.value);
          const v = Number(e.target.value);
          if (/^\d+$/.test(e.target.value) && v >= limits.min && v <= limits.max) onCommit(v);
        }}
      />
      <p id={`${id}-hint`} role={valid ? undefined : "alert"} className={valid ? "text-xs text-slate-600" : "text-xs font-medium text-red-700"}>
        {valid
          ? `${hint ? `${hint}; ` : ""}${limits.min} to ${limits.max}`
          : `${text.trim() === "" ? "Empty" : quote(text, 12)} is not applied: enter a whole number from ${limits.min} to ${limits.max}. The grid still uses ${value}.`}
      </p>
    </div>
  );
}
