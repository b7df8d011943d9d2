"use client";
import { useId } from "react";
import { addDays, isCalendarDate } from "@/lib/contract/dates";
import { COMPARE_KINDS, COMPARE_LABELS, comparisonRange, customComparisonProblem, holdsLeapDay, type CompareKind, type CompareSelection } from "@/lib/periods/compare";
import { dayCount, GRAIN_LABELS, TIME_GRAINS, type TimeGrain } from "@/lib/periods/grain";
import type { ExploreState } from "@/lib/report-state/explore";
import { resolveRange } from "@/lib/report-state/range";
import { quote } from "@/lib/report-state/words";
import { Field, inputClass } from "@/components/ui/field";
import { Select } from "@/components/ui/select";

/** Why the draft's comparison cannot be run, or null. */
export function compareError(draft: Pick<ExploreState, "range" | "compare">, today: string, rangeOk: boolean): string | null {
  const c = draft.compare;
  if (c.kind !== "custom" || !rangeOk) return null;
  if (!isCalendarDate(c.start)) return `${quote(c.start, 20)} is not a date; type the comparison's first day as YYYY-MM-DD.`;
  const problem = customComparisonProblem(resolveRange(draft.range, today), c);
  if (problem) return problem;
  if (c.end > today) return `The comparison ends after today (${today}).`;
  return null;
}

/**
 * The grain of the date rows and what the report is compared with. A custom comparison is given by its
 * first day: its length is the report's, so the two always line up day for day.
 */
export function PeriodControls({
  draft,
  today,
  rangeOk,
  onChange,
}: {
  draft: Pick<ExploreState, "range" | "groupBy" | "grain" | "compare">;
  today: string;
  /** The report's own range is valid (otherwise there is nothing to compare yet). */
  rangeOk: boolean;
  onChange: (p: { grain?: TimeGrain; compare?: CompareSelection }) => void;
}) {
  const id = useId();
  const byDate = draft.groupBy.includes("date");
  const range = rangeOk ? resolveRange(draft.range, today) : null;
  const cmp = range ? comparisonRange(range, draft.compare) : null;
  const error = compareError(draft, today, rangeOk);

  const setKind = (kind: CompareKind) => {
    if (kind !== "custom") return onChange({ compare: { kind } });
    // Start from the previous period, which the user then moves.
    const prev = range ? comparisonRange(range, { kind: "previous" }) : null;
    onChange({ compare: prev ? { kind: "custom", ...prev } : { kind: "custom", start: "", end: "" } });
  };
  const setCustomStart = (start: string) => {
    const n = range ? dayCount(range) : 1;
    onChange({ compare: { kind: "custom", start, end: isCalendarDate(start) ? addDays(start, n - 1) : "" } });
  };

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
      <Field
        id={`${id}-cmp`}
        label="Compare to"
        hint={
          cmp && !error
            ? `Compared with ${cmp.start} to ${cmp.end}${draft.compare.kind === "year" && range && (holdsLeapDay(range) || holdsLeapDay(cmp)) ? " (29 February has no twin in a common year)" : ""}.`
            : undefined
        }
      >
        <Select
          id={`${id}-cmp`}
          aria-describedby={cmp && !error ? `${id}-cmp-hint` : undefined}
          value={draft.compare.kind}
          onChange={(e) => setKind(e.target.value as CompareKind)}
          options={COMPARE_KINDS.map((k) => ({ value: k, label: COMPARE_LABELS[k] }))}
        />
      </Field>
      {draft.compare.kind === "custom" ? (
        <Field id={`${id}-cmp-start`} label="Comparison starts on" error={error ?? undefined}>
          <input
            id={`${id}-cmp-start`}
            className={inputClass}
            type="text"
            inputMode="numeric"
            placeholder="YYYY-MM-DD"
            maxLength={10}
            autoComplete="off"
            spellCheck={false}
            value={draft.compare.start}
            aria-invalid={error !== null}
            aria-describedby={error ? `${id}-cmp-start-error` : undefined}
            onChange={(e) => setCustomStart(e.target.value.trim())}
          />
        </Field>
      ) : null}
    </div>
  );
}
