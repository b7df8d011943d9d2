"use client";
/**
 * The Monitor's answer, asked for again at once while its months are still being fetched (each
 * request waits up to WAIT_MS on the server). A small hook rather than react-query, which would add
 * ≈ 11 KB gzipped to the page's first load for one request: it keeps what the page relied on —
 * no polling while the tab is hidden, the request cancelled when the page goes, and a finished
 * answer reused for a minute (the app's staleTime) when the page is opened again in this tab.
 */
import { useEffect, useState } from "react";
import type { MonitorAnswer } from "@/lib/features/monitor/load";
import { apiFetch } from "@/lib/core/api-client/fetch";

/** How long one request waits on the server for the months still being fetched. */
export const WAIT_MS = 8_000;
const FRESH_MS = 60_000;

/** The last finished answer in this tab, with when it came. */
let last: { answer: MonitorAnswer; at: number } | null = null;

function whenVisible(signal: AbortSignal): Promise<void> {
  if (typeof document === "undefined" || !document.hidden) return Promise.resolve();
  return new Promise((resolve) => {
    const go = () => {
      if (document.hidden && !signal.aborted) return;
      document.removeEventListener("visibilitychange", go);
      resolve();
    };
    document.addEventListener("visibilitychange", go);
    signal.addEventListener("abort", go, { once: true });
  });
}

export function useMonitorAnswer(): { data: MonitorAnswer | undefined; error: Error | null } {
  const [state, setState] = useState<{ data: MonitorAnswer | undefined; error: Error | null }>(() => ({
    data: last && Date.now() - last.at < FRESH_MS ? last.answer : undefined,
    error: null,
  }));
  useEffect(() => {
    if (last && Date.now() - last.at < FRESH_MS) return;
    const controller = new AbortController();
    const { signal } = controller;
    void (async () => {
      try {
        for (;;) {
          const answer = await apiFetch<MonitorAnswer>(`/api/monitor?wait=${WAIT_MS}`, { signal });
          if (signal.aborted) return;
          setState({ data: answer, error: null });
          if (answer.kind !== "pending") {
            last = { answer, at: Date.now() };
            return;
          }
          await whenVisible(signal);
          if (signal.aborted) return;
        }
      } catch (e) {
        if (!signal.aborted) setState((s) => ({ data: s.data, error: e instanceof Error ? e : new Error(String(e)) }));
      }
    })();
    return () => controller.abort();
  }, []);
  return state;
}
