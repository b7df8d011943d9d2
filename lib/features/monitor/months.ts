/**
 * The months the Monitor looks at and the request for each: the month to date and the two before
 * it are evaluated, and the month before those is fetched too, for programmes that divide by the
 * preceding month's sales. One report per month, grouped by MID, card brand and alert type: four
 * calls from cold, none from a warm cache (the past months' answers are cached a day).
 */
import type { ReportQuery } from "@/lib/contract/schemas";
import { periodEnd } from "@/lib/report/periods/periods";
import { MONITOR_GROUP_BY, MONITOR_METRICS, previousMonth, SALES_METRIC } from "./evaluate";

export interface MonitorMonth {
  /** YYYY-MM */
  month: string;
  start: string;
  /** The last day fetched: today for the month to date. */
  end: string;
  daysInMonth: number;
  daysElapsed: number;
  /** Only fetched for the preceding month's sales, not shown as a month of its own. */
  salesOnly: boolean;
}


/** Newest first: the month of `today` (to date), the two before, then the sales-only one. */
export function monitorMonths(today: string): MonitorMonth[] {
  const out: MonitorMonth[] = [];
  let month = today.slice(0, 7);
  for (let i = 0; i < 4; i++) {
    const start = `${month}-01`;
    const last = periodEnd(start, "month");
    const end = i === 0 ? today : last;
    const daysInMonth = Number(last.slice(8));
    out.push({ month, start, end, daysInMonth, daysElapsed: Number(end.slice(8)), salesOnly: i === 3 });
    month = previousMonth(month);
  }
  return out;
}

export function monitorQuery(m: Pick<MonitorMonth, "start" | "end">): ReportQuery {
  return { start_date: m.start, end_date: m.end, group_by: [...MONITOR_GROUP_BY], metrics: [...MONITOR_METRICS] };
}

/** The Explore link that shows a MID's numbers for a month (by day, chargebacks by chargeback date, alerts by type). */
export function exploreLinkFor(m: Pick<MonitorMonth, "start" | "end">, gatewayId: number, cardBrand: string, by: "date" | "bin" | "bank" = "date"): string {
  const p = new URLSearchParams({
    op: "orders",
    range: `${m.start}..${m.end}`,
    by: by === "date" ? "date" : by,
    m: `${SALES_METRIC},cb_count_by_cb_date,cb_amount_by_cb_date,alert_count_by_alert_date`,
    "f.gateway_id": String(gatewayId),
    "f.card_brand": cardBrand,
  });
  return `/explore?${p.toString()}`;
}
