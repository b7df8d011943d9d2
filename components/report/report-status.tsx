"use client";
import { describeStatus, type ReportPhase } from "@/lib/report/client/status";
import { Button } from "@/components/ui/button";
import { StatusBanner } from "@/components/ui/status-banner";
import { lazyPart } from "@/components/ui/lazy-part";

// The quota line is read from the server after the page has loaded (nothing to draw before), so its
// code comes after the page's; until then, and in the server's HTML, its line is empty, so
// nothing moves when it arrives.
const QuotaLine = lazyPart(() => import("./quota-line").then((m) => m.QuotaLine), " ");

/** The report's status line, with Cancel while it runs and the shared quota underneath. */
export function ReportStatus({
  phase,
  timeZone,
  onCancel,
  stale,
  subject,
}: {
  phase: ReportPhase;
  timeZone: string;
  onCancel: () => void;
  /** Older results are on screen while this runs. */
  stale: boolean;
  /** Names a second report shown beside the first ("Comparison"); it shares the first's quota line. */
  subject?: string;
}) {
  const status = describeStatus(phase, timeZone);
  const view = subject ? { ...status, title: `${subject}: ${status.title}` } : status;
  const detail = stale && view.busy ? `${view.detail} The results below are the previous report's until then.` : view.detail;
  return (
    <div className="flex flex-col gap-1">
      <StatusBanner tone={view.tone} title={view.title} detail={detail} action={view.action} busy={view.busy}>
        {view.busy ? (
          <Button variant="danger" size="sm" onClick={onCancel}>
            Cancel report
          </Button>
        ) : null}
      </StatusBanner>
      {subject ? null : (
        <p className="min-h-5 text-xs text-slate-600" data-testid="quota-line">
          <QuotaLine moment={phaseMoment(phase)} />
        </p>
      )}
    </div>
  );
}

/** A key that changes whenever the report moves on (a call is spent, a page arrives, it ends). */
function phaseMoment(phase: ReportPhase): string {
  if (phase.kind !== "running") return phase.kind;
  const s = phase.progress?.status;
  if (!s) return "running";
  return s.state === "fetching" ? `fetching-${s.call}` : s.state === "queued" ? `queued-${s.call}` : s.state;
}
