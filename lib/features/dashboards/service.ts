import "server-only";
/**
 * Dashboards for the API and the pages: running one for a user (analysts any dashboard they build,
 * viewers only a saved one they may see, with its own tiles), and the saved dashboard's state.
 */
import { z } from "zod";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { todayIn } from "@/lib/contract/dates";
import { ApiError } from "@/lib/contract/errors";
import { getVisibleReport } from "@/lib/features/saved-reports/access";
import type { Sql } from "@/lib/core/store/sql";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { runDashboard } from "./run";
import type { DashboardAnswer } from "./answer";
import type { ParamsLike } from "@/lib/report/state/encoding";
import { encodeTile, parseDashboard, shownDashboard, type DashboardState } from "@/lib/report/state/dashboard";

export const DashboardRunInput = z.strictObject({
  /** The dashboard's URL state (lib/report/state/dashboard.ts). */
  params: z.string().max(32_000),
  /** The saved dashboard it is, when it is one (required for viewers). */
  id: z.string().max(64).optional(),
});
export type DashboardRunInput = z.output<typeof DashboardRunInput>;

/** A dashboard's URL state, refused with each problem named when the page could not apply it exactly. */
export function dashboardState(params: string, today: string): DashboardState {
  const parsed = parseDashboard(params, today);
  if (!parsed.hasReport) throw ApiError.badRequest("params must describe a dashboard (it has no range)", [{ path: "params", message: "no range" }]);
  if (parsed.problems.length > 0) {
    throw ApiError.badRequest(
      `The dashboard asks for what it cannot apply: ${parsed.problems.map((p) => p.message).join(" ")}`,
      parsed.problems.map((p) => ({ path: `params.${p.param}`, message: p.message })),
    );
  }
  return parsed.state;
}

const sameTiles = (a: DashboardState, b: DashboardState) => a.tiles.map(encodeTile).join("\n") === b.tiles.map(encodeTile).join("\n");

export async function runDashboardFor(
  db: Sql,
  gateway: ReportGateway,
  user: SessionUser,
  input: DashboardRunInput,
  opts: { timeZone: string; waitMs: number },
): Promise<DashboardAnswer> {
  const today = todayIn(opts.timeZone);
  const state = dashboardState(input.params, today);
  if (user.role === "viewer") {
    // A viewer reads the dashboards shared with them under other dates and filters, but cannot make
    // the dashboard ask for reports of their own choosing.
    if (!input.id) throw new ApiError(403, "Viewers open saved dashboards; ask an analyst to save this one");
    const saved = await getVisibleReport(db, user, input.id);
    if (saved.page !== "dashboard" || !sameTiles(parseDashboard(saved.params).state, state)) {
      throw new ApiError(403, "Viewers can change a dashboard's dates, grain, comparison and filters, not its tiles");
    }
  }
  return runDashboard(gateway, state, today, { owner: user.id, waitMs: opts.waitMs });
}

/**
 * A saved dashboard's first look, for its page's HTML: the page opens with the settings in `search`
 * (or the saved ones) and draws what the cache holds without a round trip after hydration; the rest
 * is already being fetched when the page asks. Null when the page would refuse its URL or this user
 * may not run it: the page then shows the reason through its own look.
 */
export async function firstLookFor(
  db: Sql,
  gateway: ReportGateway,
  user: SessionUser,
  saved: { id: string; params: string },
  search: ParamsLike,
  opts: { timeZone: string },
): Promise<{ params: string; answer: DashboardAnswer } | null> {
  const today = todayIn(opts.timeZone);
  const { params } = shownDashboard(parseDashboard(search, today), saved.params);
  if (params === null) return null;
  try {
    return { params, answer: await runDashboardFor(db, gateway, user, { params, id: saved.id }, { timeZone: opts.timeZone, waitMs: 0 }) };
  } catch (e) {
    if (e instanceof ApiError) return null;
    throw e;
  }
}
