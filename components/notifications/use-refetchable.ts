"use client";
/**
 * A list the server's render handed over, fetched again when asked to (after a change). The /alerts
 * page needs no more than that of react-query, which would add ≈ 11 KB gzipped to its first load:
 * the last answer stays on screen when a refetch fails (with the error beside it), and a newer
 * refetch supersedes an older one still running.
 */
import { useCallback, useEffect, useRef, useState } from "react";

export function useRefetchable<T>(initial: T, fetcher: (signal: AbortSignal) => Promise<T>): { data: T; error: Error | null; refetch: () => void } {
  const [state, setState] = useState<{ data: T; error: Error | null }>({ data: initial, error: null });
  const fetchRef = useRef(fetcher);
  const running = useRef<AbortController | null>(null);
  useEffect(() => {
    fetchRef.current = fetcher;
  });
  useEffect(() => () => running.current?.abort(), []);
  const refetch = useCallback(() => {
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    fetchRef.current(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ data, error: null });
      },
      (e: unknown) => {
        if (!controller.signal.aborted) setState((s) => ({ data: s.data, error: e instanceof Error ? e : new Error(String(e)) }));
      },
    );
  }, []);
  return { ...state, refetch };
}
