import { Button } from "@/components/ui/button";

/**
 * The foot of a report's form (Explore, Cohorts): Run report, and beside it, announced politely,
 * whether the form holds changes the report on screen was not run with.
 */
export function RunReportBar({ disabled, dirty }: { disabled: boolean; dirty: boolean }) {
  return (
    <div className="flex flex-wrap items-center gap-3">
      <Button type="submit" variant="primary" disabled={disabled}>
        Run report
      </Button>
      <p className="text-xs text-slate-700" aria-live="polite">
        {dirty ? "You have changes that are not run yet." : ""}
      </p>
    </div>
  );
}
