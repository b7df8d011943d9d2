/**
 * The Cohorts page's state and its URL form:
 *
 *   ?range=last90&f.campaign_id=12&rows=month&cell=ltv&cycles=6&trial=7&period=30
 *
 * `range` and the filters change the request; the rest only changes how the grid is drawn, and is
 * left out of the URL at its default.
 */
import { buildQuery, decodeFilters, encodeFilters, encodeRange, toParams, type Parsed, type ParamsLike } from "./encoding";
import { normalizeFilters, type Filters } from "./filters";
import { COHORT_PRESETS, normalizeRange, type RangeSelection } from "./range";
import { checkFilters, checkRange, quote, unknownParams, type UrlProblem } from "./url-check";
import { requestBase, type ReportRequestSpec } from "./request";

export const COHORT_ROWS = ["day", "week", "month"] as const;
export type CohortRows = (typeof COHORT_ROWS)[number];

export const COHORT_CELLS = ["retention", "previous", "revenue", "ltv"] as const;
export type CohortCell = (typeof COHORT_CELLS)[number];

export const COHORT_LIMITS = {
  cycles: { min: 1, max: 36, default: 12 },
  trialDays: { min: 0, max: 90, default: 14 },
  periodDays: { min: 1, max: 366, default: 30 },
} as const;

export interface CohortState {
  range: RangeSelection;
  filters: Filters;
  rows: CohortRows;
  cell: CohortCell;
  /** Billing cycles shown: 0..cycles. */
  cycles: number;
  /** Days from the initial order to the first rebill (cycle 1). */
  trialDays: number;
  /** Days between later rebills. */
  periodDays: number;
}

export function defaultCohortState(): CohortState {
  return {
    range: { preset: "last90" },
    filters: {},
    rows: "week",
    cell: "retention",
    cycles: COHORT_LIMITS.cycles.default,
    trialDays: COHORT_LIMITS.trialDays.default,
    periodDays: COHORT_LIMITS.periodDays.default,
  };
}

function clampInt(v: unknown, lim: { min: number; max: number; default: number }): number {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n)) return lim.default;
  return Math.min(lim.max, Math.max(lim.min, n));
}

export function normalizeCohort(s: CohortState): CohortState {
  const range = normalizeRange(s.range, "last90");
  return {
    range,
    filters: normalizeFilters("cohort", s.filters),
    rows: (COHORT_ROWS as readonly string[]).includes(s.rows) ? s.rows : "week",
    cell: (COHORT_CELLS as readonly string[]).includes(s.cell) ? s.cell : "retention",
    cycles: clampInt(s.cycles, COHORT_LIMITS.cycles),
    trialDays: clampInt(s.trialDays, COHORT_LIMITS.trialDays),
    periodDays: clampInt(s.periodDays, COHORT_LIMITS.periodDays),
  };
}

export function serializeCohort(state: CohortState): string {
  const s = normalizeCohort(state);
  const d = defaultCohortState();
  const pairs: [string, string][] = [["range", encodeRange(s.range)], ...encodeFilters(s.filters)];
  if (s.rows !== d.rows) pairs.push(["rows", s.rows]);
  if (s.cell !== d.cell) pairs.push(["cell", s.cell]);
  if (s.cycles !== d.cycles) pairs.push(["cycles", String(s.cycles)]);
  if (s.trialDays !== d.trialDays) pairs.push(["trial", String(s.trialDays)]);
  if (s.periodDays !== d.periodDays) pairs.push(["period", String(s.periodDays)]);
  return buildQuery(pairs);
}

/** Only what changes the request (range and filters). */
export function cohortQueryString(state: CohortState): string {
  const s = normalizeCohort(state);
  return buildQuery([["range", encodeRange(s.range)], ...encodeFilters(s.filters)]);
}

const COHORT_PARAMS = ["range", "rows", "cell", "cycles", "trial", "period"] as const;

/** A whole-number grid setting from the URL: out of range or not a whole number is a problem. */
function checkSetting(
  param: string,
  label: string,
  raw: string | null,
  lim: { min: number; max: number; default: number },
  problems: UrlProblem[],
): number {
  if (raw === null) return lim.default;
  if (!/^\d+$/.test(raw)) {
    problems.push({ param, message: `${quote(raw)} is not a whole number (${label}: ${lim.min} to ${lim.max}).` });
    return lim.default;
  }
  const n = Number(raw);
  if (n < lim.min || n > lim.max) {
    problems.push({ param, message: `${label} must be ${lim.min} to ${lim.max}, not ${quote(raw)}.` });
    return Math.min(lim.max, Math.max(lim.min, n));
  }
  return n;
}

/** The cohort report a URL describes; problems as for Explore (see parseExplore). */
export function parseCohort(input: ParamsLike | string, today?: string): Parsed<CohortState> {
  const p = toParams(input);
  const rawRange = p.get("range");
  const d = defaultCohortState();
  if (rawRange === null) return { state: d, hasReport: false, problems: [] };
  const problems: UrlProblem[] = unknownParams(p.keys(), COHORT_PARAMS);
  const checked = checkRange(rawRange, "last90", COHORT_PRESETS, today);
  if (checked.problem) problems.push(checked.problem);
  const filters = checkFilters("cohort", decodeFilters(p));
  problems.push(...filters.problems);
  const rows = p.get("rows") ?? d.rows;
  if (!(COHORT_ROWS as readonly string[]).includes(rows)) problems.push({ param: "rows", message: `${quote(rows)} is not a row grouping (${COHORT_ROWS.join(", ")}).` });
  const cell = p.get("cell") ?? d.cell;
  if (!(COHORT_CELLS as readonly string[]).includes(cell)) problems.push({ param: "cell", message: `${quote(cell)} is not a cell measure (${COHORT_CELLS.join(", ")}).` });
  const state = normalizeCohort({
    range: checked.range,
    filters: filters.filters,
    rows: rows as CohortRows,
    cell: cell as CohortCell,
    cycles: checkSetting("cycles", "Billing cycles shown", p.get("cycles"), COHORT_LIMITS.cycles, problems),
    trialDays: checkSetting("trial", "Trial days", p.get("trial"), COHORT_LIMITS.trialDays, problems),
    periodDays: checkSetting("period", "Period days", p.get("period"), COHORT_LIMITS.periodDays, problems),
  });
  return { state, hasReport: true, problems };
}

/** What the retention grid is computed from (docs/metrics.md, "Cohorts"), in catalog order. */
export const COHORT_GRID_METRICS = ["cpa", "approvals_by_initial_date", "revenue_by_initial_date", "cb_amount_by_initial_date", "refund_amount_by_initial_date"] as const;

export function cohortRequest(state: CohortState, today: string): ReportRequestSpec {
  return {
    op: "cohort",
    request: {
      ...requestBase(state.range, today, state.filters),
      group_by: ["date", "billing_cycle"],
      metrics: [...COHORT_GRID_METRICS],
    },
  };
}

/**
 * What Cohorts shows and runs for one URL: the page's server render computes it for the URL it opens
 * with, the browser for every URL after.
 */
export interface CohortLook {
  state: CohortState;
  hasReport: boolean;
  problems: UrlProblem[];
  /** The report to run; null while the URL names none, or asks for what the page cannot apply. */
  spec: ReportRequestSpec | null;
  /** The form's parameters of `state` (cohortQueryString): the form's draft follows them. */
  key: string;
}

export function cohortLook(search: ParamsLike | string, today: string): CohortLook {
  const { state, hasReport, problems } = parseCohort(search, today);
  // A link with anything the page cannot apply runs nothing (the problems are shown instead).
  return { state, hasReport, problems, spec: hasReport && problems.length === 0 ? cohortRequest(state, today) : null, key: cohortQueryString(state) };
}
