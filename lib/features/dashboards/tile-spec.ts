/**
 * A dashboard's tiles as reports: each tile's own report with the dashboard's settings applied (what
 * it keeps of its own, what it cannot take, a filter conflict named instead of run), the requests its
 * picture is computed from, and its name in words. The dashboard's state and URL form are
 * lib/report/state/dashboard.ts; what a tile shows from its answers is ./tiles.ts.
 */
import { getDimension } from "@/lib/contract/dimensions";
import { measureFor } from "@/lib/report/metrics/kpis";
import { previousAsCalendar, type CompareSelection } from "@/lib/report/periods/compare";
import { coverageRequest } from "@/lib/report/periods/coverage";
import type { TimeGrain } from "@/lib/report/periods/grain";
import { cohortRequest, parseCohort, type CohortState } from "@/lib/report/state/cohort";
import { tileMeasure, type DashboardState, type Tile, type TileKind } from "@/lib/report/state/dashboard";
import { comparisonRequest, exploreRequest, normalizeExplore, parseExplore, type ExploreState } from "@/lib/report/state/explore";
import { normalizeFilters, type FilterValue, type Filters } from "@/lib/report/state/filters";
import { fitGrain } from "@/lib/report/state/grain-fit";
import { presetLabel, resolveRange, type RangeSelection } from "@/lib/report/state/range";
import type { ReportRequestSpec } from "@/lib/report/state/request";

/**
 * A tile with the dashboard's settings applied: the report it shows, what it did not take (notes),
 * and what it keeps of its own instead of the dashboard's (keeps: one badge each on the tile).
 */
export type TileSpec =
  | { kind: Exclude<TileKind, "cohort">; state: ExploreState; notes: string[]; keeps: string[]; conflict: string | null }
  | { kind: "cohort"; state: CohortState; notes: string[]; keeps: string[]; conflict: string | null };

/** "last 90 days", "2026-01-01 to 2026-03-31". */
export function rangeWords(range: RangeSelection): string {
  if (!("preset" in range)) return range.start === range.end ? range.start : `${range.start} to ${range.end}`;
  const label = presetLabel(range.preset);
  return label.charAt(0).toLowerCase() + label.slice(1);
}

/** "the previous period", "nothing", "2025-01-01 to 2025-01-31". */
export function compareWords(compare: CompareSelection): string {
  switch (compare.kind) {
    case "none":
      return "nothing";
    case "previous":
      return "the previous period";
    case "calendar":
      return "the previous calendar period";
    case "year":
      return "the same period last year";
    case "custom":
      return `${compare.start} to ${compare.end}`;
  }
}

/** "Card brand VISA or MASTERCARD; Country US", "none". */
export function filterWords(filters: Filters): string {
  const parts = Object.entries(filters).map(([d, values]) => `${getDimension(d)?.label ?? d} ${values.map(String).join(" or ")}`);
  return parts.length > 0 ? parts.join("; ") : "none";
}

/**
 * What a tile keeps of its own instead of the dashboard's, one badge each: every pin that changes
 * what the tile shows, and a KPI's comparison when the dashboard compares with nothing (a KPI always
 * compares, so "Apply to every tile" with no comparison leaves it comparing with the previous period).
 */
function keptSettings(
  tile: Tile,
  own: { range: RangeSelection; grain: TimeGrain; compare: CompareSelection; filters: Filters },
  usesGrain: boolean,
  dashboard: DashboardState,
): string[] {
  const keeps: string[] = [];
  if (tile.pins.range) keeps.push(`Keeps its own range: ${rangeWords(own.range)}`);
  if (tile.pins.grain && usesGrain) keeps.push(`Keeps its own grain: by ${own.grain}`);
  if (tile.pins.compare && tile.kind !== "cohort") keeps.push(`Keeps its own comparison: ${compareWords(own.compare)}`);
  if (tile.pins.filters) keeps.push(`Keeps only its own filters: ${filterWords(own.filters)}`);
  if (tile.kind === "kpi" && !tile.pins.compare && dashboard.compare.kind === "none") keeps.push("Compares with the previous period: a KPI always compares");
  return keeps;
}

/**
 * Both sets of filters at once: on a dimension both filter, only values both keep. When they keep
 * none in common the tile would be empty by construction; that is named, not run.
 */
export function intersectFilters(own: Filters, dashboard: Filters): { filters: Filters; conflict: string | null } {
  const out: Filters = { ...own };
  for (const [d, values] of Object.entries(dashboard)) {
    const mine = own[d];
    if (!mine) {
      out[d] = [...values];
      continue;
    }
    const both = mine.filter((v: FilterValue) => values.includes(v));
    if (both.length === 0) {
      return { filters: out, conflict: `The dashboard's ${getDimension(d)?.label ?? d} filter and this tile's keep no value in common, so the tile would be empty.` };
    }
    out[d] = both;
  }
  return { filters: out, conflict: null };
}

/**
 * A tile under the dashboard's settings. With `today`, a range shorter than one period of the grain
 * its date rows would use is read at a finer grain (./grain-fit.ts), and the tile says so.
 */
export function effectiveTile(d: DashboardState, tile: Tile, today?: string): TileSpec {
  const notes: string[] = [];
  if (tile.kind === "cohort") {
    const own = parseCohort(tile.report).state;
    const keeps = keptSettings(tile, { range: own.range, grain: "day", compare: { kind: "none" }, filters: own.filters }, false, d);
    const f = tile.pins.filters ? { filters: own.filters, conflict: null } : intersectFilters(own.filters, d.filters);
    if (d.compare.kind !== "none" && !tile.pins.compare) notes.push("A cohort grid has no comparison.");
    if (d.grain !== "day" && !tile.pins.grain) notes.push(`Cohort rows keep their own grouping (by ${own.rows}).`);
    const state: CohortState = { ...own, range: tile.pins.range ? own.range : d.range, filters: normalizeFilters("cohort", f.filters) };
    return { kind: "cohort", state, notes, keeps, conflict: f.conflict };
  }
  const own = parseExplore(tile.report).state;
  const f = tile.pins.filters ? { filters: own.filters, conflict: null } : intersectFilters(own.filters, d.filters);
  let groupBy = own.groupBy;
  let metrics = own.metrics;
  let kpis = own.kpis;
  let compare = tile.pins.compare ? own.compare : d.compare;
  if (tile.kind === "kpi") {
    // A KPI is one number over the range, its trend and its change: fetched by date, only its measure.
    const m = tileMeasure(own);
    groupBy = ["date"];
    metrics = m && own.metrics.includes(m) ? [m] : [];
    kpis = m && own.kpis.includes(m) ? [m] : [];
    if (compare.kind === "none") compare = { kind: "previous" };
  }
  const byDate = groupBy.includes("date");
  let grain = byDate && !tile.pins.grain ? d.grain : own.grain;
  const range = tile.pins.range ? own.range : d.range;
  // The dashboard's previous period over whole months is the previous calendar months (a tile's own pinned choice is kept as it is).
  if (!tile.pins.compare && today !== undefined) compare = previousAsCalendar(resolveRange(range, today), compare);
  if (byDate && today !== undefined) {
    const fit = fitGrain(resolveRange(range, today), grain);
    grain = fit.grain;
    if (fit.note) notes.push(fit.note);
  }
  const keeps = keptSettings(tile, own, byDate, d);
  const state = normalizeExplore({
    ...own,
    range,
    groupBy,
    grain,
    metrics,
    kpis,
    compare,
    filters: f.filters,
    table: tile.kind === "pivot" ? "pivot" : "rows",
  });
  if (tile.kind === "pivot" && compare.kind !== "none") notes.push("A pivot shows its own period only; a table tile shows the comparison.");
  return { kind: tile.kind, state, notes, keeps, conflict: f.conflict };
}

/** The requests a tile's picture is computed from, as of `today`; null when it cannot run. */
export interface TileRequests {
  main: ReportRequestSpec;
  comparison: ReportRequestSpec | null;
  /** The compared days' attempts by date, when the comparison's answer cannot say which hold data (lib/report/periods/coverage.ts). */
  coverage: ReportRequestSpec | null;
}

export function tileRequests(spec: TileSpec, today: string): TileRequests | null {
  if (spec.conflict) return null;
  if (spec.kind === "cohort") return { main: cohortRequest(spec.state, today), comparison: null, coverage: null };
  // A pivot shows its own period only (the rows layout shows the comparison): its compared days
  // would be fetched for nothing.
  const comparison = spec.kind === "pivot" ? null : comparisonRequest(spec.state, today);
  const coverage = comparison ? coverageRequest(comparison.op, comparison.request) : null;
  return { main: exploreRequest(spec.state, today), comparison, coverage: coverage && comparison ? { op: comparison.op, request: coverage } : null };
}

/** A tile's name when it has none of its own: what it shows, in words. */
export function tileTitle(tile: Tile, spec: TileSpec): string {
  if (tile.title) return tile.title;
  if (spec.kind === "cohort") return `Cohorts by ${spec.state.rows}: ${spec.state.cell}`;
  const s = spec.state;
  const m = measureFor(tileMeasure(s) ?? "", s.op)?.label ?? "Report";
  if (spec.kind === "kpi") return m;
  const dims = s.groupBy.map((g) => (g === "date" ? (s.grain === "day" ? "date" : s.grain) : (getDimension(g)?.label ?? g).toLowerCase()));
  return dims.length > 0 ? `${m} by ${dims.join(" × ")}` : m;
}
