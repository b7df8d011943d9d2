import type { ReactNode } from "react";
import type { ReportPhase } from "@/lib/report/client/status";
import { EmptyState } from "@/components/ui/empty-state";
import { Spinner } from "@/components/ui/spinner";

/** A report page's two columns: its settings form beside what the report shows (status, results). */
export function ReportColumns({ settingsHeading, settings, children }: { settingsHeading: string; settings: ReactNode; children: ReactNode }) {
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(20rem,24rem)_minmax(0,1fr)]">
      <aside className="rounded-lg border border-slate-200 bg-white p-4 lg:self-start">
        <h2 className="sr-only">{settingsHeading}</h2>
        {settings}
      </aside>
      <div className="flex min-w-0 flex-col gap-6">{children}</div>
    </div>
  );
}

/**
 * What stands where results will be, by the report's phase: a wait (also while the answer is in but
 * the code that draws it is still loading), a failure the status above explains, a cancellation, or
 * what to do before the first run (`empty`).
 */
export function ResultsPlaceholder({ phase, drawing, empty }: { phase: ReportPhase; drawing: boolean; empty: { title: string; hint: string } }) {
  if (phase.kind === "running" || drawing)
    return (
      <div className="flex h-full items-center justify-center gap-2 text-sm text-slate-700">
        <Spinner /> Waiting for the report…
      </div>
    );
  if (phase.kind === "failed")
    return (
      <EmptyState tone="error" title="The report failed">
        See the status above for the reason and what to do.
      </EmptyState>
    );
  if (phase.kind === "cancelled") return <EmptyState title="Cancelled">Press Run report to start it again.</EmptyState>;
  return <EmptyState title={empty.title}>{empty.hint}</EmptyState>;
}
