import "server-only";
/**
 * Everything the share page shows, computed on the server from the link alone: the visitor's request
 * can choose only among the presets the analyst allowed, so nothing on the page can run another query.
 */
import { fitGrain } from "@/lib/report/state/grain-fit";
import { getDimension } from "@/lib/contract/dimensions";
import type { Operation, ReportRecord } from "@/lib/contract";
import { serverEnv } from "@/lib/core/env/env";
import { chooseChart, buildChartData, type ChartData } from "@/lib/report/charts/shape";
import { measureFor } from "@/lib/report/metrics/kpis";
import { buildTable, buildViewTable, type TableModel } from "@/lib/report/table/table";
import { buildReportView as buildPeriodView, describePeriods } from "@/lib/report/periods/view";
import { formatDimensionValue } from "@/lib/report/metrics/format";
import { coverageDays, coverageRequest } from "@/lib/report/periods/coverage";
import { parseCohort } from "@/lib/report/state/cohort";
import { parseExplore, chartMeasureId, visibleMeasures } from "@/lib/report/state/explore";
import { COHORT_PRESETS, EXPLORE_PRESETS, isRangePreset, presetLabel, type RangePreset } from "@/lib/report/state/range";
import { getStore } from "@/lib/core/store";
import type { SavedReport } from "@/lib/features/saved-reports/model";
import type { Snapshot } from "@/lib/features/sharing/links-store";
import { usersRepo } from "@/lib/core/auth/users";
import { CELL_DEFINITIONS, buildCohortGrid, cohortCaption, type CohortGrid } from "@/lib/features/cohorts/grid";
import { todayIn } from "@/lib/contract/dates";
import { getGateway } from "@/lib/core/upstream";
import { SHARE_OWNER, type ReportGateway } from "@/lib/core/upstream/gateway";
import type { Sql } from "@/lib/core/store/sql";
import { loadMonitor, type MonitorAnswer } from "@/lib/features/monitor/load";
import { monitorConfig } from "@/lib/features/monitor/config";
import { recordShareView, reportQuery, resolveShare, runThroughGateway, type GatewayRun } from "./service";
import { sharedDashboardView, type SharedDashboard } from "./dashboard";
import { unlockCookieName } from "./tokens";
import type { QueuePlace } from "@/lib/report/client/queue-words";

/** The retention grid of a shared cohort report, drawn as the Cohorts page draws it. */
/**
 * Who shared a page, as its anonymous visitors read it: the sharer's organisation, never their
 * address (a link is forwarded further than its first reader, and an address is personal data).
 */
export function sharerWords(email: string | null | undefined): string {
  if (!email) return "a former user";
  const domain = email.slice(email.lastIndexOf("@") + 1);
  return domain ? `a colleague at ${domain}` : "a colleague";
}

export interface SharedCohort {
  grid: CohortGrid;
  caption: string;
  settings: string;
}

export type SharedView =
  | {
      kind: "ok";
      title: string;
      sharedBy: string;
      mode: "live" | "snapshot";
      op: Operation;
      range: { start: string; end: string };
      /** The range in words: the preset the visitor picked, or what the report was saved with. */
      rangeLabel: string;
      preset: RangePreset | null;
      allowedPresets: { id: RangePreset; label: string }[];
      timeZone: string;
      filters: string[];
      /** The grain of the date rows and the comparison, in words, when either is set. */
      periods: string | null;
      asOf: string;
      table: TableModel;
      chart: ChartData | null;
      /** Set for cohort reports: the grid replaces the records table. */
      cohort: SharedCohort | null;
      records: number;
      /** File name stem of the CSV download. */
      fileName: string;
    }
  | { kind: "monitor"; title: string; sharedBy: string; timeZone: string; answer: Extract<MonitorAnswer, { kind: "ok" }> }
  | SharedDashboard
  // `queue`: where the report waits for the shared quota, when it waits in the queue.
  | { kind: "pending"; title: string; retryAfterSeconds: number; rangeLabel: string; checkedAt: string; queue: QueuePlace | null }
  | { kind: "locked" }
  | { kind: "expired" | "revoked" | "paused" | "unknown" | "throttled" };

export async function loadSharedView(
  token: string,
  opts: {
    preset?: string | null;
    address: string | null;
    cookie: (name: string) => string | undefined;
    /** How the page waits for its data: a visitor's few seconds unless given (a PDF waits longer, and only for fresh answers). */
    wait?: { ms: number; acceptStale: boolean };
  },
): Promise<SharedView> {
  const env = serverEnv();
  const db = await getStore();
  const r = await resolveShare(db, token, opts.address, env.NEXTAUTH_SECRET, (hash) => opts.cookie(unlockCookieName(hash)));
  if (r.kind === "locked") return { kind: "locked" };
  if (r.kind !== "ok") return { kind: r.kind };
  const deps = opts.wait ? { ...shareDeps(db), waitMs: opts.wait.ms, acceptStale: opts.wait.acceptStale } : shareDeps(db);
  const view = await renderSavedReport(deps, r.report, {
    allowedPresets: r.link.allowedPresets,
    preset: opts.preset ?? null,
    snapshot: r.link.mode === "snapshot" ? r.link.snapshot : null,
  });
  if (view.kind === "ok" || view.kind === "monitor" || view.kind === "dashboard") await recordShareView(db, r.link.id, opts.address, env.NEXTAUTH_SECRET);
  return view;
}

/** A saved report rendered read-only for a signed-in user who may see it (viewers included). */
/** How a share is drawn: the process's gateway, share visitors' turn in the queue, a few seconds' wait. */
function shareDeps(db: Sql): RenderDeps {
  return { db, gateway: getGateway(), owner: SHARE_OWNER, waitMs: 3_000, timeZone: serverEnv().REPORT_TIMEZONE };
}

export async function loadSavedView(report: SavedReport, preset: string | null): Promise<SharedView> {
  const allowed = report.page === "cohorts" || report.page === "dashboard" ? COHORT_PRESETS : EXPLORE_PRESETS;
  return renderSavedReport(shareDeps(await getStore()), report, { allowedPresets: [...allowed], preset, snapshot: null });
}

/** What drawing a saved report reads from: the store, a gateway, whose turn it queues in, how long it waits. */
export interface RenderDeps {
  db: Sql;
  gateway: ReportGateway;
  owner: string;
  waitMs: number;
  timeZone: string;
  /** Draw a dashboard tile from its last answer, however old, while a newer one is fetched (visitors: yes; e-mail: no). */
  acceptStale?: boolean;
}

/**
 * A saved report (or dashboard, or the Monitor) drawn read-only: for share visitors and viewers, and
 * for the e-mail of a subscription (which queues at the lowest priority and may wait longer).
 */
export async function renderSavedReport(
  deps: RenderDeps,
  report: SavedReport,
  opts: { allowedPresets: readonly string[]; preset: string | null; snapshot: Snapshot | null },
): Promise<SharedView> {
  const { db, gateway, owner: queueOwner, waitMs, timeZone } = deps;
  if (report.page === "monitor") return monitorView(deps, report);
  const allowed = opts.allowedPresets.filter(isRangePreset);
  const preset = opts.preset && isRangePreset(opts.preset) && allowed.includes(opts.preset) ? opts.preset : null;
  if (report.page === "dashboard") {
    const owner = await usersRepo(db).findById(report.ownerId);
    return sharedDashboardView(gateway, report, {
      owner: queueOwner,
      sharedBy: sharerWords(owner?.email),
      timeZone: timeZone,
      preset,
      allowed,
      snapshot: opts.snapshot,
      waitMs,
      ...(deps.acceptStale === undefined ? {} : { acceptStale: deps.acceptStale }),
    });
  }
  const { op, query, comparison } = reportQuery(report, timeZone, preset ?? undefined);

  const savedRange = report.page === "cohorts" ? parseCohort(report.params).state.range : parseExplore(report.params).state.range;
  const rangeLabel = preset
    ? presetLabel(preset)
    : opts.snapshot
      ? "Snapshot, as shared"
      : "preset" in savedRange
        ? `${presetLabel(savedRange.preset)}, as shared`
        : "Custom range, as shared";

  let records: ReportRecord[];
  let asOf: string;
  let range = { start: query.start_date, end: query.end_date };
  // The compared days' records, when the report compares.
  let compared: { range: { start: string; end: string }; records: ReportRecord[]; dataDays?: string[] } | null = null;
  if (opts.snapshot) {
    records = opts.snapshot.data;
    asOf = opts.snapshot.fetched_at;
    range = { start: opts.snapshot.start_date, end: opts.snapshot.end_date };
    const c = opts.snapshot.comparison;
    if (c) compared = { range: { start: c.start_date, end: c.end_date }, records: c.data, ...(c.data_days ? { dataDays: c.data_days } : {}) };
  } else {
    // A page waits a few seconds at most; past that it says how long (until every answer it waits
    // for should be in: the report's, the comparison's and the coverage's) and refreshes itself.
    const pending = (runs: (GatewayRun | null)[]): SharedView => {
      const now = Date.now();
      const statuses = runs.flatMap((r) => (r && "waiting" in r ? [r.waiting?.status] : []));
      const queued = statuses.flatMap((s) => (s?.state === "queued" ? [s] : [])).sort((a, b) => a.position - b.position)[0];
      const queue = queued ? { position: queued.position, estimated_start: queued.estimated_start } : null;
      return { kind: "pending", title: report.name, retryAfterSeconds: secondsUntilDone(statuses, gateway.queue.callMs, now), rangeLabel, checkedAt: new Date(now).toISOString(), queue };
    };
    // Which compared days hold data, when the comparison's own answer cannot say (lib/report/periods/coverage.ts).
    const coverage = comparison ? coverageRequest(op, comparison) : null;
    const [run, cmpRun, covRun] = await Promise.all([
      runThroughGateway(gateway, op, query, waitMs, queueOwner),
      comparison ? runThroughGateway(gateway, op, comparison, waitMs, queueOwner) : null,
      coverage ? runThroughGateway(gateway, op, coverage, waitMs, queueOwner) : null,
    ]);
    if (!("done" in run) || (cmpRun && !("done" in cmpRun)) || (covRun && !("done" in covRun))) return pending([run, cmpRun, covRun]);
    records = run.done.data;
    asOf = run.done.fetched_at;
    if (comparison && cmpRun) {
      const cmpRange = { start: comparison.start_date, end: comparison.end_date };
      compared = { range: cmpRange, records: cmpRun.done.data, ...(covRun ? { dataDays: coverageDays(covRun.done.data, cmpRange) } : {}) };
    }
  }

  const owner = await usersRepo(db).findById(report.ownerId);
  const filters = Object.entries(query.filters ?? {}).map(([d, v]) => {
    const values = (Array.isArray(v) ? v : [v]).map((x) => formatDimensionValue(d, x));
    return `${getDimension(d)?.label ?? d} is ${values.length === 1 ? values[0] : `any of ${values.join(", ")}`}`;
  });

  let table: TableModel;
  let periods: string | null = null;
  let chart: ChartData | null = null;
  let cohort: SharedCohort | null = null;
  // A snapshot is masked (cohorts) and its rates' maturity judged as of the day it was taken; a live report as of today.
  const today = opts.snapshot ? todayIn(timeZone, new Date(opts.snapshot.fetched_at)) : todayIn(timeZone);
  if (report.page === "cohorts") {
    const c = parseCohort(report.params).state;
    const grid = buildCohortGrid({ records, range, today, rows: c.rows, cell: c.cell, cycles: c.cycles, trialDays: c.trialDays, periodDays: c.periodDays });
    cohort = {
      grid,
      caption: cohortCaption(c.cell, c.rows),
      settings: `Cells: ${CELL_DEFINITIONS[c.cell].label}; cycles 0 to ${c.cycles}; cycle 1 due ${c.trialDays} days after the initial date, then every ${c.periodDays} days.`,
    };
    table = buildTable({ op, groupBy: ["date", "billing_cycle"], measures: [...(query.metrics ?? [])] }, records);
  } else {
    const state = parseExplore(report.params).state;
    const measures = visibleMeasures(state);
    // A visitor's shorter preset is read at a grain it holds whole periods of, and the page says so.
    const fit = state.groupBy.includes("date") ? fitGrain(range, state.grain) : { grain: state.grain, note: null };
    const view = buildPeriodView({
      op,
      groupBy: state.groupBy,
      metrics: query.metrics ?? [],
      grain: fit.grain,
      range,
      records,
      comparison: compared && state.compare.kind !== "none" ? { compare: state.compare, range: compared.range, records: compared.records, dataDays: compared.dataDays ?? null } : null,
    });
    table = buildViewTable({ op, groupBy: state.groupBy, measures }, view, { today });
    periods = [fit.note, describePeriods(view, state.compare)].filter((x): x is string => !!x).join(" ") || null;
    const plan = chooseChart(state.groupBy, state.chart);
    // The chart the analyst saved: its measure (and second measure), over the same view as the table.
    const measure = measureFor(chartMeasureId(state) ?? "", op);
    const measure2 = state.chartMeasure2 ? measureFor(state.chartMeasure2, op) : undefined;
    if (plan.type !== "none" && measure) chart = buildChartData(view, plan, measure, { measure2: measure2 ?? null, today });
  }

  return {
    kind: "ok",
    title: report.name,
    sharedBy: sharerWords(owner?.email),
    mode: opts.snapshot ? "snapshot" : "live",
    op,
    range,
    rangeLabel,
    preset,
    allowedPresets: allowed.map((id) => ({ id, label: presetLabel(id) })),
    timeZone: timeZone,
    filters,
    periods,
    asOf,
    table,
    chart,
    cohort,
    records: records.length,
    fileName: `${report.name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "report"}_${range.start}_${range.end}`,
  };
}

/**
 * Seconds until every answer a page waits for should be in, as the page says it: the latest of their
 * jobs' own estimates (when their last call should have answered), and at least one call's time
 * for one whose last call is under way or that says nothing; never under 2 s.
 */
export function secondsUntilDone(statuses: readonly ({ state: string; estimated_done?: string } | undefined)[], callMs: number, now: number): number {
  let until = now + callMs;
  for (const s of statuses) {
    const done = s && (s.state === "queued" || s.state === "fetching") ? s.estimated_done : undefined;
    if (done) until = Math.max(until, Date.parse(done));
  }
  return Math.max(2, Math.ceil((until - now) / 1000) + 1);
}

/** A shared Monitor: always live, this month and the two before, evaluated as the Monitor page does. */
async function monitorView(deps: RenderDeps, report: SavedReport): Promise<SharedView> {
  const timeZone = deps.timeZone;
  const answer = await loadMonitor(deps.gateway, monitorConfig(), todayIn(timeZone), deps.owner, deps.waitMs);
  if (answer.kind !== "ok") {
    const queued = answer.months.flatMap((m) => (m.status.state === "queued" ? [m.status] : [])).sort((a, b) => a.position - b.position)[0];
    const queue = queued ? { position: queued.position, estimated_start: queued.estimated_start } : null;
    const now = Date.now();
    const retryAfterSeconds = secondsUntilDone(answer.months.map((m) => m.status), deps.gateway.queue.callMs, now);
    return { kind: "pending", title: report.name, retryAfterSeconds, rangeLabel: "This month and the two before", checkedAt: new Date(now).toISOString(), queue };
  }
  const owner = await usersRepo(deps.db).findById(report.ownerId);
  return { kind: "monitor", title: report.name, sharedBy: sharerWords(owner?.email), timeZone, answer };
}
