/**
 * A dashboard tile's table as the CSV a reader downloads, on the dashboard and on its shared page
 * alike: the rows and columns the tile shows, in its order, with its totals, under lines saying what
 * it is (the dashboard, the tile, its days, zone, filters, what it keeps of its own, when its data is
 * as of). Numbers are written as every CSV of the product writes them (lib/report/table/csv.ts, exportValue: no
 * symbols, amounts to the cent, percents in percent units, a decrease with its sign), so a cell reads
 * as the value the tile shows.
 */
import { gridToCsv } from "@/lib/features/cohorts/csv";
import { tableToCsv } from "@/lib/report/table/csv";
import { formatInstant } from "@/lib/report/metrics/format";
import { pivotToCsv } from "@/lib/report/table/pivot";
import type { TileAnswer } from "./run";
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

/** The CSV text of a tile's table, under its lines; a pivot that could not be built has none. */
export function tileCsv(source: TileCsvSource): string {
  const { body, meta } = source;
  switch (body.kind) {
    case "table":
      return tableToCsv(body.table, body.table.rows, { lines: meta });
    case "pivot":
      return "error" in body.pivot ? "" : pivotToCsv(body.pivot, { lines: meta });
    case "cohort":
      return gridToCsv(body.grid, { lines: meta });
  }
}
