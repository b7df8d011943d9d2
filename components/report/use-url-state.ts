"use client";
import { usePathname, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import type { Parsed } from "@/lib/report-state/encoding";
import type { ParamsLike } from "@/lib/report-state/encoding";

const NO_PARAMS = new URLSearchParams();

/**
 * The report state in the URL. Reading parses the current query string (so back and forward simply
 * re-parse); writing uses the History API, which Next's router follows without a server round trip.
 * "push" makes a new history entry (running a report), "replace" amends the current one (sorting,
 * chart and grid view settings).
 */
export function useUrlState<S>(parse: (p: ParamsLike) => Parsed<S>, serialize: (s: S) => string) {
  // Never null in the App Router. The project also has Pages API routes (lib/api/pages-route.ts), so
  // next/navigation is typed for both routers, where these can be null; "" writes "?…", this path.
  const params = useSearchParams() ?? NO_PARAMS;
  const pathname = usePathname() ?? "";
  const parsed = useMemo(() => parse(params), [params, parse]);

  const write = useCallback(
    (state: S, mode: "push" | "replace"): boolean => {
      const qs = serialize(state);
      if (`?${qs}` === window.location.search) return false;
      const url = `${pathname}?${qs}`;
      if (mode === "push") window.history.pushState(null, "", url);
      else window.history.replaceState(null, "", url);
      return true;
    },
    [pathname, serialize],
  );

  return { ...parsed, write };
}
