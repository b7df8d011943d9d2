/**
 * A dashboard tile's table as the CSV a reader downloads, on the dashboard and on its shared page
 * alike: the rows and columns the tile shows, in its order, with its totals, under lines saying what
 * it is (the dashboard, the tile, its days, zone, filters, what it keeps of its own, when its data is
 * as of). Numbers are written as every CSV of the product writes them (lib/report/table/csv.ts, exportValue: no
 * symbols, amounts to the cent, percents in percent units, a decrease with its sign), so a cell reads
 * as the value the tile shows.
 */
import { gridSheet } from "@/lib/features/cohorts/csv";
import { sheetToCsv, tableSheet, type ExportSheet } from "@/lib/report/table/csv";
import { formatInstant } from "@/lib/report/metrics/format";
import { pivotSheet } from "@/lib/report/table/pivot";
import { sheetNames, type WorkbookSpec } from "@/lib/report/table/xlsx";
import { COMPARE_LABELS } from "@/lib/report/periods/compare";
import { GRAIN_LABELS } from "@/lib/report/periods/grain";
import { describeFilters } from "@/lib/report/state/describe-filters";
import { presetLabel, resolveRange } from "@/lib/report/state/range";
import type { TileAnswer } from "./answer";
import type { DashboardState } from "@/lib/report/state/dashboard";
import type { TileBody } from "./tiles";

/** The bodies a CSV can carry: a table, a pivot, a retention grid (a KPI's number or a chart cannot). */
export type TableTileBody = Extract<TileBody, { kind: "table" | "pivot" | "cohort" }>;

/** Where the tile is shown, for the lines above its table. */
export interface TileCsvContext {
  /** The dashboard's name. */
  dashboard: string;
  /** How the dashboard names its range ("Last 30 days, as shared"), when it says; the tile's own days follow. */
  rangeLabel?: string;
  timeZone: string;
  /** The dashboard's filters in words. */
  filters: string;
  /** Answers frozen when a snapshot link was made. */
  snapshot?: boolean;
  /** On a shared page: who shared it. */
  sharedBy?: string;
}

export interface TileCsvSource {
  title: string;
  fileName: string;
  meta: [string, string][];
  body: TableTileBody;
}

/** A name part safe in any file system: letters, digits, dot, dash and underscore. */
const fileSafe = (s: string, fallback: string) =>
  s
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40) || fallback;

/** What a drawn table, pivot or retention tile downloads; null for a tile with no table to download. */
export function tileCsvSource(t: TileAnswer, ctx: TileCsvContext): TileCsvSource | null {
  if (t.outcome.status !== "done") return null;
  const { model, fetched_at } = t.outcome;
  const body = model.body;
  if (body.kind !== "table" && body.kind !== "pivot" && body.kind !== "cohort") return null;
  if (body.kind === "pivot" && "error" in body.pivot) return null;
  const days = `${model.range.start} to ${model.range.end}`;
  const meta: [string, string][] = [
    ["Dashboard", ctx.dashboard],
    ["Tile", t.title],
    ["Range", ctx.rangeLabel ? `${ctx.rangeLabel}: ${days}` : days],
    ["Timezone", ctx.timeZone],
    ["Filters", ctx.filters],
    ...(t.keeps.length > 0 ? [["Keeps", t.keeps.join("; ")] as [string, string]] : []),
    ...(model.periods ? [["Periods", model.periods] as [string, string]] : []),
    ...(body.kind === "table" && body.totalRows > body.shownRows
      ? [["Rows", `top ${body.shownRows} of ${body.totalRows}; the totals row counts them all`] as [string, string]]
      : []),
    ["Data as of", `${formatInstant(fetched_at, ctx.timeZone)}${ctx.snapshot ? " (snapshot)" : ""}`],
    ...(ctx.sharedBy !== undefined ? [["Shared by", ctx.sharedBy] as [string, string]] : []),
  ];
  const fileName = `${fileSafe(ctx.dashboard, "dashboard")}_${fileSafe(t.title, `tile-${t.index}`)}_${model.range.start}_${model.range.end}`;
  return { title: t.title, fileName, meta, body };
}

/** A tile's table as a sheet (./csv.ts ExportSheet): what its CSV and its workbook sheet are written from. */
export function tileSheet(source: TileCsvSource): ExportSheet | null {
  const { body, meta } = source;
  switch (body.kind) {
    case "table":
      return tableSheet(body.table, body.table.rows, { lines: meta });
    case "pivot":
      return "error" in body.pivot ? null : pivotSheet(body.pivot, { lines: meta });
    case "cohort":
      return gridSheet(body.grid, { lines: meta });
  }
}

/** The CSV text of a tile's table, under its lines; a pivot that could not be built has none. */
export function tileCsv(source: TileCsvSource): string {
  const sheet = tileSheet(source);
  return sheet ? sheetToCsv(sheet) : "";
}

/** What the first sheet of a whole dashboard's workbook says besides each tile's own lines. */
export interface DashboardQuestion {
  dashboard: string;
  /** The dashboard's days ("2026-04-01 to 2026-05-31"), with its name when it has one. */
  range: string;
  timeZone: string;
  filters: string;
  /** The dashboard's comparison in words, or "none". */
  comparison: string;
  /** The dashboard's grain in words ("Day", "Month"); a tile may keep its own (its lines say). */
  grain: string;
  /** When the workbook was made, in the timezone ("2026-06-30 10:15:00 Europe/London"). */
  generatedAt: string;
  sharedBy?: string;
}

/** The question of a dashboard's state: its days (and their name), comparison and grain in words. */
export function dashboardQuestion(
  state: Pick<DashboardState, "range" | "compare" | "grain" | "filters">,
  q: { dashboard: string; today: string; timeZone: string; generatedAt: string; sharedBy?: string },
): DashboardQuestion {
  const { start, end } = resolveRange(state.range, q.today);
  const named = "preset" in state.range ? ` (${presetLabel(state.range.preset)})` : "";
  const c = state.compare;
  const comparison = c.kind === "none" ? "none" : c.kind === "custom" ? `${COMPARE_LABELS.custom}: ${c.start} to ${c.end}` : COMPARE_LABELS[c.kind];
  return {
    dashboard: q.dashboard,
    range: `${start} to ${end}${named}`,
    timeZone: q.timeZone,
    filters: describeFilters(state.filters),
    comparison,
    grain: GRAIN_LABELS[state.grain],
    generatedAt: q.generatedAt,
    ...(q.sharedBy !== undefined ? { sharedBy: q.sharedBy } : {}),
  };
}

/**
 * A whole dashboard as one workbook: the question first, then one sheet per table, pivot or
 * retention tile, in the dashboard's order, named by the tile (made valid and unique for Excel);
 * a tile with nothing to download (a chart, a KPI, a failed tile) has no sheet.
 */
export function dashboardWorkbook(sources: readonly TileCsvSource[], q: DashboardQuestion): WorkbookSpec {
  const sheets = sources.flatMap((s) => {
    const sheet = tileSheet(s);
    return sheet ? [{ title: s.title, sheet }] : [];
  });
  const names = sheetNames(sheets.map((s) => s.title));
  return { question: dashboardQuestionLines(q), sheets: sheets.map((s, i) => ({ name: names[i]!, sheet: s.sheet })) };
}

/** A dashboard's question as the lines of its workbook's first sheet. */
export function dashboardQuestionLines(q: DashboardQuestion): [string, string][] {
  return [
    ["Dashboard", q.dashboard],
    ["Range", q.range],
    ["Timezone", q.timeZone],
    ["Filters", q.filters],
    ["Comparison", q.comparison],
    ["Grain", q.grain],
    ...(q.sharedBy !== undefined ? [["Shared by", q.sharedBy] as [string, string]] : []),
    ["Generated at", q.generatedAt],
  ];
}
