"use client";
import { useQuery } from "@tanstack/react-query";
import { upstreamStatusOptions } from "@/lib/report-client/queries";
import { describeStatus, type ReportPhase } from "@/lib/report-client/status";
import { Button } from "@/components/ui/button";
import { StatusBanner } from "@/components/ui/status-banner";

/** The report's status line, with Cancel while it runs and the shared quota underneath. */
export function ReportStatus({
  phase,
  timeZone,
  onCancel,
  stale,
}: {
  phase: ReportPhase;
  timeZone: string;
  onCancel: () => void;
  /** Older results are on screen while this runs. */
  stale: boolean;
}) {
  const view = describeStatus(phase, timeZone);
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
      <QuotaLine polling={view.busy} />
    </div>
  );
}

/** The reporting quota every user of the dashboard shares (SPEC.md §1.4, §6); quiet when unavailable. */
function QuotaLine({ polling }: { polling: boolean }) {
  const { data } = useQuery(upstreamStatusOptions(polling ? 5_000 : 30_000));
  return (
    <p className="min-h-5 text-xs text-slate-600">
      {data
        ? `Reporting quota (shared by all users): ${data.calls_in_window} of ${data.limit_per_window} calls used in the last ${data.window_seconds} s` +
          (data.queue_length > 0 ? `; ${data.queue_length} waiting in the queue.` : ".")
        : " "}
    </p>
  );
}
