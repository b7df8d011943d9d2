"use client";
import { useCallback, useState } from "react";
import { cacheKey } from "@/lib/report-client/cache";
import { REPORT_STALE_MS, reportFetcher, type ReportData } from "@/lib/report-client/queries";
import type { Progress } from "@/lib/report-client/api";
import type { ReportPhase } from "@/lib/report-client/status";
import { useAnswer } from "@/lib/report-client/use-answer";
import type { ReportRequestSpec } from "@/lib/report-state/request";

/** The fetcher of no report (never called: a null key fetches nothing). */
const nothing = () => Promise.reject(new Error("No report to run."));

export interface UseReport {
  phase: ReportPhase;
  /** The answer on screen: the current one, or the previous one while the current one runs. */
  data: ReportData | null;
  /** True when `data` answers an earlier request than the one running. */
  stale: boolean;
  running: boolean;
  cancel: () => void;
  rerun: () => void;
}

/** A report by its request (null: nothing to run yet), with its phase for the status line. */
export function useReport(spec: ReportRequestSpec | null): UseReport {
  // The key is the canonical request: two screens asking the same thing share one answer and one job.
  const key = spec === null ? null : cacheKey(["report", spec.op, spec.request]);
  const query = useAnswer<ReportData, Progress>({
    key,
    fetcher: spec ? reportFetcher(spec.op, spec.request) : nothing,
    staleMs: REPORT_STALE_MS,
    // The previous answer stays on screen (dimmed) while the next one is fetched: no layout jump.
    keepPrevious: true,
  });
  const [cancelledKey, setCancelledKey] = useState<string | null>(null);

  const running = key !== null && query.fetching;
  let phase: ReportPhase;
  if (key === null) phase = { kind: "idle" };
  else if (running) phase = { kind: "running", progress: query.progress };
  else if (query.error) phase = { kind: "failed", error: query.error };
  else if (query.data && !query.placeholder) phase = { kind: "done", result: query.data.result };
  else if (cancelledKey === key || query.progress?.status.state === "cancelled") phase = { kind: "cancelled" };
  else phase = { kind: "idle" };

  const { cancel: stop, refetch } = query;
  const cancel = useCallback(() => {
    setCancelledKey(key);
    stop();
  }, [key, stop]);
  const rerun = useCallback(() => {
    setCancelledKey(null);
    refetch();
  }, [refetch]);

  return {
    phase,
    data: key === null ? null : (query.data ?? null),
    stale: query.placeholder,
    running,
    cancel,
    rerun,
  };
}
