"use client";
import { useState } from "react";
import type { MonitorRow, MonthStatus } from "@/lib/features/monitor/load";
import { describeStatus, type ReportPhase } from "@/lib/report/client/status";
import { SaveReportButton } from "@/components/saved-reports/save-report-button";
import { EmptyState } from "@/components/ui/empty-state";
import { lazyPart } from "@/components/ui/lazy-part";
import { StatusBanner } from "@/components/ui/status-banner";
import { MonitorBody, monthLabel } from "./monitor-body";
import { useMonitorAnswer } from "./use-monitor";

// The drill-down's code (and its chart's, and react-query's) is loaded when a MID is first opened;
// until then its box.
const DrillDown = lazyPart(
  () => import("./drill-down").then((m) => m.default),
  <section className="min-h-32 rounded-lg border border-slate-300 bg-white p-4 text-sm text-slate-700">Loading…</section>,
);

function phaseOf(s: MonthStatus["status"]): ReportPhase {
  if (s.state === "done") return { kind: "done", result: { ...s.result, data: [] } };
  if (s.state === "failed") return { kind: "failed", error: new Error(`${s.error.message} ${s.error.action}`) };
  if (s.state === "cancelled") return { kind: "cancelled" };
  return { kind: "running", progress: { jobId: null, status: s, at: Date.now() } };
}

/** The Monitor: fetches the four monthly reports through the dashboard (long-polling while they run). */
export function MonitorReport({ timeZone, canExplore }: { timeZone: string; canExplore: boolean }) {
  const query = useMonitorAnswer();
  const [open, setOpen] = useState<MonitorRow | null>(null);
  const answer = query.data;

  if (query.error) {
    return (
      <EmptyState tone="error" title="The Monitor could not be loaded">
        {query.error.message || "Try again in a minute."}
      </EmptyState>
    );
  }
  const statuses = answer?.months ?? [];
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-2" aria-label="Monthly reports">
        {statuses.length === 0 ? <StatusBanner tone="progress" title="Starting" detail="Asking for the monthly reports…" busy /> : null}
        {statuses.map((m) => {
          const v = describeStatus(phaseOf(m.status), timeZone);
          return <StatusBanner key={m.month} tone={v.tone} title={`${monthLabel(m.month)}: ${v.title}`} detail={v.detail} busy={v.busy} label={`${monthLabel(m.month)} status`} />;
        })}
        {answer?.kind === "pending" && answer.plannedCalls > 0 ? (
          <p className="text-sm text-slate-700">
            {answer.plannedCalls.toLocaleString("en-US")} upstream {answer.plannedCalls === 1 ? "call" : "calls"} planned for the months not kept.
          </p>
        ) : null}
      </div>
      {answer?.kind === "ok" ? (
        <>
          <div className="flex flex-wrap justify-end gap-2">
            <SaveReportButton page="monitor" />
          </div>
          <MonitorBody
            answer={answer}
            onOpen={setOpen}
            drill={open ? <DrillDown answer={answer} row={open} onClose={() => setOpen(null)} canExplore={canExplore} timeZone={timeZone} /> : null}
          />
        </>
      ) : null}
    </div>
  );
}

