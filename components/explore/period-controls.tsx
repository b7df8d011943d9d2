"use client";
import { useId } from "react";
import { addDays, isCalendarDate } from "@/lib/contract/dates";
import { COMPARE_KINDS, COMPARE_LABELS, comparisonProblem, comparisonRange, describeComparison, previousAsCalendar, type CompareKind, type CompareSelection } from "@/lib/report/periods/compare";
import { dayCount, GRAIN_LABELS, TIME_GRAINS, type TimeGrain } from "@/lib/report/periods/grain";
import type { ExploreState } from "@/lib/report/state/explore";
import { resolveRange } from "@/lib/report/state/range";
import { quote } from "@/lib/report/state/words";
import { describedBy, Field, inputClass } from "@/components/ui/field";
import { Select } from "@/components/ui/select";

/** Why the draft's comparison cannot be run, or null. */
export function compareError(draft: Pick<ExploreState, "range" | "compare">, today: string, rangeOk: boolean): string | null {
  const c = draft.compare;
  if (!rangeOk) return null;
  if (c.kind === "custom") {
    if (!isCalendarDate(c.start)) return `${quote(c.start, 20)} is not a date; type the comparison's first day as YYYY-MM-DD.`;
    if (!isCalendarDate(c.end)) return `${quote(c.end, 20)} is not a date; type the comparison's last day as YYYY-MM-DD.`;
  }
  const problem = comparisonProblem(resolveRange(draft.range, today), c);
  if (problem) return problem;
  if (c.kind === "custom" && c.end > today) return `The comparison ends after today (${today}).`;
  return null;
}

/**
 * The grain of the date rows and what the report is compared with. A custom comparison has its own
 * first and last day; moving the first keeps its length (the report's, to begin with), and a length
 * other than the report's is said under the control, as is any reason the comparison is refused.
 */
export function PeriodControls({
  draft,
  today,
  rangeOk,
  onChange,
  monthsBesideMonths = false,
}: {
  draft: Pick<ExploreState, "range" | "groupBy" | "grain" | "compare">;
  today: string;
  /** The report's own range is valid (otherwise there is nothing to compare yet). */
  rangeOk: boolean;
  /** A dashboard's: the previous period of whole months is the previous calendar months (previousAsCalendar). */
  monthsBesideMonths?: boolean;
  onChange: (p: { grain?: TimeGrain; compare?: CompareSelection }) => void;
}) {
  const id = useId();
  const byDate = draft.groupBy.includes("date");
  const range = rangeOk ? resolveRange(draft.range, today) : null;
  const error = compareError(draft, today, rangeOk);
  const applied = range && monthsBesideMonths ? previousAsCalendar(range, draft.compare) : draft.compare;
  const cmp = range && !error ? comparisonRange(range, applied) : null;
  const custom = draft.compare.kind === "custom" ? draft.compare : null;
  const hint = range && cmp ? `Compared with ${describeComparison(range, applied, cmp)}.` : undefined;
  // A custom range's problem is shown under its dates, any other under the choice.
  const kindError = custom ? undefined : (error ?? undefined);
  const customError = custom ? (error ?? undefined) : undefined;

  const setKind = (kind: CompareKind) => {
    if (kind !== "custom") return onChange({ compare: { kind } });
    // Start from the previous period, which the user then moves.
    const prev = range ? comparisonRange(range, { kind: "previous" }) : null;
    onChange({ compare: prev ? { kind: "custom", ...prev } : { kind: "custom", start: "", end: "" } });
  };
  const setCustomStart = (start: string) => {
    if (!custom) return;
    const valid = isCalendarDate(custom.start) && isCalendarDate(custom.end) && custom.start <= custom.end;
    const n = valid ? dayCount(custom) : range ? dayCount(range) : 1;
    onChange({ compare: { kind: "custom", start, end: isCalendarDate(start) ? addDays(start, n - 1) : custom.end } });
  };
  const setCustomEnd = (end: string) => {
    if (custom) onChange({ compare: { kind: "custom", start: custom.start, end } });
  };
  const dateInput = (which: "start" | "end", label: string, value: string, set: (v: string) => void) => (
    <Field id={`${id}-cmp-${which}`} label={label}>
      <input
        id={`${id}-cmp-${which}`}
        className={inputClass}
        type="text"
        inputMode="numeric"
        placeholder="YYYY-MM-DD"
        maxLength={10}
        autoComplete="off"
        spellCheck={false}
        value={value}
        aria-invalid={customError !== undefined}
        aria-describedby={customError ? `${id}-cmp-custom-error` : undefined}
        onChange={(e) => set(e.target.value.trim())}
      />
    </Field>
  );

  return (
    <div className="flex flex-col gap-3">
      <Field
        id={`${id}-grain`}
        label="Date rows by"
        hint={byDate ? "Weeks are ISO weeks (Monday first). Periods the range cuts are marked partial." : "Group by Date to choose weeks, months, quarters or years."}
      >
        <Select
          id={`${id}-grain`}
          aria-describedby={`${id}-grain-hint`}
          value={byDate ? draft.grain : "day"}
          disabled={!byDate}
          onChange={(e) => onChange({ grain: e.target.value as TimeGrain })}
          options={TIME_GRAINS.map((g) => ({ value: g, label: GRAIN_LABELS[g] }))}
        />
      </Field>
      <Field id={`${id}-cmp`} label="Compare to" hint={hint} error={kindError}>
        <Select
          id={`${id}-cmp`}
          aria-describedby={describedBy(`${id}-cmp`, hint, kindError)}
          aria-invalid={kindError !== undefined}
          value={draft.compare.kind}
          onChange={(e) => setKind(e.target.value as CompareKind)}
          options={COMPARE_KINDS.map((k) => ({ value: k, label: COMPARE_LABELS[k] }))}
        />
      </Field>
      {custom ? (
        <fieldset className="flex flex-col gap-2">
          <legend className="sr-only">Comparison range</legend>
          <div className="grid grid-cols-2 gap-2">
            {dateInput("start", "Comparison starts on", custom.start, setCustomStart)}
            {dateInput("end", "Comparison ends on", custom.end, setCustomEnd)}
          </div>
          {customError ? (
            <p id={`${id}-cmp-custom-error`} className="text-xs font-medium text-red-700">
              {customError}
            </p>
          ) : null}
        </fieldset>
      ) : null}
    </div>
  );
}
