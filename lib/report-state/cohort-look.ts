/**
 * What Cohorts shows and runs for one URL, computed by the page's server render for the URL it opens
 * with and by the browser after, as Explore's (./explore-look.ts): the page's first paint
 * then needs neither the URL's parser nor its checks. The browser loads this module (and the writer
 * it re-exports) when it first needs them: to run a report, to change the grid's settings, or for a
 * URL the server did not look at.
 */
import type { UrlProblem } from "./url-check";
import type { ParamsLike } from "./encoding";
import { cohortQueryString, parseCohort, type CohortState } from "./cohort";
import { cohortRequest } from "./cohort-request";
import type { ReportRequestSpec } from "./request-base";

export { cohortQueryString, serializeCohort } from "./cohort";

export interface CohortLook {
  state: CohortState;
  hasReport: boolean;
  problems: UrlProblem[];
  /** The report to run; null while the URL names none, or asks for what the page cannot apply. */
  spec: ReportRequestSpec | null;
  /** The form's parameters of `state` (cohortQueryString): the form's draft follows them. */
  key: string;
}

export function cohortLook(search: ParamsLike | string, today: string): CohortLook {
  const { state, hasReport, problems } = parseCohort(search, today);
  // A link with anything the page cannot apply runs nothing (the problems are shown instead).
  return { state, hasReport, problems, spec: hasReport && problems.length === 0 ? cohortRequest(state, today) : null, key: cohortQueryString(state) };
}
