"use client";
import { useId } from "react";
import {
  isValidCustomRange,
  presetLabel,
  rangeDays,
  resolveRange,
  type RangePreset,
  type RangeSelection,
} from "@/lib/report/state/range";
import { isCalendarDate } from "@/lib/contract/dates";
import { overCapMessage, quote } from "@/lib/report/state/words";
import { inputClass } from "./field";
import { Select } from "./select";

/** Why a range cannot be run, or null; `today` is the reporting time zone's date. */
export function rangeError(range: RangeSelection, today: string): string | null {
  if ("preset" in range) return null;
  if (!range.start || !range.end) return "Enter both dates, as YYYY-MM-DD.";
  for (const [label, d] of [["From", range.start], ["To", range.end]] as const) {
    if (!isCalendarDate(d)) return `${label}: ${quote(d, 20)} is not a date; type it as YYYY-MM-DD (for example ${today}).`;
  }
  if (range.end < range.start) return `The range ends (${range.end}) before it starts (${range.start}).`;
  if (range.end > today) return `The range ends after today (${today}); there is no data for later days yet.`;
  if (!isValidCustomRange(range.start, range.end)) return overCapMessage(range.start, range.end);
  return null;
}

/**
 * Dates are typed as text in the one format the whole product shows (a browser's date input shows
 * the visitor's locale, e.g. 07/31/2025), and checked by rangeError, which says what is wrong.
 */
const DATE_TEXT = { type: "text", inputMode: "numeric", placeholder: "YYYY-MM-DD", maxLength: 10, autoComplete: "off", spellCheck: false } as const;

/**
 * A preset (resolved against today in the reporting time zone, shown as dates) or a custom range.
 * Editing a date turns the selection into a custom range starting from what was shown.
 */
export function DateRangePicker({
  value,
  onChange,
  presets,
  today,
  timeZone,
}: {
  value: RangeSelection;
  onChange: (r: RangeSelection) => void;
  presets: readonly RangePreset[];
  today: string;
  timeZone: string;
}) {
  const id = useId();
  const shown = "preset" in value ? resolveRange(value, today) : value;
  const error = rangeError(value, today);
  const days = error === null ? rangeDays(resolveRange(value, today)) : null;

  return (
    <fieldset className="flex flex-col gap-2">
      <legend className="text-sm font-medium text-slate-900">Date range</legend>
      <div className="grid grid-cols-2 gap-2">
        <div className="col-span-2 flex flex-col gap-1">
          <label htmlFor={`${id}-preset`} className="text-xs text-slate-700">
            Period
          </label>
          <Select
            id={`${id}-preset`}
            value={"preset" in value ? value.preset : "custom"}
            onChange={(e) => {
              const v = e.target.value;
              onChange(v === "custom" ? { start: shown.start, end: shown.end } : { preset: v as RangePreset });
            }}
            options={[...presets.map((p) => ({ value: p, label: presetLabel(p) })), { value: "custom", label: "Custom" }]}
          />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-start`} className="text-xs text-slate-700">
            From
          </label>
          <input
            id={`${id}-start`}
            {...DATE_TEXT}
            className={inputClass}
            value={shown.start}
            aria-invalid={error !== null}
            aria-describedby={`${id}-note`}
            onChange={(e) => onChange({ start: e.target.value.trim(), end: shown.end })}
          />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-end`} className="text-xs text-slate-700">
            To
          </label>
          <input
            id={`${id}-end`}
            {...DATE_TEXT}
            className={inputClass}
            value={shown.end}
            aria-invalid={error !== null}
            aria-describedby={`${id}-note`}
            onChange={(e) => onChange({ start: shown.start, end: e.target.value.trim() })}
          />
        </div>
      </div>
      <p id={`${id}-note`} role={error ? "alert" : undefined} className={error ? "text-xs font-medium text-red-700" : "text-xs text-slate-600"}>
        {error ?? `${days} day${days === 1 ? "" : "s"}, inclusive; dates are in ${timeZone}, where today is ${today}.`}
      </p>
    </fieldset>
  );
}
