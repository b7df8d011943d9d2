/**
 * An alert rule's evaluation, pure: the requests it needs, what the answers say per group (value,
 * numerator and denominator, the previous window's when the condition compares), which groups meet
 * the condition, and what that means given what was already said (fired, still firing after the
 * cool-down, recovered once).
 */
import type { ReportQuery, ReportRecord } from "@/lib/contract/schemas";
import { formatValue, formatDimensionValue } from "@/lib/report/metrics/format";
import { compareMidIds, midName } from "@/lib/report/mid-name";
import { evaluate, measureFor, measureMetrics, type Evaluation, type Measure } from "@/lib/report/metrics/kpis";
import { sumRecords } from "@/lib/report/metrics/sums";
import { comparisonRange } from "@/lib/report/periods/compare";
import { requestFilters } from "@/lib/report/state/filters";
import type { MonitorRow } from "@/lib/features/monitor/load";
import { coverageDays, coverageOf, coverageRequest, partlyCovered, type Coverage } from "@/lib/report/periods/coverage";
import { typedFilters, windowRange, type AlertCondition, type AlertDefinition } from "./definition";

export interface AlertRequests {
  main: ReportQuery;
  /** The previous window of the same length, when the condition is a change. */
  previous: ReportQuery | null;
  /** The previous window's attempts by date: which of its days hold data (lib/report/periods/coverage.ts). */
  coverage: ReportQuery | null;
}

/** The order-summary requests of a measure rule, as of `today`. */
export function alertRequests(d: AlertDefinition, today: string): AlertRequests {
  if (d.target.kind !== "measure") throw new Error("a programme rule reads the Monitor's reports");
  const m = measureFor(d.target.measure, "orders")!;
  const range = windowRange(d.window, today);
  const filters = requestFilters(typedFilters(d));
  const main: ReportQuery = {
    start_date: range.start,
    end_date: range.end,
    // Per MID: its alias comes in the same records (one alias per id, so no more rows), to name it.
    group_by: d.group_by === "gateway_id" ? ["gateway_id", "gateway_alias"] : d.group_by ? [d.group_by] : [],
    metrics: measureMetrics(m),
    ...(filters ? { filters } : {}),
  };
  if (d.condition.kind !== "change") return { main, previous: null, coverage: null };
  const prev = comparisonRange(range, { kind: "previous" })!;
  const previous = { ...main, start_date: prev.start, end_date: prev.end };
  return { main, previous, coverage: coverageRequest("orders", previous) };
}

export interface GroupReading {
  /** Stable key of the group (its value, or "all"). */
  key: string;
  label: string;
  value: number | null;
  numerator: number;
  denominator: number | null;
  previous: Evaluation | null;
  fires: boolean;
}

export interface Reading {
  measure: { id: string; label: string; format: Measure["format"] };
  window: { start: string; end: string };
  previousWindow: { start: string; end: string } | null;
  /**
   * How many of the previous window's days hold data, when it was asked. A change against a window
   * with days outside the data (or with no attempts) is not a change in the business: it is said,
   * and such a change never fires.
   */
  previousCoverage?: Coverage | null;
  groups: GroupReading[];
}

/** Whether a value (and the previous window's, for a change) meets the condition. */
export function conditionHolds(c: AlertCondition, value: number | null, previous: number | null): boolean {
  if (value === null) return false;
  switch (c.kind) {
    case "above":
      return value > c.value;
    case "below":
      return value < c.value;
    case "change": {
      if (previous === null) return false;
      let delta: number;
      if (c.by === "points") delta = (value - previous) * 100;
      else {
        if (previous === 0) return false; // a change from nothing has no percentage
        delta = ((value - previous) / Math.abs(previous)) * 100;
      }
      // 0.75 − 0.70 is 0.0500000000000004 in floating point: "more than 5 points" must not fire on exactly 5.
      delta = Math.round(delta * 1e9) / 1e9;
      if (c.direction === "up") return delta > c.amount;
      if (c.direction === "down") return -delta > c.amount;
      return Math.abs(delta) > c.amount;
    }
  }
}

const keyOf = (v: unknown) => (v === null || v === undefined ? "(none)" : String(v));

function byGroup(records: readonly ReportRecord[], dim: string | null): Map<string, { label: string; records: ReportRecord[] }> {
  const out = new Map<string, { label: string; records: ReportRecord[] }>();
  for (const r of records) {
    const v = dim ? r[dim] : "all";
    const key = keyOf(v);
    let g = out.get(key);
    const label = dim === "gateway_id" && v !== null && v !== undefined ? midName(String(v), typeof r.gateway_alias === "string" ? r.gateway_alias : null) : dim ? formatDimensionValue(dim, v ?? null) : "All";
    if (!g) out.set(key, (g = { label, records: [] }));
    g.records.push(r);
  }
  return out;
}

/**
 * A measure rule's reading from its answers (the previous window's when the condition compares, and
 * its coverage request's, which says which of its days hold data).
 */
export function readMeasure(d: AlertDefinition, requests: AlertRequests, main: readonly ReportRecord[], previous: readonly ReportRecord[] | null, coverage: readonly ReportRecord[] | null = null): Reading {
  if (d.target.kind !== "measure") throw new Error("not a measure rule");
  const m = measureFor(d.target.measure, "orders")!;
  const metrics = measureMetrics(m);
  const now = byGroup(main, d.group_by);
  const before = previous ? byGroup(previous, d.group_by) : null;
  // Without grouping there is always the one group, even with no records (a rate of nothing).
  if (!d.group_by && now.size === 0) now.set("all", { label: "All", records: [] });
  const prevRange = requests.previous ? { start: requests.previous.start_date, end: requests.previous.end_date } : null;
  const previousCoverage = prevRange && coverage ? coverageOf(prevRange, coverageDays(coverage, prevRange)) : null;
  const groups: GroupReading[] = [];
  for (const [key, g] of now) {
    const e = evaluate(m, sumRecords(g.records, metrics));
    const p = before ? evaluate(m, sumRecords(before.get(key)?.records ?? [], metrics)) : null;
    // No verdict on a change against a partly covered window: it does not fire.
    const fires = conditionHolds(d.condition, e.value, p?.value ?? null) && !(d.condition.kind === "change" && partlyCovered(previousCoverage));
    groups.push({ key, label: g.label, value: e.value, numerator: e.numerator, denominator: e.denominator, previous: p, fires });
  }
  // MIDs by number (1, 2, … 10), everything else by its words.
  groups.sort((a, b) => (d.group_by === "gateway_id" ? compareMidIds(a.key, b.key) : 0) || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
  return {
    measure: { id: m.id, label: m.label, format: m.format },
    window: { start: requests.main.start_date, end: requests.main.end_date },
    previousWindow: prevRange,
    ...(previousCoverage ? { previousCoverage } : {}),
    groups,
  };
}

/** A programme rule's reading from the Monitor's rows: this month to date, per MID and card brand. */
export function readProgramme(d: AlertDefinition, rows: readonly MonitorRow[], month: string, previousMonth: string, window: { start: string; end: string }, programmeName: string): Reading {
  if (d.target.kind !== "programme") throw new Error("not a programme rule");
  const id = d.target.programme;
  const mine = rows.filter((r) => r.programId === id);
  const prevOf = (r: MonitorRow) => mine.find((p) => p.month === previousMonth && p.gatewayId === r.gatewayId && p.cardBrand === r.cardBrand) ?? null;
  const groups = mine
    .filter((r) => r.month === month)
    .map((r): GroupReading => {
      const p = prevOf(r);
      const previous = p ? { value: p.actual.ratio, numerator: p.actual.numerator, denominator: p.actual.denominator } : null;
      return {
        key: `${r.gatewayId}|${r.cardBrand}`,
        label: `${midName(r.gatewayId, r.gatewayName)} (${r.cardBrand})`,
        value: r.actual.ratio,
        numerator: r.actual.numerator,
        denominator: r.actual.denominator,
        previous,
        fires: conditionHolds(d.condition, r.actual.ratio, previous?.value ?? null),
      };
    })
    .sort((a, b) => compareMidIds(a.key.split("|")[0]!, b.key.split("|")[0]!) || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
  return { measure: { id, label: `${programmeName} ratio`, format: "percent" }, window, previousWindow: null, groups };
}

// ---------------------------------------------------------------------------------------------
// What to say

export interface GroupState {
  firing: boolean;
  /** When the current firing (or quiet) spell began. */
  since: Date;
  /** When its owner was last told it fired. */
  lastNotifiedAt: Date | null;
}

export type Notice = { key: string; kind: "fired" | "still" | "recovered" };

/**
 * What to tell, and the groups' states after this evaluation. A group that starts firing is told; one
 * that keeps firing is told again once the cool-down since the last telling has passed; one that
 * fires again inside the cool-down (even after a recovery) is not. A group that stops firing is told
 * it recovered, once, and only if its firing was told.
 */
export function transitions(
  reading: Pick<Reading, "groups">,
  before: ReadonlyMap<string, GroupState>,
  now: Date,
  cooldownMinutes: number,
): { notices: Notice[]; states: Map<string, GroupState> } {
  const notices: Notice[] = [];
  const states = new Map<string, GroupState>();
  const cooled = (s: GroupState | undefined) => !s?.lastNotifiedAt || now.getTime() - s.lastNotifiedAt.getTime() >= cooldownMinutes * 60_000;
  const seen = new Set<string>();
  for (const g of reading.groups) {
    seen.add(g.key);
    const s = before.get(g.key);
    if (g.fires) {
      const wasFiring = s?.firing ?? false;
      const since = wasFiring ? s!.since : now;
      if (cooled(s)) {
        // "Still firing" only about a spell already told; a spell that began untold (inside the
        // cool-down, after a recovery was told) is told as fired.
        const told = wasFiring && s!.lastNotifiedAt !== null && s!.lastNotifiedAt.getTime() >= s!.since.getTime();
        notices.push({ key: g.key, kind: told ? "still" : "fired" });
        states.set(g.key, { firing: true, since, lastNotifiedAt: now });
      } else states.set(g.key, { firing: true, since, lastNotifiedAt: s?.lastNotifiedAt ?? null });
    } else if (s?.firing) {
      const told = s.lastNotifiedAt !== null && s.lastNotifiedAt.getTime() >= s.since.getTime();
      if (told) notices.push({ key: g.key, kind: "recovered" });
      states.set(g.key, { firing: false, since: now, lastNotifiedAt: s.lastNotifiedAt });
    } else if (s) states.set(g.key, s);
  }
  // A group with no records this time (no attempts on that gateway today) is not firing any more.
  for (const [key, s] of before) {
    if (seen.has(key)) continue;
    if (s.firing) {
      if (s.lastNotifiedAt !== null && s.lastNotifiedAt.getTime() >= s.since.getTime()) notices.push({ key, kind: "recovered" });
      states.set(key, { firing: false, since: now, lastNotifiedAt: s.lastNotifiedAt });
    } else states.set(key, s);
  }
  return { notices, states };
}

/** "Approval rate 71.20% (712 ÷ 1,000)" or "Revenue $1,234.00". */
export function describeValue(r: Pick<Reading, "measure">, g: Pick<GroupReading, "value" | "numerator" | "denominator">): string {
  const v = formatValue(g.value, r.measure.format);
  if (g.denominator === null) return `${r.measure.label} ${v}`;
  return `${r.measure.label} ${v} (${g.numerator.toLocaleString("en-US")} ÷ ${g.denominator.toLocaleString("en-US")})`;
}

// In ./words.ts, which the browser imports without the schemas.
export { describeCondition } from "./definition";
