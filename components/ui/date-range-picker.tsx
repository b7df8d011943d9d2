"use client";
import { useId } from "react";
import {
  MAX_RANGE_DAYS,
  isValidCustomRange,
  presetLabel,
  rangeDays,
  resolveRange,
  type RangePreset,
  type RangeSelection,
} from "@/lib/report-state/range";
import { inputClass } from "./field";
import { Select } from "./select";

/** Why a range cannot be run, or null. */
export function rangeError(range: RangeSelection): string | null {
  if ("preset" in range) return null;
  if (!range.start || !range.end) return "Enter both dates.";
  if (range.end < range.start) return "The end date is before the start date.";
  if (!isValidCustomRange(range.start, range.end)) return `A range can span at most ${MAX_RANGE_DAYS} days.`;
  return null;
}

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
  const error = rangeError(value);
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
            type="date"
            className={inputClass}
            value={shown.start}
            max={today}
            aria-invalid={error !== null}
            aria-describedby={`${id}-note`}
            onChange={(e) => e.target.value && onChange({ start: e.target.value, end: shown.end })}
          />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-end`} className="text-xs text-slate-700">
            To
          </label>
          <input
            id={`${id}-end`}
            type="date"
            className={inputClass}
            value={shown.end}
            aria-invalid={error !== null}
            aria-describedby={`${id}-note`}
            onChange={(e) => e.target.value && onChange({ start: shown.start, end: e.target.value })}
          />
        </div>
      </div>
      <p id={`${id}-note`} className={error ? "text-xs font-medium text-red-700" : "text-xs text-slate-600"}>
        {error ?? `${days} day${days === 1 ? "" : "s"}, inclusive; dates are in ${timeZone}, where today is ${today}.`}
      </p>
    </fieldset>
  );
}
