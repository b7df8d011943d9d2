"use client";
import { useEffect, useRef } from "react";
import { UPSTREAM_STATUS_KEY, upstreamStatusDelay, upstreamStatusFetcher } from "@/lib/report-client/queries";
import { useAnswer } from "@/lib/report-client/use-answer";
import { describeStatus, type ReportPhase } from "@/lib/report-client/status";
import { Button } from "@/components/ui/button";
import { StatusBanner } from "@/components/ui/status-banner";

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
      {subject ? null : <QuotaLine moment={phaseMoment(phase)} />}
    </div>
  );
}

const QUOTA_DELAY = upstreamStatusDelay(10_000);

/** A key that changes whenever the report moves on (a call is spent, a page arrives, it ends). */
function phaseMoment(phase: ReportPhase): string {
  if (phase.kind !== "running") return phase.kind;
  const s = phase.progress?.status;
  if (!s) return "running";
  return s.state === "fetching" ? `fetching-${s.call}` : s.state === "queued" ? `queued-${s.call}` : s.state;
}

/**
 * The reporting quota every user of the dashboard shares (SPEC.md §1.4, §6), as the server counts
 * it: read again when this report spends a call and when the window frees one; quiet when unavailable.
 */
function QuotaLine({ moment }: { moment: string }) {
  const { data, refetch } = useAnswer({ key: UPSTREAM_STATUS_KEY, fetcher: upstreamStatusFetcher, staleMs: 0, refetchMs: QUOTA_DELAY });
  // Read on mount (above), then again at each move of the report.
  const seen = useRef(moment);
  useEffect(() => {
    if (seen.current === moment) return;
    seen.current = moment;
    refetch();
  }, [moment, refetch]);
  return (
    <p className="min-h-5 text-xs text-slate-600" data-testid="quota-line">
      {data
        ? `Reporting quota (shared by all users): ${data.calls_in_window} of ${data.limit_per_window} calls used in the last ${describeWindow(data.window_seconds)}` +
          (data.queue_length > 0 ? `; ${data.queue_length} waiting in the queue.` : ".")
        : " "}
    </p>
  );
}

/** "60 s" reads as a minute: say it the way the configuration means it. */
function describeWindow(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? "hour" : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? "minute" : `${seconds / 60} minutes`;
  return `${seconds} s`;
}
