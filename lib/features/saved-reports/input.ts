/**
 * What the dashboard's API accepts for a saved report, and the canonical form its params are kept in.
 * Params the report page could not apply exactly are refused, each problem named, rather than saved as
 * a different report.
 */
import { z } from "zod";
import { todayIn } from "@/lib/contract/dates";
import { ApiError } from "@/lib/contract/errors";
import { parseCohort, serializeCohort } from "@/lib/report/state/cohort";
import { type UrlProblem } from "@/lib/report/state/encoding";
import { parseExplore, serializeExplore } from "@/lib/report/state/explore";
import { SAVED_PAGES, type SavedPage } from "@/lib/features/saved-reports/model";
import { MAX_TILES, parseDashboard, serializeDashboard } from "@/lib/report/state/dashboard";

export const SavedReportInput = z.strictObject({
  name: z.string().trim().min(1, { error: "name is required" }).max(200),
  page: z.enum(SAVED_PAGES),
  params: z.string().max(32_000),
  shared_with_team: z.boolean().optional(),
});
export type SavedReportInput = z.output<typeof SavedReportInput>;

export const SavedReportPatch = SavedReportInput.partial().omit({ page: true });
export type SavedReportPatch = z.output<typeof SavedReportPatch>;

/** The report state in its canonical URL form, as of `today` in the reporting time zone. */
export function canonicalParams(page: SavedPage, params: string, timeZone: string): string {
  // The Monitor has no settings of its own: it always shows this month and the two before.
  if (page === "monitor") {
    if (params.replace(/^\?/, "") !== "") throw ApiError.badRequest("A monitor view has no settings; params must be empty", [{ path: "params", message: "must be empty" }]);
    return "";
  }
  const today = todayIn(timeZone);
  if (page === "dashboard") {
    const parsed = parseDashboard(params, today);
    refuseProblems(parsed);
    if (parsed.state.tiles.length === 0) throw ApiError.badRequest(`A dashboard needs at least one tile (and at most ${MAX_TILES})`, [{ path: "params.t", message: "no tiles" }]);
    return serializeDashboard(parsed.state);
  }
  if (page === "cohorts") {
    const parsed = parseCohort(params, today);
    refuseProblems(parsed);
    return serializeCohort(parsed.state);
  }
  const parsed = parseExplore(params, today);
  refuseProblems(parsed);
  return serializeExplore(parsed.state);
}

function refuseProblems(parsed: { hasReport: boolean; problems: readonly UrlProblem[] }): void {
  if (!parsed.hasReport) throw ApiError.badRequest("params must describe a report (it has no range)", [{ path: "params", message: "no range" }]);
  if (parsed.problems.length === 0) return;
  throw ApiError.badRequest(
    `params ask for what the report cannot apply: ${parsed.problems.map((x) => x.message).join(" ")}`,
    parsed.problems.map((x) => ({ path: `params.${x.param}`, message: x.message })),
  );
}
