"use client";
import { usePathname, useSearchParams } from "next/navigation";
import { use, useCallback, useMemo } from "react";

/** Looks at URLs by the query string as `URLSearchParams` writes it, which is how a page reads its URL. */
export type UrlLooks<L> = readonly (readonly [string, L])[];

/**
 * The look at the page's URL (what it shows and runs), for a page whose URL parser is not in its
 * first load (issue 21): the server's look while the URL is one the server looked at, else the
 * parser's, from `code` once loaded (the page waits for it, as for a lazy part, if it has not come
 * yet; `load` must return the same promise each time). Back and forward simply look again.
 *
 * `write` takes the query string to show: "push" makes a new history entry, "replace" amends the
 * current one; the History API's, which Next's router follows without a server round trip (once
 * its effect has hooked the API: a write from a first render's effect must wait for that).
 */
export function useUrlLook<L, C>(looks: UrlLooks<L>, code: C | null, load: () => Promise<C>, lookAt: (code: C, search: string) => L) {
  // Never null in the App Router. The project also has Pages API routes (lib/api/pages-route.ts), so
  // next/navigation is typed for both routers, where these can be null; "" writes "?…", this path.
  const search = useSearchParams()?.toString() ?? "";
  const pathname = usePathname() ?? "";
  const known = looks.find(([key]) => key === search)?.[1];
  const parser = known === undefined ? (code ?? use(load())) : null;
  const computed = useMemo(() => (parser === null ? undefined : lookAt(parser, search)), [parser, lookAt, search]);
  // One of the two is there: the server's look, or the parser's.
  const look = known ?? computed!;
  const write = useCallback(
    (qs: string, mode: "push" | "replace"): boolean => {
      if (`?${qs}` === window.location.search) return false;
      const url = `${pathname}?${qs}`;
      if (mode === "push") window.history.pushState(null, "", url);
      else window.history.replaceState(null, "", url);
      return true;
    },
    [pathname],
  );
  return { look, write };
}
