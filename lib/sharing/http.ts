import "server-only";
/** Request plumbing shared by the saved-report and share routes and the share page. */
import { z } from "zod";
import { ApiError } from "@/lib/contract/errors";
import { clientAddress } from "@/lib/auth/authenticate";
import { serverEnv } from "@/lib/env";
import { todayIn } from "@/lib/contract/dates";
import { parseCohort, parseExplore, serializeCohort, serializeExplore, type UrlProblem } from "@/lib/report-state";
import { SAVED_PAGES, type SavedPage } from "@/lib/store/saved-reports";
import { SHARE_MODES } from "@/lib/store/share-links";

export const SavedReportInput = z.strictObject({
  name: z.string().trim().min(1, { error: "name is required" }).max(200),
  page: z.enum(SAVED_PAGES),
  params: z.string().max(8000),
  shared_with_team: z.boolean().optional(),
});
export const SavedReportPatch = SavedReportInput.partial().omit({ page: true });

export const ShareLinkInput = z.strictObject({
  expires_in_days: z.int().min(1).max(365).optional(),
  password: z.string().min(8, { error: "a link password needs at least 8 characters" }).max(200).optional(),
  mode: z.enum(SHARE_MODES).default("live"),
  allowed_presets: z.array(z.string()).max(20).optional(),
});

/**
 * The report state in its canonical URL form. Params the report page could not apply exactly are
 * refused, each problem named, rather than saved as a different report.
 */
export function canonicalParams(page: SavedPage, params: string): string {
  const today = todayIn(serverEnv().REPORT_TIMEZONE);
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

export function requestAddress(headers: Headers): string {
  return clientAddress(headers, serverEnv().TRUSTED_PROXY_HOPS) ?? "unknown";
}

export function shareSecret(): string {
  return serverEnv().NEXTAUTH_SECRET;
}
