/**
 * A dashboard's state and its URL form. A dashboard is a date range, a time grain, a comparison and
 * filters that apply to every tile that can take them, and an ordered list of tiles, each defined as
 * an Explore report (KPI, chart, table, pivot) or a Cohorts report (cohort grid):
 *
 *   ?range=last30&grain=week&cmp=prev&f.card_brand=VISA
 *    &t=kpi.1|op=orders&range=last30&by=date&m=revenue|Revenue
 *    &t=chart.4.rf|op=orders&range=last90&by=date&m=revenue|
 *
 * Each `t` is `<kind>.<width>[.<pins>]|<report params>|<title>`, in display order. Pins name what a
 * tile keeps from its own report instead of taking the dashboard's: r (range), g (grain), c
 * (comparison), f (filters). The URL is the source of truth, as on the report pages; nothing the page
 * cannot apply exactly is dropped in silence (each problem is named, and the page runs nothing).
 */
import { dimensionsFor, getDimension } from "@/lib/contract/dimensions";
import { measureFor } from "@/lib/report/metrics/kpis";
import { comparisonProblem, type CompareSelection } from "@/lib/report/periods/compare";
import { isTimeGrain, TIME_GRAINS, type TimeGrain } from "@/lib/report/periods/grain";
import { parseCohort, serializeCohort } from "@/lib/report/state/cohort";
import { buildQuery, decodeFilters, encodeFilters, encodeRange, toParams, type Parsed, type ParamsLike } from "@/lib/report/state/encoding";
import { COMPARE_URL_VALUES, decodeCompare, encodeCompare, parseExplore, serializeExplore, type ExploreState } from "@/lib/report/state/explore";
import type { Filters } from "@/lib/report/state/filters";
import { COHORT_PRESETS, normalizeRange, resolveRange, type RangeSelection } from "@/lib/report/state/range";
import { checkFilters, checkRange, quote, unknownParams, type UrlProblem } from "@/lib/report/state/url-check";

export const TILE_KINDS = ["kpi", "chart", "table", "pivot", "cohort"] as const;
export type TileKind = (typeof TILE_KINDS)[number];

export const TILE_KIND_LABELS: Record<TileKind, string> = {
  kpi: "KPI number",
  chart: "Chart",
  table: "Table",
  pivot: "Pivot",
  cohort: "Cohort grid",
};

/** Columns a tile spans on a wide screen (the grid has 4); on a phone every tile is full width. */
export const TILE_WIDTHS = [1, 2, 3, 4] as const;
export type TileWidth = (typeof TILE_WIDTHS)[number];

/** More tiles than this would not be one page a manager reads, and would not plan into a few calls. */
export const MAX_TILES = 12;
export const MAX_TITLE_LENGTH = 80;
/** Rows a table tile shows (its sort decides which); the rest are one click away in Explore. */
export const TABLE_TILE_ROWS = 10;

export interface TilePins {
  range: boolean;
  grain: boolean;
  compare: boolean;
  filters: boolean;
}

const PIN_LETTERS: [keyof TilePins, string][] = [
  ["range", "r"],
  ["grain", "g"],
  ["compare", "c"],
  ["filters", "f"],
];

export const NO_PINS: TilePins = { range: false, grain: false, compare: false, filters: false };

export interface Tile {
  kind: TileKind;
  width: TileWidth;
  pins: TilePins;
  /** Empty: the tile is named after what it shows. */
  title: string;
  /** The tile's report in canonical URL form: Explore's for every kind but cohort, Cohorts' for cohort. */
  report: string;
}

export interface DashboardState {
  range: RangeSelection;
  grain: TimeGrain;
  compare: CompareSelection;
  /** Filters on dimensions both reports have; every tile takes them unless it pins its own. */
  filters: Filters;
  tiles: Tile[];
}

export function defaultDashboardState(): DashboardState {
  return { range: { preset: "last30" }, grain: "day", compare: { kind: "none" }, filters: {}, tiles: [] };
}

/** Dimensions a dashboard filter may name: those of the order summary that cohort reports have too. */
export const DASHBOARD_FILTER_DIMENSIONS: readonly string[] = dimensionsFor("orders")
  .map((d) => d.name)
  .filter((d) => dimensionsFor("cohort").some((c) => c.name === d) && d !== "date");

// ---------------------------------------------------------------------------------------------
// URL form

function encodePins(p: TilePins): string {
  return PIN_LETTERS.filter(([k]) => p[k])
    .map(([, l]) => l)
    .join("");
}

export function encodeTile(t: Tile): string {
  const pins = encodePins(t.pins);
  return `${t.kind}.${t.width}${pins ? `.${pins}` : ""}|${t.report}|${t.title}`;
}

export function serializeDashboard(s: DashboardState): string {
  const pairs: [string, string][] = [["range", encodeRange(s.range)]];
  if (s.grain !== "day") pairs.push(["grain", s.grain]);
  const cmp = encodeCompare(s.compare);
  if (cmp !== null) pairs.push(["cmp", cmp]);
  pairs.push(...encodeFilters(s.filters));
  for (const t of s.tiles) pairs.push(["t", encodeTile(t)]);
  return buildQuery(pairs);
}

const DASHBOARD_PARAMS = ["range", "grain", "cmp", "t"] as const;

/** A tile's report parsed, its problems named with the tile's place (`t2.m`). */
function parseTileReport(kind: TileKind, report: string, at: string): { report: string; problems: UrlProblem[] } {
  // A tile's own range is checked against no "today": it is used only when pinned, and the
  // dashboard checks the range it resolves to.
  if (kind === "cohort") {
    const parsed = parseCohort(report);
    const problems = parsed.hasReport ? parsed.problems : [{ param: "range", message: "the cohort report has no range" }];
    return { report: serializeCohort(parsed.state), problems: problems.map((p) => ({ param: `${at}.${p.param}`, message: p.message })) };
  }
  const parsed = parseExplore(report);
  const problems = parsed.hasReport ? [...parsed.problems] : [{ param: "range", message: "the report has no range" }];
  const s = parsed.state;
  if (kind === "pivot" && new Set(s.groupBy).size < 2) problems.push({ param: "by", message: "A pivot tile needs two grouped dimensions: the last one becomes the columns." });
  if (kind === "kpi" && !tileMeasure(s)) problems.push({ param: "m", message: "A KPI tile needs a metric or KPI to show." });
  return { report: serializeExplore(s), problems: problems.map((p) => ({ param: `${at}.${p.param}`, message: p.message })) };
}

/** One `t` value, or the problem with it. */
export function parseTile(raw: string, index: number): { tile: Tile | null; problems: UrlProblem[] } {
  const at = `t${index + 1}`;
  const bad = (message: string) => ({ tile: null, problems: [{ param: at, message: `Tile ${index + 1}: ${message}` }] });
  const first = raw.indexOf("|");
  const second = first < 0 ? -1 : raw.indexOf("|", first + 1);
  if (second < 0) return bad(`${quote(raw)} is not a tile (kind.width|report|title).`);
  const [kindRaw = "", widthRaw = "", pinsRaw = "", ...extra] = raw.slice(0, first).split(".");
  if (!(TILE_KINDS as readonly string[]).includes(kindRaw)) return bad(`${quote(kindRaw)} is not a tile kind (${TILE_KINDS.join(", ")}).`);
  const width = Number(widthRaw);
  if (!(TILE_WIDTHS as readonly number[]).includes(width) || !/^\d$/.test(widthRaw)) return bad(`${quote(widthRaw)} is not a tile width (1 to 4 columns).`);
  if (extra.length > 0 || !/^[rgcf]*$/.test(pinsRaw) || new Set(pinsRaw).size !== pinsRaw.length) return bad(`${quote(pinsRaw)} is not a set of pins (r, g, c, f).`);
  const pins: TilePins = { ...NO_PINS };
  for (const [k, l] of PIN_LETTERS) pins[k] = pinsRaw.includes(l);
  const title = raw.slice(second + 1);
  if (title.length > MAX_TITLE_LENGTH) return bad(`its title is longer than ${MAX_TITLE_LENGTH} characters.`);
  const kind = kindRaw as TileKind;
  const parsed = parseTileReport(kind, raw.slice(first + 1, second), at);
  return { tile: { kind, width: width as TileWidth, pins, title, report: parsed.report }, problems: parsed.problems };
}

/**
 * The dashboard a URL describes, checked like a report URL: every problem named (and left out of
 * `state`, which is then the nearest valid dashboard). `hasReport` is false when the URL names no
 * dashboard at all (no range). Never throws.
 */
export function parseDashboard(input: ParamsLike | string, today?: string): Parsed<DashboardState> {
  const p = toParams(input);
  const rawRange = p.get("range");
  const base = defaultDashboardState();
  if (rawRange === null) return { state: base, hasReport: false, problems: [] };
  const problems: UrlProblem[] = unknownParams(p.keys(), DASHBOARD_PARAMS);
  const checked = checkRange(rawRange, "last30", COHORT_PRESETS, today);
  if (checked.problem) problems.push(checked.problem);
  const grain = p.get("grain") ?? "day";
  if (!isTimeGrain(grain)) problems.push({ param: "grain", message: `${quote(grain)} is not a time grain (${TIME_GRAINS.join(", ")}).` });
  const cmpRaw = p.get("cmp");
  let compare: CompareSelection | null = cmpRaw === null ? { kind: "none" } : decodeCompare(cmpRaw);
  if (compare === null) problems.push({ param: "cmp", message: `${quote(cmpRaw ?? "")} is not a comparison: use ${COMPARE_URL_VALUES}.` });
  else if (today !== undefined && checked.problem === null) {
    const problem = comparisonProblem(resolveRange(checked.range, today), compare);
    // The nearest valid report compares with nothing rather than with what was refused.
    if (problem) {
      problems.push({ param: "cmp", message: problem });
      compare = null;
    }
  }
  const rawFilters = decodeFilters(p);
  for (const d of Object.keys(rawFilters)) {
    if (!DASHBOARD_FILTER_DIMENSIONS.includes(d) && getDimension(d)) {
      problems.push({ param: `f.${d}`, message: `${getDimension(d)?.label ?? d} cannot filter a whole dashboard (not every tile's report has it); filter that tile instead.` });
      delete rawFilters[d];
    }
  }
  const filters = checkFilters("orders", rawFilters);
  problems.push(...filters.problems);
  const rawTiles = p instanceof URLSearchParams ? p.getAll("t") : allValues(input, "t");
  if (rawTiles.length > MAX_TILES) problems.push({ param: "t", message: `A dashboard holds at most ${MAX_TILES} tiles; this one has ${rawTiles.length}.` });
  const tiles: Tile[] = [];
  rawTiles.slice(0, MAX_TILES).forEach((raw, i) => {
    const t = parseTile(raw, i);
    problems.push(...t.problems);
    if (t.tile) tiles.push(t.tile);
  });
  const state: DashboardState = {
    range: normalizeRange(checked.range, "last30"),
    grain: isTimeGrain(grain) ? grain : "day",
    compare: compare ?? { kind: "none" },
    filters: filters.filters,
    tiles,
  };
  return { state, hasReport: true, problems };
}

/** Every value of a repeated parameter, from whatever ParamsLike the page was given. */
function allValues(input: ParamsLike | string, name: string): string[] {
  if (typeof input === "string") return new URLSearchParams(input.startsWith("?") ? input.slice(1) : input).getAll(name);
  const withGetAll = input as ParamsLike & { getAll?: (n: string) => string[] };
  if (typeof withGetAll.getAll === "function") return withGetAll.getAll(name);
  const one = input.get(name);
  return one === null ? [] : [one];
}

/** The measure a KPI tile shows: the chart measure, else the first metric or KPI shown. */
export function tileMeasure(s: ExploreState): string | null {
  const id = s.chartMeasure ?? s.metrics[0] ?? s.kpis[0] ?? null;
  return id !== null && measureFor(id, s.op) ? id : null;
}

// ---------------------------------------------------------------------------------------------
// Editing (pure; the editor and its tests call these)

/** The dashboard's settings, as its settings form edits them. */
export type DashboardSettings = Pick<DashboardState, "range" | "grain" | "compare" | "filters">;

/**
 * "Apply to every tile": the settings become the dashboard's, which every tile takes
 * (effectiveTile) except what it pins; the tiles themselves are unchanged, so a pin survives.
 */
export function applyToEveryTile(s: DashboardState, settings: DashboardSettings): DashboardState {
  return { ...s, range: settings.range, grain: settings.grain, compare: settings.compare, filters: settings.filters };
}

export function moveTile(s: DashboardState, from: number, to: number): DashboardState {
  if (from === to || from < 0 || to < 0 || from >= s.tiles.length || to >= s.tiles.length) return s;
  const tiles = [...s.tiles];
  const [t] = tiles.splice(from, 1);
  tiles.splice(to, 0, t!);
  return { ...s, tiles };
}

export function updateTile(s: DashboardState, index: number, patch: Partial<Tile>): DashboardState {
  return { ...s, tiles: s.tiles.map((t, i) => (i === index ? { ...t, ...patch } : t)) };
}

export function removeTile(s: DashboardState, index: number): DashboardState {
  return { ...s, tiles: s.tiles.filter((_, i) => i !== index) };
}

export function addTile(s: DashboardState, tile: Tile): DashboardState {
  return s.tiles.length >= MAX_TILES ? s : { ...s, tiles: [...s.tiles, tile] };
}

/** A new tile of a kind, as a starting point the analyst edits. */
export function newTile(kind: TileKind): Tile {
  const report: Record<TileKind, string> = {
    kpi: "op=orders&range=last30&by=date&m=revenue",
    chart: "op=orders&range=last30&by=date&m=revenue,attempts,approvals&kpi=approval_rate&chart=line",
    table: "op=orders&range=last30&by=gateway_alias&m=revenue,attempts,approvals&kpi=approval_rate&sort=-revenue",
    pivot: "op=orders&range=last30&by=date,card_brand&grain=month&m=revenue&table=pivot",
    cohort: "range=last90",
  };
  const width: Record<TileKind, TileWidth> = { kpi: 1, chart: 4, table: 2, pivot: 2, cohort: 4 };
  return { kind, width: width[kind], pins: { ...NO_PINS }, title: "", report: parseTile(`${kind}.1|${report[kind]}|`, 0).tile?.report ?? report[kind] };
}

/**
 * The dashboard a new one starts from: the numbers a finance team watches, their trend, where they
 * come from, and how customers stay.
 */
/**
 * The dashboard a page shows: its URL's, or (when the URL names none) the saved one's, or the
 * starter; and the URL state it runs (null while the URL asks for what the page cannot apply). The
 * server computes the same for the page's first look, so a warm dashboard is drawn into its HTML.
 */
export function shownDashboard(url: Parsed<DashboardState>, savedParams: string | null): { state: DashboardState; params: string | null } {
  if (url.hasReport) return { state: url.state, params: url.problems.length === 0 ? serializeDashboard(url.state) : null };
  const state = savedParams !== null ? parseDashboard(savedParams).state : starterDashboard();
  return { state, params: serializeDashboard(state) };
}

/**
 * What the dashboard page shows for one URL: the URL's parse (whether it names a dashboard, and
 * every problem with it), the dashboard shown and the settings it runs (shownDashboard's), and the
 * settings' own query string, which the page's settings form follows.
 */
export interface DashboardLook {
  hasReport: boolean;
  problems: UrlProblem[];
  state: DashboardState;
  params: string | null;
  settingsKey: string;
}

export function dashboardLook(search: ParamsLike | string, today: string, savedParams: string | null): DashboardLook {
  const parsed = parseDashboard(search, today);
  const { state, params } = shownDashboard(parsed, savedParams);
  return { hasReport: parsed.hasReport, problems: parsed.problems, state, params, settingsKey: serializeDashboard({ ...state, tiles: [] }) };
}

/**
 * The query a dashboard URL naming no dashboard is redirected to: the saved dashboard's
 * settings, or the starter's, so the URL holds what the page shows from its first byte. Null when
 * the URL names a dashboard, or when what it would show cannot be applied (its problems are shown).
 * The server redirects rather than the page writing its URL after hydration, where the write raced
 * Next's router taking over the History API (a Back to that entry was then ignored).
 */
export function starterQuery(look: DashboardLook): string | null {
  return !look.hasReport && look.params !== null ? look.params : null;
}

export function starterDashboard(): DashboardState {
  const tile = (kind: TileKind, width: TileWidth, report: string, title = "", pins: Partial<TilePins> = {}): Tile => ({
    kind,
    width,
    pins: { ...NO_PINS, ...pins },
    title,
    report: parseTile(`${kind}.1|${report}|`, 0).tile!.report,
  });
  return {
    ...defaultDashboardState(),
    compare: { kind: "previous" },
    tiles: [
      tile("kpi", 1, "op=orders&range=last30&by=date&m=revenue"),
      tile("kpi", 1, "op=orders&range=last30&by=date&kpi=approval_rate"),
      tile("kpi", 1, "op=orders&range=last30&by=date&kpi=cb_rate_count"),
      tile("kpi", 1, "op=orders&range=last30&by=date&kpi=refund_rate"),
      tile("chart", 4, "op=orders&range=last30&by=date&m=revenue,approvals&chart=line"),
      tile("table", 2, "op=orders&range=last30&by=gateway_alias&m=revenue,attempts,approvals&kpi=approval_rate&sort=-revenue"),
      // Months as rows whatever the dashboard's grain: a pivot of days would be a wall of numbers.
      tile("pivot", 2, "op=orders&range=last90&by=date,card_brand&grain=month&m=revenue&table=pivot", "", { grain: true, range: true }),
      tile("table", 2, "op=orders&range=last30&by=bin&m=revenue,attempts&kpi=approval_rate&sort=-revenue", "Top BINs by revenue"),
      tile("cohort", 4, "range=last90"),
    ],
  };
}
