/**
 * Measured after: for each applied routing configuration version, the traffic its rules changed
 * (the BIN prefixes and banks of rules added, removed or changed against the version before it)
 * and that traffic's approval and chargeback rates in equal windows of full days before and after
 * the day it was applied (pure; ./effects-load.ts fetches the records).
 *
 * - Rates are ratios of sums from the product's KPI registry: approval rate = approvals ÷ attempts,
 *   chargeback rate = chargebacks ÷ approvals, each shown with its counts.
 * - The day of the apply belongs to neither window (it holds traffic of both versions). The after
 *   window is the full days since, at most EFFECT_WINDOW_MAX_DAYS, and ends before the next version
 *   that changed any of the same BINs or banks (its effect is not this one's); the before window is
 *   as many days just before the apply day.
 * - Either window with fewer than `minAttempts` attempts is "not enough data", said with its count.
 * - BIN rules and BANK rules are measured apart: a card can match both, and summing the two would
 *   count it twice. The reports know a BIN by its first 6 digits, so a 7- or 8-digit prefix is
 *   measured on every card sharing its first 6.
 * - Chargebacks are counted by order date, so the after window's chargeback rate still grows as
 *   disputes arrive (weeks later); it is shown, never hidden, and read with that in mind.
 */
import type { RoutingConfigVersion } from "@/lib/contract/bin-routing";
import { addDays, daysBetween, todayIn } from "@/lib/contract/dates";
import { LIMITS } from "@/lib/contract/catalog";
import type { ReportRecord } from "@/lib/contract/schemas";
import { REPORT_BIN_DIGITS } from "@/lib/features/bin-lookup/evidence";
import { evaluate, measureFor, measureMetrics, type Measure } from "@/lib/report/metrics/kpis";
import { sumRecords } from "@/lib/report/metrics/sums";
import { diffConfigs, normalizeConfig } from "./diff";

/** The longest after (and so before) window, in full days. */
export const EFFECT_WINDOW_MAX_DAYS = 14;
/** Attempts each window needs before its rates are compared. */
export const EFFECT_MIN_ATTEMPTS = 200;
/** The most recent applied versions measured (each costs up to two reports). */
export const EFFECT_MAX_VERSIONS = 10;

function kpi(id: string): Measure {
  const m = measureFor(id, "orders");
  if (!m) throw new Error(`KPI ${id} is not offered by the order summary`);
  return m;
}
const APPROVAL_RATE = kpi("approval_rate");
const CB_RATE = kpi("cb_rate_count");
export const EFFECT_METRICS = [...new Set([...measureMetrics(APPROVAL_RATE), ...measureMetrics(CB_RATE)])];

export interface DayWindow {
  start_date: string;
  end_date: string;
  days: number;
}

export type EffectKind = "BIN" | "BANK";

/** One report to run for one version: its traffic of one kind over both windows, by day. */
export interface EffectQuery {
  kind: EffectKind;
  /** What the report filters on: 6-digit BINs, or banks. */
  values: string[];
  /** Keys left out because a report filter takes at most LIMITS.maxFilterValues values. */
  omitted: number;
  request: { start_date: string; end_date: string; group_by: string[]; metrics: string[]; filters: Record<string, string[]> };
}

export interface EffectPlan {
  version: number;
  created_at: string;
  author: string;
  reason: string;
  restored_from: number | null;
  /** The calendar day (reporting time zone) it was applied on; in neither window. */
  applied_date: string;
  /** What its rules changed against the version before it (empty for the first version). */
  affected: { bin_prefixes: string[]; banks: string[] };
  before: DayWindow | null;
  after: DayWindow | null;
  /** Why nothing is measured (no rule changed, no full day since, …); null when there are queries. */
  note: string | null;
  queries: EffectQuery[];
}

/** The calendar day of an instant in `timeZone`. */
export function dayOf(iso: string, timeZone: string): string {
  return todayIn(timeZone, new Date(iso));
}

const overlaps = (a: EffectPlan["affected"], b: EffectPlan["affected"]) =>
  a.bin_prefixes.some((p) => b.bin_prefixes.some((q) => p.slice(0, REPORT_BIN_DIGITS) === q.slice(0, REPORT_BIN_DIGITS))) || a.banks.some((x) => b.banks.includes(x));

/**
 * What to measure for the newest `maxVersions` versions of `versions` (any order), as of `today`
 * (a calendar day in `timeZone`; today itself is not a full day yet).
 */
export function planEffects(
  versions: readonly RoutingConfigVersion[],
  today: string,
  timeZone: string,
  opts: { maxDays?: number; maxVersions?: number } = {},
): EffectPlan[] {
  const { maxDays = EFFECT_WINDOW_MAX_DAYS, maxVersions = EFFECT_MAX_VERSIONS } = opts;
  const ascending = [...versions].sort((a, b) => a.version - b.version);
  const plans: EffectPlan[] = ascending.map((v, i) => {
    const prev = i > 0 ? ascending[i - 1] : undefined;
    const [before, after] = [prev ? normalizeConfig(prev.config) : null, normalizeConfig(v.config)];
    const affected = before && after ? diffConfigs(before, after).affected : { bin_prefixes: [], banks: [] };
    return {
      version: v.version,
      created_at: v.created_at,
      author: v.author,
      reason: v.reason,
      restored_from: v.restored_from,
      applied_date: dayOf(v.created_at, timeZone),
      affected,
      before: null,
      after: null,
      note: null,
      queries: [],
    };
  });
  for (const [i, p] of plans.entries()) {
    if (i === 0) {
      p.note = "The first version: there is no earlier one to compare with.";
      continue;
    }
    if (p.affected.bin_prefixes.length === 0 && p.affected.banks.length === 0) {
      p.note = "No rule changed in this version (only groups or members), so no BIN or bank is singled out to measure.";
      continue;
    }
    const next = plans.slice(i + 1).find((q) => overlaps(p.affected, q.affected));
    // The last full day: yesterday, or the day before the next version that touched the same traffic.
    const last = next && next.applied_date < today ? addDays(next.applied_date, -1) : addDays(today, -1);
    const days = Math.min(maxDays, daysBetween(p.applied_date, last));
    if (days < 1) {
      p.note =
        next && next.applied_date <= addDays(p.applied_date, 1)
          ? `Version ${next.version} changed the same traffic before a full day had passed, so this version has no after window of its own.`
          : "Not enough data yet: the after window starts with the first full day after the apply.";
      continue;
    }
    p.after = { start_date: addDays(p.applied_date, 1), end_date: addDays(p.applied_date, days), days };
    p.before = { start_date: addDays(p.applied_date, -days), end_date: addDays(p.applied_date, -1), days };
    const span = { start_date: p.before.start_date, end_date: p.after.end_date };
    const bins = [...new Set(p.affected.bin_prefixes.map((b) => b.slice(0, REPORT_BIN_DIGITS)))];
    const kinds: [EffectKind, string[], string][] = [
      ["BIN", bins, "bin"],
      ["BANK", p.affected.banks, "bank"],
    ];
    for (const [kind, all, dimension] of kinds) {
      if (all.length === 0) continue;
      const values = all.slice(0, LIMITS.maxFilterValues);
      p.queries.push({
        kind,
        values,
        omitted: all.length - values.length,
        request: { ...span, group_by: ["date"], metrics: [...EFFECT_METRICS], filters: { [dimension]: values } },
      });
    }
  }
  return plans.reverse().slice(0, maxVersions);
}

export interface WindowFigures extends DayWindow {
  attempts: number;
  approvals: number;
  cb_count: number;
  /** approvals ÷ attempts; null with no attempts. */
  approval_rate: number | null;
  /** cb_count ÷ approvals; null with no approvals. */
  cb_rate: number | null;
}

export interface KindEffect {
  kind: EffectKind;
  values: string[];
  omitted: number;
  before: WindowFigures;
  after: WindowFigures;
  /** Both windows have at least `min_attempts` attempts. */
  enough: boolean;
  /** "Not enough data: …" with the counts, when not enough. */
  note: string | null;
  /** after − before, percentage points; null when not enough data or a rate is undefined. */
  approval_change_pp: number | null;
  cb_change_pp: number | null;
}

export interface VersionEffect extends Omit<EffectPlan, "queries"> {
  effects: KindEffect[];
}

export interface RoutingEffectsAnswer {
  state: "done";
  time_zone: string;
  min_attempts: number;
  max_days: number;
  versions: VersionEffect[];
}

/** An answer that waits on its reports (the shape every waiting panel reads). */
export interface EffectsPending {
  state: "pending";
  phase: "queued" | "fetching";
  position: number | null;
  estimated_start: string | null;
}

function figures(records: readonly ReportRecord[], w: DayWindow): WindowFigures {
  const inside = records.filter((r) => typeof r.date === "string" && r.date >= w.start_date && r.date <= w.end_date);
  const sums = sumRecords(inside, EFFECT_METRICS);
  const approval = evaluate(APPROVAL_RATE, sums);
  const cb = evaluate(CB_RATE, sums);
  return {
    ...w,
    attempts: approval.denominator ?? 0,
    approvals: approval.numerator,
    cb_count: cb.numerator,
    approval_rate: approval.value,
    cb_rate: cb.value,
  };
}

const pp = (after: number | null, before: number | null) => (after === null || before === null ? null : (after - before) * 100);

/** One kind's figures from its report's records (grouped by date), both windows. */
export function measureEffect(query: EffectQuery, before: DayWindow, after: DayWindow, records: readonly ReportRecord[], minAttempts = EFFECT_MIN_ATTEMPTS): KindEffect {
  const b = figures(records, before);
  const a = figures(records, after);
  const short = [b.attempts < minAttempts ? `${b.attempts.toLocaleString("en-US")} attempts before` : null, a.attempts < minAttempts ? `${a.attempts.toLocaleString("en-US")} after` : null].filter(
    (x): x is string => x !== null,
  );
  const enough = short.length === 0;
  return {
    kind: query.kind,
    values: query.values,
    omitted: query.omitted,
    before: b,
    after: a,
    enough,
    note: enough ? null : `Not enough data: ${short.join(", ")}; each window needs at least ${minAttempts.toLocaleString("en-US")} attempts.`,
    approval_change_pp: enough ? pp(a.approval_rate, b.approval_rate) : null,
    cb_change_pp: enough ? pp(a.cb_rate, b.cb_rate) : null,
  };
}

/** Every planned version with its measured kinds, given each query's records (`records[i][j]` for plans[i].queries[j]). */
export function buildEffects(plans: readonly EffectPlan[], records: readonly (readonly (readonly ReportRecord[])[])[], minAttempts = EFFECT_MIN_ATTEMPTS): VersionEffect[] {
  return plans.map((p, i) => {
    const { queries, ...rest } = p;
    const effects = p.before && p.after ? queries.map((q, j) => measureEffect(q, p.before!, p.after!, records[i]?.[j] ?? [], minAttempts)) : [];
    return { ...rest, effects };
  });
}
