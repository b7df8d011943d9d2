"use client";
import { useCallback, useEffect, useState } from "react";
import { todayIn } from "@/lib/contract/dates";
import type { ReportRequestSpec } from "@/lib/report/state/request";
import { useReport } from "./use-report";
import { NO_LOOKS, useUrlLook, type UrlLooks } from "./use-url-look";

/**
 * A report page's life, the same for Explore and Cohorts: the look at the URL as of the page's
 * today (the server's look while it is the server's day, the page's own after midnight), the report
 * it asks, the results' code fetched beside the first request, and `apply`, which writes a draft to
 * the URL as a new history entry, or runs the report again when the URL already says it.
 */
export function useReportPage<L extends { spec: ReportRequestSpec | null }, M>({
  timeZone,
  serverToday,
  looks,
  lookOf,
  loadResults,
  preloadResults,
}: {
  timeZone: string;
  /** "Today" as the server page resolved it; the page's own look after midnight. */
  serverToday: string;
  /** The server's look at the page's URL, as of `serverToday`. */
  looks: UrlLooks<L>;
  /** The page's state read from a URL as of a day (a module function: it must not change). */
  lookOf: (search: string, today: string) => L;
  /** The code that turns an answer into what the page draws (a module function). */
  loadResults: () => Promise<M>;
  /** Starts loading the results' components beside the first request. */
  preloadResults?: () => void;
}) {
  const [today, setToday] = useState(serverToday);
  const lookAt = useCallback((search: string) => lookOf(search, today), [lookOf, today]);
  const { look, write } = useUrlLook(today === serverToday ? looks : NO_LOOKS, lookAt);
  const report = useReport(look.spec);
  const [results, setResults] = useState<M | null>(null);
  const requested = look.spec !== null;
  useEffect(() => {
    if (!requested) return;
    preloadResults?.();
    void loadResults().then(setResults);
  }, [requested, loadResults, preloadResults]);

  /** Shows `params` (the page's state serialized), or, when the URL already shows them, calls `rerun`. */
  const apply = (params: string, rerun: () => void) => {
    void loadResults().then(setResults);
    const now = todayIn(timeZone);
    if (now !== today) {
      setToday(now);
      write(params, "push");
    } else if (!write(params, "push")) {
      rerun();
    }
  };
  return { today, look, write, report, results, apply };
}
