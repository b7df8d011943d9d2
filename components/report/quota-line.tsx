"use client";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { getQueryClient } from "@/lib/core/api-client/query-client";
import { upstreamStatusQuery } from "@/lib/report/client/queries";

const QUOTA = upstreamStatusQuery(10_000);

/**
 * The words of the reporting quota every user of the dashboard shares (SPEC.md §1.4, §6), as the
 * server counts it: read again when this report spends a call and when the window frees one; quiet
 * when unavailable. ReportStatus draws the line they go in.
 */
export function QuotaLine({ moment }: { moment: string }) {
  const { data, refetch } = useQuery(QUOTA, getQueryClient());
  // Read on mount (above), then again at each move of the report.
  const seen = useRef(moment);
  useEffect(() => {
    if (seen.current === moment) return;
    seen.current = moment;
    void refetch();
  }, [moment, refetch]);
  return data
    ? `Reporting quota (shared by all users): ${data.calls_in_window} of ${data.limit_per_window} calls used in the last ${describeWindow(data.window_seconds)}` +
        (data.queue_length > 0 ? `; ${data.queue_length} waiting in the queue.` : ".")
    : " ";
}

/** "60 s" reads as a minute: say it the way the configuration means it. */
function describeWindow(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? "hour" : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? "minute" : `${seconds / 60} minutes`;
  return `${seconds} s`;
}
