/**
 * Programme ratios per MID and month, from the monthly answers the Monitor fetches (one report per
 * month, grouped by gateway, card brand and alert type). Pure: hand-built months in, rows out.
 *
 * - The thresholds in force are those of the month evaluated, never today's.
 * - A level applies when the ratio reaches its threshold and the numerator its minimum count; the
 *   highest such level is the status.
 * - A MID's sales are every approved attempt it settled, cascades included (`net_approvals`): a
 *   cascade that approves is a sale on the MID that approved it, and the networks count every settled
 *   sale. `approvals` leaves cascades out (SPEC.md §2.3), which would make a MID that receives
 *   cascades look riskier than it is.
 * - The current month is to date: beside its ratio, a projection to month end at the pace so far
 *   (the counts of the month scaled by days in month ÷ days elapsed; a preceding month's sales are
 *   complete and stay as they are).
 */
import type { ReportRecord } from "@/lib/contract/schemas";
import { addDays } from "@/lib/contract/dates";
import { toCents } from "@/lib/contract/money";
import { units } from "@/lib/report/metrics/sums";
import { periodEnd } from "@/lib/report/periods/periods";
import { STATUS_LEVELS, type MonitorConfig, type Program, type StatusLevel, type Threshold } from "./definitions";

const ALERT_KINDS = ["ETHOCA", "CDRN", "RDR"] as const;
type AlertKind = (typeof ALERT_KINDS)[number];

/** One MID and card brand in one month: sales (every approved attempt), chargebacks and alerts, amounts in cents. */
export interface MidSums {
  gatewayId: number;
  gatewayName: string | null;
  cardBrand: string;
  sales: number;
  chargebacks: number;
  chargebackCents: number;
  alerts: Record<AlertKind, { count: number; cents: number }>;
}

/** A month's answer, by MID and card brand. `daysElapsed` < `daysInMonth` for the month to date. */
export interface MonthData {
  /** YYYY-MM */
  month: string;
  daysInMonth: number;
  daysElapsed: number;
  mids: Map<string, MidSums>;
}

/** The catalog metric a MID's sales are counted with: every approved attempt, cascades included. */
export const SALES_METRIC = "net_approvals";

/** The metrics each monthly report asks for, and how it is grouped. */
export const MONITOR_METRICS = [SALES_METRIC, "cb_count_by_cb_date", "cb_amount_by_cb_date", "alert_count_by_alert_date", "alert_by_alert_date"] as const;
export const MONITOR_GROUP_BY = ["gateway_id", "gateway_alias", "card_brand", "alert_type"] as const;

export const midKey = (gatewayId: number, cardBrand: string) => `${gatewayId}|${cardBrand}`;


/** A monthly report's records summed by MID and card brand (alert metrics carry their alert type, the others none). */
export function midSums(records: readonly ReportRecord[]): Map<string, MidSums> {
  const out = new Map<string, MidSums>();
  for (const r of records) {
    const gatewayId = Number(r.gateway_id ?? 0);
    const cardBrand = String(r.card_brand ?? "");
    const key = midKey(gatewayId, cardBrand);
    let m = out.get(key);
    if (!m) {
      m = {
        gatewayId,
        gatewayName: typeof r.gateway_alias === "string" ? r.gateway_alias : null,
        cardBrand,
        sales: 0,
        chargebacks: 0,
        chargebackCents: 0,
        alerts: { ETHOCA: { count: 0, cents: 0 }, CDRN: { count: 0, cents: 0 }, RDR: { count: 0, cents: 0 } },
      };
      out.set(key, m);
    }
    if (m.gatewayName === null && typeof r.gateway_alias === "string") m.gatewayName = r.gateway_alias;
    m.sales += units(r, SALES_METRIC);
    m.chargebacks += units(r, "cb_count_by_cb_date");
    m.chargebackCents += units(r, "cb_amount_by_cb_date");
    const type = r.alert_type;
    if (typeof type === "string" && (ALERT_KINDS as readonly string[]).includes(type)) {
      const a = m.alerts[type as AlertKind];
      a.count += units(r, "alert_count_by_alert_date");
      a.cents += units(r, "alert_by_alert_date");
    }
  }
  return out;
}

/** The thresholds of a programme in force for a month (YYYY-MM): those whose dates cover the whole month. */
export function thresholdsInForce(program: Program, month: string): Threshold[] {
  const first = `${month}-01`;
  const last = periodEnd(first, "month");
  return program.thresholds.filter((t) => (t.from === undefined || t.from <= first) && (t.until === undefined || t.until >= last));
}


/** The highest level whose ratio and minimum count are both reached, and that threshold. */
export function statusOf(thresholds: readonly Threshold[], numerator: number, ratio: number | null): { level: StatusLevel; threshold: Threshold | null } {
  let best: { level: StatusLevel; threshold: Threshold | null } = { level: "ok", threshold: null };
  if (ratio === null) return best;
  for (const t of thresholds) {
    if (ratio >= t.ratio && numerator >= t.minCount && STATUS_LEVELS.indexOf(t.level) > STATUS_LEVELS.indexOf(best.level)) best = { level: t.level, threshold: t };
  }
  return best;
}

export interface Measured {
  numerator: number;
  denominator: number;
  /** null when there were no sales to divide by. */
  ratio: number | null;
  level: StatusLevel;
  /** The threshold reached, or null. */
  threshold: Threshold | null;
}

export interface ProgramRow {
  program: Program;
  month: string;
  gatewayId: number;
  gatewayName: string | null;
  cardBrand: string;
  actual: Measured;
  /** Only for the month to date: the same at the pace so far, to month end. */
  projected: Measured | null;
  /** The lowest threshold in force (what "close" means for this row). */
  lowest: Threshold | null;
}

function numeratorOf(program: Program, m: MidSums | undefined): number {
  if (!m) return 0;
  return (program.numerator.chargebacks ? m.chargebacks : 0) + program.numerator.alertTypes.reduce((s, t) => s + m.alerts[t].count, 0);
}

function measure(thresholds: readonly Threshold[], numerator: number, denominator: number, ratio = denominator > 0 ? numerator / denominator : null): Measured {
  return { numerator, denominator, ratio, ...statusOf(thresholds, numerator, ratio) };
}

/**
 * Every programme's row for every MID of its card brand, for each month of `evaluate` (YYYY-MM, newest
 * first). `months` must hold those months and, for a programme on the preceding month's sales, the
 * month before each.
 */
export function evaluatePrograms(config: MonitorConfig, months: ReadonlyMap<string, MonthData>, evaluate: readonly string[]): ProgramRow[] {
  const rows: ProgramRow[] = [];
  for (const month of evaluate) {
    const data = months.get(month);
    if (!data) continue;
    for (const program of config.programs) {
      const thresholds = thresholdsInForce(program, month);
      const lowest = [...thresholds].sort((a, b) => a.ratio - b.ratio)[0] ?? null;
      const salesMonth = program.denominator.month === "same" ? data : months.get(previousMonth(month));
      const keys = new Set([...data.mids.keys(), ...(salesMonth?.mids.keys() ?? [])]);
      for (const key of keys) {
        const here = data.mids.get(key);
        const sales = salesMonth?.mids.get(key);
        const any = here ?? sales!;
        if (any.cardBrand !== program.cardBrand) continue;
        const numerator = numeratorOf(program, here);
        const denominator = sales?.sales ?? 0;
        const actual = measure(thresholds, numerator, denominator);
        const partial = data.daysElapsed < data.daysInMonth && data.daysElapsed > 0;
        // Multiply, then divide once: a pace (days ÷ elapsed) rounded first can land a projected count
        // a hair under a whole minimum count (45 × 28 ÷ 5 is 252, 45 × (28 ÷ 5) is 251.99…).
        const toMonthEnd = (n: number) => (n * data.daysInMonth) / data.daysElapsed;
        // Same-month sales scale with the count, so the ratio is the actual one (not recomputed from two
        // rounded products, which can fall just under a threshold the actual ratio meets).
        const projected = !partial
          ? null
          : program.denominator.month === "same"
            ? measure(thresholds, toMonthEnd(numerator), toMonthEnd(denominator), actual.ratio)
            : measure(thresholds, toMonthEnd(numerator), denominator);
        rows.push({ program, month, gatewayId: any.gatewayId, gatewayName: here?.gatewayName ?? sales?.gatewayName ?? null, cardBrand: any.cardBrand, actual, projected, lowest });
      }
    }
  }
  return rows;
}

const rank = (l: StatusLevel) => STATUS_LEVELS.indexOf(l);

/** Worst first: by status (the projection's when worse), then by ratio against the lowest threshold. */
export function worstFirst(a: ProgramRow, b: ProgramRow): number {
  const level = (r: ProgramRow) => Math.max(rank(r.actual.level), r.projected ? rank(r.projected.level) : 0);
  const closeness = (r: ProgramRow) => (r.actual.ratio ?? 0) / (r.lowest?.ratio ?? 1);
  return level(b) - level(a) || closeness(b) - closeness(a) || a.gatewayId - b.gatewayId;
}

/** YYYY-MM of the month before. */
export function previousMonth(month: string): string {
  return addDays(`${month}-01`, -1).slice(0, 7);
}

/** Alert-aware disputes of one MID in one month. */
export interface DisputeRow {
  month: string;
  gatewayId: number;
  gatewayName: string | null;
  cardBrand: string;
  chargebacks: number;
  chargebackCents: number;
  alerts: MidSums["alerts"];
  /** Alerts ÷ (alerts + chargebacks): the share of disputes an alert caught; null with none. */
  caughtShare: number | null;
  /** What the alerts cost (count × cost per type), and the disputed amounts they kept from becoming chargebacks. */
  alertCostCents: number;
  preventedCents: number;
}

export function disputeRows(config: MonitorConfig, data: MonthData): DisputeRow[] {
  return [...data.mids.values()].flatMap((m) => {
    const alertCount = ALERT_KINDS.reduce((s, t) => s + m.alerts[t].count, 0);
    if (alertCount === 0 && m.chargebacks === 0) return [];
    return [
      {
        month: data.month,
        gatewayId: m.gatewayId,
        gatewayName: m.gatewayName,
        cardBrand: m.cardBrand,
        chargebacks: m.chargebacks,
        chargebackCents: m.chargebackCents,
        alerts: m.alerts,
        caughtShare: alertCount + m.chargebacks > 0 ? alertCount / (alertCount + m.chargebacks) : null,
        alertCostCents: ALERT_KINDS.reduce((s, t) => s + m.alerts[t].count * toCents(config.alertCost[t]), 0),
        preventedCents: ALERT_KINDS.reduce((s, t) => s + m.alerts[t].cents, 0),
      },
    ];
  });
}
