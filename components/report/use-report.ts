"use client";
import { hashKey, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import { reportProgressOptions, reportQueryOptions, type ReportData } from "@/lib/report-client/queries";
import type { ReportPhase } from "@/lib/report-client/status";
import type { ReportRequestSpec } from "@/lib/report-state/request";

const NONE: ReportRequestSpec = { op: "orders", request: { start_date: "1970-01-01", end_date: "1970-01-01" } };

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
  const client = useQueryClient();
  const { op, request } = spec ?? NONE;
  const options = reportQueryOptions(op, request);
  const query = useQuery({ ...options, enabled: spec !== null });
  const progress = useQuery(reportProgressOptions(op, request));
  const hash = hashKey(options.queryKey);
  const [cancelledHash, setCancelledHash] = useState<string | null>(null);

  const running = spec !== null && query.fetchStatus !== "idle";
  let phase: ReportPhase;
  if (spec === null) phase = { kind: "idle" };
  else if (running) phase = { kind: "running", progress: progress.data ?? null };
  else if (query.isError) phase = { kind: "failed", error: query.error };
  else if (query.data && !query.isPlaceholderData) phase = { kind: "done", result: query.data.result };
  else if (cancelledHash === hash || progress.data?.status.state === "cancelled") phase = { kind: "cancelled" };
  else phase = { kind: "idle" };

  const { refetch } = query;
  const cancel = useCallback(() => {
    setCancelledHash(hash);
    void client.cancelQueries({ queryKey: options.queryKey });
  }, [client, hash, options.queryKey]);
  const rerun = useCallback(() => {
    setCancelledHash(null);
    client.setQueryData(reportProgressOptions(op, request).queryKey, null);
    void refetch();
  }, [client, op, request, refetch]);

  return {
    phase,
    data: spec === null ? null : (query.data ?? null),
    stale: query.isPlaceholderData,
    running,
    cancel,
    rerun,
  };
}
