"use client";
import { useEffect, useState } from "react";
import { emptyResultWords } from "@/lib/report/state/describe-filters";
import type { KnownValues } from "@/lib/report/state/filter-input";
import { SUGGESTED_DIMENSIONS } from "@/lib/contract/dimensions";
import type { Filters } from "@/lib/report/state/filters";
import { fetchKnownValues } from "./filter-known";

/**
 * What an empty answer says about its filters: which one (or which ones) emptied it, judged from
 * the values the dashboard has already seen, so finding out costs no upstream call.
 */
export function EmptyResultWords({ filters }: { filters: Filters }) {
  const [known, setKnown] = useState<Record<string, KnownValues>>({});
  const dims = Object.keys(filters)
    .filter((n) => SUGGESTED_DIMENSIONS.includes(n))
    .join(",");
  useEffect(() => {
    if (dims === "") return;
    const controller = new AbortController();
    void Promise.all(dims.split(",").map(async (n) => [n, await fetchKnownValues(n, controller.signal)] as const)).then((pairs) => {
      if (!controller.signal.aborted) setKnown(Object.fromEntries(pairs));
    });
    return () => controller.abort();
  }, [dims]);
  return <span data-testid="empty-result-words">{emptyResultWords(filters, known)}</span>;
}
