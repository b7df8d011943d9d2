import "server-only";
/**
 * One MID's drill-down for one month and programme: the daily trend of the programme's ratio (the
 * month's numerator to date over its denominator, so the last day is the table's ratio), and the
 * month's chargebacks by BIN and by issuing bank, the 10 largest and the rest. Three reports, run
 * only when a MID is opened, through the report gateway like the Monitor's own.
 */
import { z } from "zod";
import { CARD_BRANDS } from "@/lib/contract/dimensions";
import { addDays } from "@/lib/contract/dates";
import { units } from "@/lib/report/metrics/sums";
import type { ReportQuery, ReportRecord } from "@/lib/contract/schemas";
import { ApiError } from "@/lib/contract/errors";
import type { MonitorConfig, Threshold } from "./definitions";
import { midKey, midSums, previousMonth, SALES_METRIC, thresholdsInForce } from "./evaluate";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { anyFailed, settleAll, withoutData, type MonthStatus } from "./load";
import { exploreLinkFor, monitorMonths, monitorQuery, type MonitorMonth } from "./months";

export const DrillInput = z.strictObject({
  program: z.string().min(1).max(100),
  // Written as the Monitor writes a MID: decimal digits only (no "1e3", "0x10", signs or spaces).
  gateway: z
    .string()
    .regex(/^(0|[1-9][0-9]{0,14})$/, { error: "gateway must be a MID as the Monitor shows it (decimal digits)" })
    .transform(Number),
  brand: z.enum(CARD_BRANDS),
  month: z.string().regex(/^\d{4}-\d{2}$/, { error: "month must be YYYY-MM" }),
});
export type DrillInput = z.infer<typeof DrillInput>;

export interface DrillPart {
  key: string;
  chargebacks: number;
  cents: number;
}

export type DrillAnswer =
  // Each report's status (a finished one without its records), for the page to say where they stand in the queue.
  | { kind: "pending"; statuses: MonthStatus["status"][] }
  | {
      kind: "ok";
      month: MonitorMonth;
      trend: { date: string; numerator: number; denominator: number; ratio: number | null }[];
      thresholds: Threshold[];
      byBin: { top: DrillPart[]; rest: DrillPart | null };
      byBank: { top: DrillPart[]; rest: DrillPart | null };
      links: { byDay: string; byBin: string; byBank: string };
    };


function topAndRest(records: readonly ReportRecord[], dim: string, n = 10): { top: DrillPart[]; rest: DrillPart | null } {
  const parts = records
    .map((r) => ({ key: String(r[dim] ?? "(none)"), chargebacks: units(r, "cb_count_by_cb_date"), cents: units(r, "cb_amount_by_cb_date") }))
    .filter((p) => p.chargebacks > 0)
    .sort((a, b) => b.chargebacks - a.chargebacks || b.cents - a.cents || (a.key < b.key ? -1 : 1));
  const rest = parts.slice(n);
  return {
    top: parts.slice(0, n),
    rest: rest.length ? { key: `${rest.length} more`, chargebacks: rest.reduce((s, p) => s + p.chargebacks, 0), cents: rest.reduce((s, p) => s + p.cents, 0) } : null,
  };
}

export async function loadDrill(gateway: ReportGateway, config: MonitorConfig, today: string, owner: string, waitMs: number, input: DrillInput): Promise<DrillAnswer> {
  const program = config.programs.find((p) => p.id === input.program);
  if (!program) throw ApiError.badRequest(`"${input.program}" is not a programme of this Monitor`, [{ path: "program", message: "unknown programme" }]);
  const all = monitorMonths(today);
  const months = all.filter((m) => !m.salesOnly);
  const month = months.find((m) => m.month === input.month);
  if (!month) throw ApiError.badRequest(`The Monitor shows ${months.map((m) => m.month).join(", ")}; ${input.month} is not one of them`, [{ path: "month", message: "not shown" }]);
  // Only a MID the Monitor shows for that programme and month is drilled into: its own monthly
  // reports (cached once the Monitor was opened) say which; anything else costs no upstream call.
  if (input.brand !== program.cardBrand) {
    throw ApiError.badRequest(`${program.name} is for ${program.cardBrand} cards, not ${input.brand}`, [{ path: "brand", message: "not this programme's card brand" }]);
  }
  const sources = [month, ...(program.denominator.month === "preceding" ? [all.find((m) => m.month === previousMonth(month.month))!] : [])];
  const shown = await settleAll(gateway, sources.map(monitorQuery), owner, waitMs);
  if (anyFailed(shown)) throw new ApiError(503, "The Monitor's figures for this month could not be fetched from the reporting service. Try again in a minute.");
  if (!shown.every((s) => s.state === "done")) return { kind: "pending", statuses: shown.map(withoutData) };
  const key = midKey(input.gateway, input.brand);
  if (!shown.some((s) => s.state === "done" && midSums(s.result.data).has(key))) {
    throw ApiError.badRequest(`MID ${input.gateway} (${input.brand}) is not among the MIDs the Monitor shows for ${program.name} in ${month.month}`, [{ path: "gateway", message: "not shown by the Monitor" }]);
  }
  const filters = { gateway_id: [input.gateway], card_brand: [input.brand] };
  const base = { start_date: month.start, end_date: month.end, filters };
  const metrics = ["cb_count_by_cb_date", "cb_amount_by_cb_date"];
  const queries: ReportQuery[] = [
    { ...base, group_by: ["date", "alert_type"], metrics: [SALES_METRIC, "cb_count_by_cb_date", "alert_count_by_alert_date"] },
    { ...base, group_by: ["bin"], metrics },
    { ...base, group_by: ["bank"], metrics },
  ];
  // The preceding month's sales, for a programme that divides by them (the Monitor has it cached).
  if (program.denominator.month === "preceding") {
    const prev = all.find((m) => m.month === previousMonth(month.month))!;
    queries.push({ start_date: prev.start, end_date: prev.end, filters, group_by: ["card_brand"], metrics: [SALES_METRIC] });
  }
  const settled = await settleAll(gateway, queries, owner, waitMs);
  if (anyFailed(settled)) {
    // Not "pending": the page would ask again at once and spend the calls again.
    throw new ApiError(503, "Part of this drill-down could not be fetched from the reporting service. Close it and open it again in a minute.");
  }
  const data = settled.flatMap((s) => (s.state === "done" ? [s.result.data] : []));
  if (data.length < settled.length) return { kind: "pending", statuses: settled.map(withoutData) };
  const [daily, bins, banks, prevSales] = data;
  const byDay = new Map<string, { numerator: number; sales: number }>();
  for (const r of daily!) {
    const d = String(r.date);
    const e = byDay.get(d) ?? { numerator: 0, sales: 0 };
    if (program.numerator.chargebacks) e.numerator += units(r, "cb_count_by_cb_date");
    if (typeof r.alert_type === "string" && (program.numerator.alertTypes as readonly string[]).includes(r.alert_type)) e.numerator += units(r, "alert_count_by_alert_date");
    e.sales += units(r, SALES_METRIC);
    byDay.set(d, e);
  }
  const preceding = prevSales ? prevSales.reduce((s, r) => s + units(r, SALES_METRIC), 0) : 0;
  const trend: Extract<DrillAnswer, { kind: "ok" }>["trend"] = [];
  let numerator = 0;
  let sales = 0;
  for (let d = month.start; d <= month.end; d = addDays(d, 1)) {
    const e = byDay.get(d);
    numerator += e?.numerator ?? 0;
    sales += e?.sales ?? 0;
    const denominator = program.denominator.month === "preceding" ? preceding : sales;
    trend.push({ date: d, numerator, denominator, ratio: denominator > 0 ? numerator / denominator : null });
  }
  return {
    kind: "ok",
    month,
    trend,
    thresholds: thresholdsInForce(program, month.month),
    byBin: topAndRest(bins!, "bin"),
    byBank: topAndRest(banks!, "bank"),
    links: {
      byDay: exploreLinkFor(month, input.gateway, input.brand, "date"),
      byBin: exploreLinkFor(month, input.gateway, input.brand, "bin"),
      byBank: exploreLinkFor(month, input.gateway, input.brand, "bank"),
    },
  };
}
