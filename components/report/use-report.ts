"use client";
import { hashKey, useQuery } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import { getQueryClient } from "@/lib/core/api-client/query-client";
import { cancelReport, reportProgressQuery, reportQuery, type ReportData } from "@/lib/report/client/queries";
import type { ReportPhase } from "@/lib/report/client/status";
import type { ReportRequestSpec } from "@/lib/report/state/request";

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
  // The browser's one client, named here so a report page needs no provider around it.
  const client = getQueryClient();
  const options = reportQuery(spec);
  const query = useQuery(options, client);
  const progress = useQuery(reportProgressQuery(spec), client).data ?? null;
  // The report cancelled on this screen, by its entry's key (the same for the same request).
  const key = spec === null ? null : hashKey(options.queryKey);
  const [cancelledKey, setCancelledKey] = useState<string | null>(null);

  const running = spec !== null && query.isFetching;
  let phase: ReportPhase;
  if (spec === null) phase = { kind: "idle" };
  else if (running) phase = { kind: "running", progress };
  else if (query.error) phase = { kind: "failed", error: query.error };
  else if (query.data && !query.isPlaceholderData) phase = { kind: "done", result: query.data.result };
  else if (cancelledKey === key || progress?.status.state === "cancelled") phase = { kind: "cancelled" };
  else phase = { kind: "idle" };

  const { refetch } = query;
  const cancel = useCallback(() => {
    if (spec === null) return;
    setCancelledKey(key);
    void cancelReport(client, spec);
  }, [client, spec, key]);
  const rerun = useCallback(() => {
    setCancelledKey(null);
    void refetch();
  }, [refetch]);

  return {
    phase,
    data: spec === null ? null : (query.data ?? null),
    stale: query.isPlaceholderData,
    running,
    cancel,
    rerun,
  };
}
