import "server-only";
/**
 * What the background warmer keeps fresh: every live share link viewed in the last days (and the
 * dashboards behind them), as the link shows it by default. Policy (docs/dashboards.md): links not
 * revoked, not expired, live (snapshots never fetch), viewed within SHARE_WARM_DAYS days; their
 * default range only (a visitor's other preset is fetched when asked, then kept like any answer).
 */
import type { Operation } from "@/lib/contract";
import type { ReportQuery } from "@/lib/contract/schemas";
import { todayIn } from "@/lib/contract/dates";
import { dashboardQueries } from "@/lib/features/dashboards/run";
import { monitorMonths, monitorQuery } from "@/lib/features/monitor/months";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import { shareLinksRepo } from "@/lib/features/sharing/links-store";
import type { Sql } from "@/lib/core/store/sql";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { coverageRequest } from "@/lib/report/periods/coverage";
import { sharedDashboardState } from "./dashboard";
import { reportQuery } from "./service";

export async function warmQueries(db: Sql, gateway: ReportGateway, timeZone: string, days: number, now = new Date()): Promise<{ op: Operation; query: ReportQuery }[]> {
  const reportIds = await shareLinksRepo(db).reportsViewedSince(new Date(now.getTime() - days * 86_400_000), now);
  const today = todayIn(timeZone, now);
  const out: { op: Operation; query: ReportQuery }[] = [];
  for (const id of reportIds) {
    const report = await savedReportsRepo(db).get(id);
    if (!report) continue;
    if (report.page === "dashboard") out.push(...dashboardQueries(gateway, sharedDashboardState(report, null), today));
    else if (report.page === "monitor") out.push(...monitorMonths(today).map((m) => ({ op: "orders" as const, query: monitorQuery(m) })));
    else {
      const { op, query, comparison } = reportQuery(report, timeZone);
      out.push({ op, query });
      if (comparison) out.push({ op, query: comparison });
      const coverage = comparison ? coverageRequest(op, comparison) : null;
      if (coverage) out.push({ op, query: coverage });
    }
  }
  return out;
}
