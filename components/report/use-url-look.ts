"use client";
import { usePathname, useSearchParams } from "next/navigation";
import { startTransition, use, useCallback, useEffect, useMemo, useState } from "react";

/** Looks at URLs by the query string as `URLSearchParams` writes it, which is how a page reads its URL. */
export type UrlLooks<L> = readonly (readonly [string, L])[];

/** No look from the server (after midnight the server's looks are a day old): one array, so the page's effects see no change. */
export const NO_LOOKS: UrlLooks<never> = [];

/** The query string as `URLSearchParams` writes it, which is how the server's looks are keyed. */
const locationSearch = () => new URLSearchParams(window.location.search).toString();

/**
 * The page's query string, followed from the browser's location, and `write`, which takes the query
 * string to show: "push" makes a new history entry, "replace" amends the current one, through the
 * History API, which Next's router follows without a server round trip.
 *
 * The page follows the browser's location itself rather than the router's `useSearchParams`: Next
 * 16.4's router can lose its update for a pushState while another router action is under way (seen
 * in CI and reproduced in about one run in eight of e2e/url-history.spec.ts: the URL moved on, the
 * router's state did not, the page kept showing the report before, and Back to that report then
 * changed nothing on screen). So a write sets the page's URL state directly, back and forward are
 * read from popstate, and a navigation of the router's own to this page with another query (a link)
 * is read from the location once the router has committed it. Each is a transition, as the router's
 * updates were: while a lazy parser's code loads, the page keeps showing what it showed.
 */
function useUrlSearch(looks: UrlLooks<unknown>) {
  // Never null in the App Router, the project's only router; "" writes "?…", this path.
  const routerSearch = useSearchParams()?.toString() ?? "";
  const pathname = usePathname() ?? "";
  const [search, setSearch] = useState(routerSearch);
  const followLocation = useCallback(() => {
    const now = locationSearch();
    startTransition(() => setSearch(now));
  }, []);
  useEffect(() => {
    window.addEventListener("popstate", followLocation);
    return () => window.removeEventListener("popstate", followLocation);
  }, [followLocation]);
  // After the router's commits (its history write runs in them), the location is current: a link to
  // this page with another query, or a refresh (new looks from the server), which writes the URL the
  // router holds; should that be an older one (a lost update, above), the page follows it back, so
  // what it shows is what the URL says.
  useEffect(followLocation, [followLocation, routerSearch, looks]);
  const write = useCallback(
    (qs: string, mode: "push" | "replace"): boolean => {
      if (`?${qs}` === window.location.search) return false;
      const url = `${pathname}?${qs}`;
      if (mode === "push") window.history.pushState(null, "", url);
      else window.history.replaceState(null, "", url);
      followLocation();
      return true;
    },
    [pathname, followLocation],
  );
  return { search, write };
}

/**
 * The look at the page's URL (what it shows and runs), for a page whose URL parser is in its first
 * load (Explore, Cohorts): the server's look while the URL is one the server looked at, else the
 * parser's. Back and forward simply look again. `write` is useUrlSearch's.
 */
export function useUrlLook<L>(looks: UrlLooks<L>, lookAt: (search: string) => L) {
  const { search, write } = useUrlSearch(looks);
  const known = looks.find(([key]) => key === search)?.[1];
  const computed = useMemo(() => (known === undefined ? lookAt(search) : undefined), [known, lookAt, search]);
  // One of the two is there: the server's look, or the parser's.
  const look = known ?? computed!;
  return { look, write };
}

/**
 * useUrlLook for a page whose URL parser is not in its first load (a dashboard): the page waits for
 * the parser's code, as for a lazy part, when the URL is not one the server looked at; `load` must
 * return the same promise each time.
 *
 * `code` is the page's state code once an action has loaded it (null before); `withCode(f)` runs `f`
 * with it, loading it first if it has not come yet.
 */
export function useLazyUrlLook<L, C>(looks: UrlLooks<L>, load: () => Promise<C>, lookAt: (code: C, search: string) => L) {
  const [code, setCode] = useState<C | null>(null);
  const withCode = (f: (code: C) => void) =>
    void load().then((c) => {
      setCode(c);
      f(c);
    });
  const { search, write } = useUrlSearch(looks);
  const known = looks.find(([key]) => key === search)?.[1];
  const parser = known === undefined ? (code ?? use(load())) : null;
  const computed = useMemo(() => (parser === null ? undefined : lookAt(parser, search)), [parser, lookAt, search]);
  // One of the two is there: the server's look, or the parser's.
  const look = known ?? computed!;
  return { look, write, code, withCode };
}

/**
 * A report form's draft: what the URL applied, edited until it is run. When the URL moves (a run,
 * back or forward) the draft starts again from what it says; `appliedKey` is the applied state's
 * query string, which is how the form tells that the URL moved.
 */
export function useUrlDraft<S>(applied: S, appliedKey: string) {
  const [draft, setDraft] = useState(applied);
  const [seenKey, setSeenKey] = useState(appliedKey);
  if (seenKey !== appliedKey) {
    setSeenKey(appliedKey);
    setDraft(applied);
  }
  return [draft, setDraft] as const;
}
