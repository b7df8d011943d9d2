import "server-only";
/**
 * What the background warmer keeps fresh, as each is shown today, most wanted first:
 * - every live share link viewed in the last days (and the dashboards behind them), as the link
 *   shows it by default: links not revoked, not expired, live (snapshots never fetch); their default
 *   range only (a visitor's other preset is fetched when asked, then kept like any answer);
 * - the dashboards, saved reports and the Monitor signed-in people opened in those days (./looks.ts),
 *   with their relative dates moved to today, so a breakdown kept whole (the top BINs, the Monitor's
 *   MIDs) is fetched for the new day before anyone asks;
 * - the reports of every scheduled report and alert rule not paused, as their next slot reads them
 *   (a rule per MID is such a breakdown too), so the morning's mail and alerts are answered locally.
 * Policy and its window (SHARE_WARM_DAYS): docs/dashboards.md.
 */
import { todayIn } from "@/lib/contract/dates";
import { dashboardQueries } from "@/lib/features/dashboards/run";
import { monitorMonths, monitorQuery } from "@/lib/features/monitor/months";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import { sharedDashboardState } from "@/lib/features/sharing/dashboard";
import { shareLinksRepo } from "@/lib/features/sharing/links-store";
import { reportQuery } from "@/lib/features/sharing/service";
import type { Store } from "@/lib/core/store/sql";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import type { WarmQuery } from "@/lib/core/upstream/warmer";
import { queryKey } from "@/lib/core/upstream/records";
import { coverageRequest } from "@/lib/report/periods/coverage";
import { parseCohort } from "@/lib/report/state/cohort";
import { parseDashboard } from "@/lib/report/state/dashboard";
import { parseExplore } from "@/lib/report/state/explore";
import { alertsRepo } from "@/lib/features/notifications/alerts-store";
import { AlertDefinition } from "@/lib/features/notifications/definition";
import { alertRequests } from "@/lib/features/notifications/evaluate";
import { subscriptionsRepo } from "@/lib/features/notifications/subscriptions-store";
import type { SavedReport } from "@/lib/features/saved-reports/model";
import { recentLooksRepo, type Look } from "./looks";

/**
 * The questions to warm, shared links' first (kept fresh: a visitor may come at any time), then
 * signed-in looks', then scheduled reports' and alert rules' (each of these fetched `once` for the
 * new day). A link, look or rule this code cannot plan (a setting an older version saved, say) is
 * left out with a line in the log; the others are warmed.
 */
export async function warmQueries(
  db: Store,
  gateway: ReportGateway,
  timeZone: string,
  days: number,
  now = new Date(),
  log: (line: string) => void = (line) => console.error(line),
): Promise<WarmQuery[]> {
  const since = new Date(now.getTime() - days * 86_400_000);
  const today = todayIn(timeZone, now);
  const out: WarmQuery[] = [];
  const leftOut = (what: string, e: unknown) =>
    log(JSON.stringify({ level: "warn", msg: `warmer left out a ${what}`, error: e instanceof Error ? e.message : String(e) }));
  for (const id of await shareLinksRepo(db).reportsViewedSince(since, now)) {
    try {
      const report = await savedReportsRepo(db).get(id);
      if (report) out.push(...sharedReportQueries(gateway, report, today, timeZone));
    } catch (e) {
      leftOut("shared report", e);
    }
  }
  for (const look of await recentLooksRepo(db).usedSince(since)) {
    try {
      out.push(...lookQueries(gateway, look, today, timeZone).map((q) => ({ ...q, once: true })));
    } catch (e) {
      leftOut(`${look.kind} look`, e);
    }
  }
  for (const s of await subscriptionsRepo(db).list(null)) {
    if (s.paused) continue;
    try {
      const report = await savedReportsRepo(db).get(s.reportId);
      if (report) out.push(...sharedReportQueries(gateway, report, today, timeZone).map((q) => ({ ...q, once: true })));
    } catch (e) {
      leftOut("scheduled report", e);
    }
  }
  for (const rule of await alertsRepo(db).list(null)) {
    if (rule.paused) continue;
    try {
      out.push(...alertQueries(AlertDefinition.parse(rule.definition), today).map((q) => ({ ...q, once: true })));
    } catch (e) {
      leftOut("alert rule", e);
    }
  }
  const seen = new Set<string>();
  return out.filter((q) => {
    const key = queryKey(q.op, q.query);
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

const monitorQueries = (today: string): WarmQuery[] => monitorMonths(today).map((m) => ({ op: "orders", query: monitorQuery(m) }));

/** A saved report's questions today as its share link and its scheduled mail show it (its own range). */
function sharedReportQueries(gateway: ReportGateway, report: SavedReport, today: string, timeZone: string): WarmQuery[] {
  if (report.page === "dashboard") return dashboardQueries(gateway, sharedDashboardState(report, null), today);
  if (report.page === "monitor") return monitorQueries(today);
  return savedReportQueries({ page: report.page, params: report.params }, timeZone);
}

/** An alert rule's reports for a slot today: a measure's windows, or the Monitor's months. */
function alertQueries(def: AlertDefinition, today: string): WarmQuery[] {
  if (def.target.kind !== "measure") return monitorQueries(today);
  const { main, previous, coverage } = alertRequests(def, today);
  return [main, previous, coverage].flatMap((query) => (query ? [{ op: "orders" as const, query }] : []));
}

/** A saved Explore or Cohorts report's questions today: its own, its comparison's and the comparison's coverage. */
function savedReportQueries(report: { page: "explore" | "cohorts"; params: string }, timeZone: string): WarmQuery[] {
  const { op, query, comparison } = reportQuery(report, timeZone);
  const coverage = comparison ? coverageRequest(op, comparison) : null;
  return [{ op, query }, ...(comparison ? [{ op, query: comparison }] : []), ...(coverage ? [{ op, query: coverage }] : [])];
}

/** A look's questions today: none for settings this code can no longer apply exactly. */
function lookQueries(gateway: ReportGateway, look: Look, today: string, timeZone: string): WarmQuery[] {
  if (look.kind === "monitor") return monitorQueries(today);
  if (look.kind === "dashboard") {
    const parsed = parseDashboard(look.params, today);
    return parsed.hasReport && parsed.problems.length === 0 ? dashboardQueries(gateway, parsed.state, today) : [];
  }
  const parsed = look.kind === "explore" ? parseExplore(look.params, today) : parseCohort(look.params, today);
  return parsed.problems.length === 0 ? savedReportQueries({ page: look.kind, params: look.params }, timeZone) : [];
}
