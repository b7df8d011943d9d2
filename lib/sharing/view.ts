import "server-only";
/**
 * Everything the share page shows, computed on the server from the link alone: the visitor's request
 * can choose only among the presets the analyst allowed, so nothing on the page can run another query.
 */
import { getDimension } from "@/lib/contract/catalog";
import type { Operation, ReportRecord } from "@/lib/contract";
import { serverEnv } from "@/lib/env";
import { chooseChart, buildChartData, type ChartData } from "@/lib/charts/shape";
import { measureFor } from "@/lib/metrics/kpis";
import { buildTable, type TableModel } from "@/lib/metrics/table";
import { formatDimensionValue } from "@/lib/metrics/format";
import {
  COHORT_PRESETS,
  EXPLORE_PRESETS,
  isRangePreset,
  parseExplore,
  presetLabel,
  visibleMeasures,
  type RangePreset,
} from "@/lib/report-state";
import { getStore } from "@/lib/store";
import type { SavedReport } from "@/lib/store/saved-reports";
import type { Snapshot } from "@/lib/store/share-links";
import { usersRepo } from "@/lib/store/users";
import { getGateway } from "@/lib/upstream";
import { SHARE_OWNER } from "@/lib/upstream/gateway";
import { recordShareView, reportQuery, resolveShare, runThroughGateway } from "./service";
import { unlockCookieName } from "./tokens";

export type SharedView =
  | {
      kind: "ok";
      title: string;
      sharedBy: string;
      mode: "live" | "snapshot";
      op: Operation;
      range: { start: string; end: string };
      preset: RangePreset | null;
      allowedPresets: { id: RangePreset; label: string }[];
      timeZone: string;
      filters: string[];
      asOf: string;
      table: TableModel;
      chart: ChartData | null;
      records: number;
    }
  | { kind: "pending"; title: string; retryAfterSeconds: number }
  | { kind: "locked" }
  | { kind: "expired" | "revoked" | "unknown" | "throttled" };

export async function loadSharedView(
  token: string,
  opts: { preset?: string | null; address: string; cookie: (name: string) => string | undefined },
): Promise<SharedView> {
  const env = serverEnv();
  const db = await getStore();
  const r = await resolveShare(db, token, opts.address, env.NEXTAUTH_SECRET, (hash) => opts.cookie(unlockCookieName(hash)));
  if (r.kind === "locked") return { kind: "locked" };
  if (r.kind !== "ok") return { kind: r.kind };
  const view = await buildReportView(r.report, {
    allowedPresets: r.link.allowedPresets,
    preset: opts.preset ?? null,
    snapshot: r.link.mode === "snapshot" ? r.link.snapshot : null,
  });
  if (view.kind === "ok") await recordShareView(db, r.link.id, opts.address, env.NEXTAUTH_SECRET);
  return view;
}

/** A saved report rendered read-only for a signed-in user who may see it (viewers included). */
export async function loadSavedView(report: SavedReport, preset: string | null): Promise<SharedView> {
  const allowed = report.page === "cohorts" ? COHORT_PRESETS : EXPLORE_PRESETS;
  return buildReportView(report, { allowedPresets: [...allowed], preset, snapshot: null });
}

async function buildReportView(
  report: SavedReport,
  opts: { allowedPresets: readonly string[]; preset: string | null; snapshot: Snapshot | null },
): Promise<SharedView> {
  const env = serverEnv();
  const db = await getStore();
  const allowed = opts.allowedPresets.filter(isRangePreset);
  const preset = opts.preset && isRangePreset(opts.preset) && allowed.includes(opts.preset) ? opts.preset : null;
  const { op, query } = reportQuery(report, env.REPORT_TIMEZONE, preset ?? undefined);

  let records: ReportRecord[];
  let asOf: string;
  let range = { start: query.start_date, end: query.end_date };
  if (opts.snapshot) {
    records = opts.snapshot.data;
    asOf = opts.snapshot.fetched_at;
    range = { start: opts.snapshot.start_date, end: opts.snapshot.end_date };
  } else {
    const result = await runThroughGateway(getGateway(), op, query, 20_000, SHARE_OWNER);
    if (!result) return { kind: "pending", title: report.name, retryAfterSeconds: 15 };
    records = result.data;
    asOf = result.fetched_at;
  }

  const owner = await usersRepo(db).findById(report.ownerId);
  const state = report.page === "cohorts" ? null : parseExplore(report.params).state;
  const groupBy = state ? state.groupBy : ["date", "billing_cycle"];
  const measures = state ? visibleMeasures(state) : [...(query.metrics ?? [])];
  const filters = Object.entries(query.filters ?? {}).map(([d, v]) => {
    const values = (Array.isArray(v) ? v : [v]).map((x) => formatDimensionValue(d, x));
    return `${getDimension(d)?.label ?? d} is ${values.length === 1 ? values[0] : `any of ${values.join(", ")}`}`;
  });
  const table = buildTable({ op, groupBy, measures }, records);
  let chart: ChartData | null = null;
  const plan = chooseChart(groupBy, state?.chart ?? "auto");
  const measure = measureFor(measures[0] ?? "", op);
  if (plan.type !== "none" && measure) chart = buildChartData(records, plan, measure, { dateRange: range });

  return {
    kind: "ok",
    title: report.name,
    sharedBy: owner?.email ?? "a former user",
    mode: opts.snapshot ? "snapshot" : "live",
    op,
    range,
    preset,
    allowedPresets: allowed.map((id) => ({ id, label: presetLabel(id) })),
    timeZone: env.REPORT_TIMEZONE,
    filters,
    asOf,
    table,
    chart,
    records: records.length,
  };
}
