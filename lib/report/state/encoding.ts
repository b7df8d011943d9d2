/**
 * The URL encoding shared by every report page: readable query strings where `,` separates list
 * items and `..` joins a date range. A value that itself holds `,` or `%` has them escaped as `%2C`
 * and `%25` before the query string is built, so any string round-trips.
 */

import type { Filters } from "./filters";
import type { RangeSelection } from "./range";

/** Query parameters `f.<dimension>` hold filters. */
export const FILTER_PREFIX = "f.";

/** Escapes the list separator (and the escape character) inside one list item. */
export function escapeItem(v: string): string {
  return v.replace(/%/g, "%25").replace(/,/g, "%2C");
}

export function unescapeItem(v: string): string {
  return v.replace(/%2C/gi, ",").replace(/%25/g, "%");
}

export function encodeList(items: readonly (string | number)[]): string {
  return items.map((v) => escapeItem(String(v))).join(",");
}

export function decodeList(s: string | null): string[] {
  if (s === null || s === "") return [];
  return s.split(",").map(unescapeItem);
}

/** One query-string component; `,` stays literal (it is our separator), spaces become `+`. */
function component(s: string): string {
  return encodeURIComponent(s).replace(/%2C/g, ",").replace(/%20/g, "+");
}

/** Builds `a=1&b=x,y` from ordered pairs; the order given is the order written (stable URLs). */
export function buildQuery(pairs: readonly (readonly [string, string])[]): string {
  return pairs.map(([k, v]) => `${component(k)}=${component(v)}`).join("&");
}

/** The read side: anything URLSearchParams-like (the browser's, Next's read-only one, a string). */
export interface ParamsLike {
  get(name: string): string | null;
  keys(): Iterable<string>;
}

export function toParams(input: ParamsLike | string): ParamsLike {
  return typeof input === "string" ? new URLSearchParams(input.startsWith("?") ? input.slice(1) : input) : input;
}

/** A page's `searchParams` (Next's record) as the URLSearchParams the client sees. */
export function searchParamsOf(searchParams: Record<string, string | string[] | undefined>): URLSearchParams {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(searchParams)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) p.append(k, one);
  }
  return p;
}

/** A page's path with its query string, for "come back here after signing in". */
export function pathWithQuery(path: string, searchParams: Record<string, string | string[] | undefined>): string {
  const qs = searchParamsOf(searchParams).toString();
  return qs ? `${path}?${qs}` : path;
}

/** A range in a URL: its preset's id, or `start..end`. */
export function encodeRange(r: RangeSelection): string {
  return "preset" in r ? r.preset : `${r.start}..${r.end}`;
}

export function encodeFilters(filters: Filters): [string, string][] {
  return Object.entries(filters).map(([k, v]) => [`${FILTER_PREFIX}${k}`, encodeList(v)]);
}

export function decodeFilters(p: ParamsLike): Record<string, string[]> {
  // Built from entries, so a key such as "__proto__" is a key like any other (and then refused as
  // no dimension) rather than an assignment to the object's prototype that drops it unseen.
  const keys = [...new Set(p.keys())].filter((key) => key.startsWith(FILTER_PREFIX));
  return Object.fromEntries(keys.map((key) => [key.slice(FILTER_PREFIX.length), decodeList(p.get(key))]));
}

/** What a report page makes of its URL (each page's parser: parseExplore, parseCohort, parseDashboard). */
export interface UrlProblem {
  /** The query parameter, as written in the URL (`range`, `m`, `f.card_brand`). */
  param: string;
  message: string;
}

export interface Parsed<S> {
  /** The report the URL asks for or, when it has problems, the nearest valid one. */
  state: S;
  /** False when the URL names no report (first visit): show the form, run nothing. */
  hasReport: boolean;
  /** What the URL asks for that the page cannot apply; when any, the page runs nothing. */
  problems: UrlProblem[];
}
