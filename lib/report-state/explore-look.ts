/**
 * What Explore shows and runs for one URL, computed by the page's server render for the URL it opens
 * with and by the browser after: the page's first paint then needs neither the URL's
 * parser nor the request builder, and with them neither the metrics' catalog nor the KPI registry.
 * The browser loads this module (and the writer it re-exports) when it first needs them: to run a
 * report, to change the view, or for a URL the server did not look at.
 */
import type { UrlProblem } from "./url-check";
import type { ParamsLike } from "./encoding";
import { exploreQueryString, parseExplore, type ExploreState } from "./explore";
import { comparisonRequest, exploreRequest, type ReportRequestSpec } from "./request";

export { exploreQueryString, serializeExplore } from "./explore";
export { sortAfterRegroup } from "@/lib/metrics/table";

export interface ExploreLook {
  state: ExploreState;
  hasReport: boolean;
  problems: UrlProblem[];
  /** The report to run and the one it is compared with; null while the URL names none, or asks for what the page cannot apply. */
  spec: ReportRequestSpec | null;
  comparison: ReportRequestSpec | null;
  /** The form's parameters of `state` (exploreQueryString): the form's draft follows them. */
  key: string;
}

export function exploreLook(search: ParamsLike | string, today: string): ExploreLook {
  const { state, hasReport, problems } = parseExplore(search, today);
  // A link with anything the page cannot apply runs nothing (the problems are shown instead).
  const runs = hasReport && problems.length === 0;
  return {
    state,
    hasReport,
    problems,
    spec: runs ? exploreRequest(state, today) : null,
    comparison: runs ? comparisonRequest(state, today) : null,
    key: exploreQueryString(state),
  };
}
