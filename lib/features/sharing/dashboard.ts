import "server-only";
/**
 * Shared dashboards: every tile from the link alone (a visitor can only pick an allowed preset), drawn
 * at once from the last answers the dashboard has (with their age) while newer ones are fetched, or
 * from the answers frozen in a snapshot.
 */
import { todayIn } from "@/lib/contract/dates";
import { ApiError } from "@/lib/contract/errors";
import { runDashboard } from "@/lib/features/dashboards/run";
import type { DashboardAnswer, PlanStep } from "@/lib/features/dashboards/answer";
import { parseDashboard, type DashboardState, type TileWidth } from "@/lib/report/state/dashboard";
import { describeFilters } from "@/lib/report/state/describe-filters";
import { presetLabel, resolveRange, type RangePreset } from "@/lib/report/state/range";
import { dashboardQuestion, type DashboardQuestion } from "@/lib/features/dashboards/tile-csv";
import type { SavedReport } from "@/lib/features/saved-reports/model";
import type { Snapshot } from "@/lib/features/sharing/links-store";
import type { ReportGateway } from "@/lib/core/upstream/gateway";

export interface SharedDashboard {
  kind: "dashboard";
  title: string;
  sharedBy: string;
  mode: "live" | "snapshot";
  timeZone: string;
  rangeLabel: string;
  preset: RangePreset | null;
  allowedPresets: { id: RangePreset; label: string }[];
  filters: string;
  widths: TileWidth[];
  answer: DashboardAnswer;
  /** What the whole dashboard's workbook states first (its time of making is added when it is made). */
  question: Omit<DashboardQuestion, "generatedAt">;
}

/** The saved dashboard as of `today`, with the visitor's preset (already checked) in place of its range. */
export function sharedDashboardState(report: Pick<SavedReport, "params">, preset: RangePreset | null): DashboardState {
  const saved = parseDashboard(report.params).state;
  return preset ? { ...saved, range: { preset } } : saved;
}

/** The shared dashboard's question: its days as the link names them, and whose link it is. */
function sharedQuestion(state: DashboardState, q: { dashboard: string; today: string; timeZone: string; sharedBy: string; rangeLabel: string }): Omit<DashboardQuestion, "generatedAt"> {
  const { start, end } = resolveRange(state.range, q.today);
  const { generatedAt: _, ...question } = dashboardQuestion(state, { ...q, generatedAt: "" });
  return { ...question, range: `${q.rangeLabel}: ${start} to ${end}` };
}

export async function sharedDashboardView(
  gateway: ReportGateway,
  report: SavedReport,
  opts: { owner: string; sharedBy: string; timeZone: string; preset: RangePreset | null; allowed: RangePreset[]; snapshot: Snapshot | null; waitMs?: number; acceptStale?: boolean },
): Promise<SharedDashboard> {
  const state = sharedDashboardState(report, opts.preset);
  const frozen = opts.snapshot?.dashboard;
  const today = frozen ? frozen.today : todayIn(opts.timeZone);
  // Looks again while a tile has nothing to show, up to the wait: a visitor's few seconds, or the
  // minutes a scheduled e-mail may wait behind people's reports.
  const deadline = Date.now() + (frozen ? 0 : (opts.waitMs ?? 3_000));
  const look = () =>
    runDashboard(gateway, state, today, {
      owner: opts.owner,
      waitMs: Math.max(0, Math.min(5_000, deadline - Date.now())),
      acceptStale: opts.acceptStale ?? true,
      ...(frozen ? { frozen: frozen.answers } : {}),
    });
  let answer = await look();
  while (!frozen && answer.tiles.some((t) => t.outcome.status === "pending") && Date.now() < deadline) answer = await look();
  const range = state.range;
  const rangeLabel = opts.preset
    ? presetLabel(opts.preset)
    : frozen
      ? "Snapshot, as shared"
      : "preset" in range
        ? `${presetLabel(range.preset)}, as shared`
        : "Custom range, as shared";
  return {
    kind: "dashboard",
    title: report.name,
    sharedBy: opts.sharedBy,
    mode: frozen ? "snapshot" : "live",
    timeZone: opts.timeZone,
    rangeLabel,
    preset: opts.preset,
    allowedPresets: opts.allowed.map((id) => ({ id, label: presetLabel(id) })),
    filters: describeFilters(state.filters),
    widths: state.tiles.map((t) => t.width),
    answer,
    question: sharedQuestion(state, { dashboard: report.name, today, timeZone: opts.timeZone, sharedBy: opts.sharedBy, rangeLabel }),
  };
}

/**
 * A dashboard frozen for a snapshot link: every answer its tiles derive from, fetched (or found in the
 * cache) now. Waits up to a minute in all; a dashboard still queued after that is refused, not frozen
 * half-drawn.
 */
export async function snapshotDashboard(gateway: ReportGateway, report: SavedReport, owner: string, timeZone: string): Promise<Snapshot> {
  const state = sharedDashboardState(report, null);
  const today = todayIn(timeZone);
  const deadline = Date.now() + 60_000;
  let answer = await runDashboard(gateway, state, today, { owner, waitMs: 5_000 });
  while (answer.tiles.some((t) => t.outcome.status === "pending")) {
    if (Date.now() > deadline) throw new ApiError(503, "The dashboard is still queued upstream; try creating the snapshot again in a minute");
    answer = await runDashboard(gateway, state, today, { owner, waitMs: 5_000 });
  }
  const answers = answer.plan.flatMap((step: PlanStep) => {
    const hit = gateway.lookup(step.op, step.query);
    return hit ? [{ op: step.op, query: step.query, fetched_at: hit.fetched_at, data: hit.data }] : [];
  });
  const fetched = answers.map((a) => a.fetched_at).sort()[0] ?? new Date().toISOString();
  return { fetched_at: fetched, start_date: "", end_date: "", data: [], dashboard: { today, answers } };
}
