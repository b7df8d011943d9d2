import "server-only";
/**
 * What the background warmer keeps fresh, as each is shown today, most wanted first:
 * - every live share link viewed in the last days (and the dashboards behind them), as the link
 *   shows it by default: links not revoked, not expired, live (snapshots never fetch); their default
 *   range only (a visitor's other preset is fetched when asked, then kept like any answer);
 * - the dashboards, saved reports and the Monitor signed-in people opened in those days (./looks.ts),
 *   with their relative dates moved to today, so a breakdown kept whole (the top BINs, the Monitor's
 *   MIDs) is fetched for the new day before anyone asks.
 * Policy and its window (SHARE_WARM_DAYS): docs/dashboards.md.
 */
import type { Operation } from "@/lib/contract";
import type { ReportQuery } from "@/lib/contract/schemas";
import { todayIn } from "@/lib/contract/dates";
import { dashboardQueries } from "@/lib/features/dashboards/run";
import { monitorMonths, monitorQuery } from "@/lib/features/monitor/months";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import { sharedDashboardState } from "@/lib/features/sharing/dashboard";
import { shareLinksRepo } from "@/lib/features/sharing/links-store";
import { reportQuery } from "@/lib/features/sharing/service";
import type { Store } from "@/lib/core/store/sql";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { queryKey } from "@/lib/core/upstream/records";
import { coverageRequest } from "@/lib/report/periods/coverage";
import { parseDashboard } from "@/lib/report/state/dashboard";
import { recentLooksRepo, type Look } from "./looks";

type WarmQuery = { op: Operation; query: ReportQuery };

export async function warmQueries(db: Store, gateway: ReportGateway, timeZone: string, days: number, now = new Date()): Promise<WarmQuery[]> {
  const since = new Date(now.getTime() - days * 86_400_000);
  const reportIds = await shareLinksRepo(db).reportsViewedSince(since, now);
  const today = todayIn(timeZone, now);
  const out: WarmQuery[] = [];
  for (const id of reportIds) {
    const report = await savedReportsRepo(db).get(id);
    if (!report) continue;
    if (report.page === "dashboard") out.push(...dashboardQueries(gateway, sharedDashboardState(report, null), today));
    else if (report.page === "monitor") out.push(...monitorQueries(today));
    else out.push(...savedReportQueries({ page: report.page, params: report.params }, timeZone));
  }
  for (const look of await recentLooksRepo(db).usedSince(since)) out.push(...lookQueries(gateway, look, today, timeZone));
  const seen = new Set<string>();
  return out.filter((q) => {
    const key = queryKey(q.op, q.query);
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

const monitorQueries = (today: string): WarmQuery[] => monitorMonths(today).map((m) => ({ op: "orders", query: monitorQuery(m) }));

/** A saved Explore or Cohorts report's questions today: its own, its comparison's and the comparison's coverage. */
function savedReportQueries(report: { page: "explore" | "cohorts"; params: string }, timeZone: string): WarmQuery[] {
  const { op, query, comparison } = reportQuery(report, timeZone);
  const coverage = comparison ? coverageRequest(op, comparison) : null;
  return [{ op, query }, ...(comparison ? [{ op, query: comparison }] : []), ...(coverage ? [{ op, query: coverage }] : [])];
}

/** A look's questions today: none for settings this code can no longer apply exactly. */
function lookQueries(gateway: ReportGateway, look: Look, today: string, timeZone: string): WarmQuery[] {
  if (look.kind === "monitor") return monitorQueries(today);
  if (look.kind !== "dashboard") return savedReportQueries({ page: look.kind, params: look.params }, timeZone);
  const parsed = parseDashboard(look.params, today);
  if (!parsed.hasReport || parsed.problems.length > 0) return [];
  return dashboardQueries(gateway, parsed.state, today);
}
