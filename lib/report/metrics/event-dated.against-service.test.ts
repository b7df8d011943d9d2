/**
 * Event-dated rates and maturity against the real service: the dashboard's path (report gateway →
 * daily answers → roll-up → table) gives, for every month and the totals, an event-dated rate equal
 * to the events received over exactly those days ÷ the approvals of those days, each summed here from
 * direct service calls; and the attempt-dated rate of the same rows is marked maturing exactly when
 * the row's last day is later than today − its window.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays } from "@/lib/contract/dates";
import { toCents } from "@/lib/contract/money";
import type { ReportQuery, ReportRecord } from "@/lib/contract/schemas";
import { measureFor, measureMetrics } from "@/lib/report/metrics/kpis";
import { MATURITY_WINDOW_DAYS } from "@/lib/contract/catalog";
import { EVENT_DATED_KPIS } from "@/lib/report/metrics/maturity";
import { buildViewTable } from "@/lib/report/table/table";
import { buildReportView } from "@/lib/report/periods/view";
import { runThroughGateway } from "@/lib/features/sharing/service";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";

const END = "2025-07-31";
// Maturity is judged as of the data's last day, so recent months are maturing and older ones are not.
const TODAY = END;
const ATTEMPT_DATED = Object.keys(EVENT_DATED_KPIS);
const EVENT_DATED = Object.values(EVENT_DATED_KPIS);
const KPI_IDS = [...ATTEMPT_DATED, ...EVENT_DATED];
const METRICS = [...new Set(KPI_IDS.flatMap((id) => measureMetrics(measureFor(id, "orders")!)))];

let svc: TestService;
let gateway: ReportGateway;

beforeAll(async () => {
  svc = await startTestService({ data: { days: 240, ordersPerDay: 20, seed: 33, endDate: END }, env: { REPORT_RATE_LIMIT: "1000000" } });
  gateway = gatewayFor(svc);
});

afterAll(async () => {
  await svc?.stop();
});

/** Sums of `metrics` over exactly `from`..`to`, from direct service calls of at most 100 days (by card brand, added here; amounts in cents). */
async function directSums(from: string, to: string, metrics: readonly string[]): Promise<Record<string, number>> {
  const records: ReportRecord[] = [];
  for (let a = from; a <= to; a = addDays(a, 100)) {
    const b = addDays(a, 99) < to ? addDays(a, 99) : to;
    records.push(...(await svc.allRecords("/api/data", { start_date: a, end_date: b, group_by: ["card_brand"], metrics })));
  }
  const out: Record<string, number> = Object.fromEntries(metrics.map((m) => [m, 0]));
  const amount = (m: string) => m === "revenue" || m.startsWith("cb_amount");
  for (const r of records) for (const m of metrics) out[m]! += amount(m) ? toCents(Number(r[m] ?? 0)) : Number(r[m] ?? 0);
  return out;
}

async function daily(query: ReportQuery): Promise<ReportRecord[]> {
  const run = await runThroughGateway(gateway, "orders", query, 60_000, "event-dated-test");
  if (!("done" in run)) throw new Error("the report did not finish");
  return run.done.data;
}

describe("event-dated rates against direct service calls", () => {
  it("equal the events received over exactly each month's days ÷ its approvals, and only the attempt-dated ones mature", async () => {
    // Seven months up to the data's last day: the first ones mature for every window, the last ones not.
    const range = { start: "2025-01-01", end: END };
    const query: ReportQuery = { start_date: range.start, end_date: range.end, group_by: ["date"], metrics: METRICS };
    const view = buildReportView({ op: "orders", groupBy: ["date"], metrics: METRICS, grain: "month", range, records: await daily(query) });
    const table = buildViewTable({ op: "orders", groupBy: ["date"], measures: KPI_IDS }, view, { today: TODAY });
    const col = (id: string) => table.columns.findIndex((c) => c.id === id);
    expect(view.rows.length).toBe(7);

    const check = async (cells: (id: string) => { value: unknown; maturing?: true }, from: string, to: string) => {
      const s = await directSums(from, to, ["approvals", "revenue", "cb_count_by_cb_date", "cb_amount_by_cb_date", "refund_count_by_refund_date", "alert_count_by_alert_date"]);
      expect(s.cb_count_by_cb_date, `chargebacks received ${from}..${to}`).toBeGreaterThan(0);
      expect(cells("cb_rate_count_by_cb_date").value).toBeCloseTo(s.cb_count_by_cb_date! / s.approvals!, 12);
      expect(cells("cb_rate_amount_by_cb_date").value).toBeCloseTo(s.cb_amount_by_cb_date! / s.revenue!, 12);
      expect(cells("refund_rate_by_refund_date").value).toBeCloseTo(s.refund_count_by_refund_date! / s.approvals!, 12);
      expect(cells("alert_rate_by_alert_date").value).toBeCloseTo(s.alert_count_by_alert_date! / s.approvals!, 12);
      for (const id of EVENT_DATED) expect(cells(id).maturing, `${id} ${from}..${to}`).toBeUndefined();
      // Attempt-dated: maturing exactly when the last day is later than today − the window.
      const windows: Record<string, number> = { cb_rate_count: MATURITY_WINDOW_DAYS.chargebacks, cb_rate_amount: MATURITY_WINDOW_DAYS.chargebacks, refund_rate: MATURITY_WINDOW_DAYS.refunds, alert_rate: MATURITY_WINDOW_DAYS.alerts };
      for (const id of ATTEMPT_DATED) expect(cells(id).maturing === true, `${id} ${from}..${to}`).toBe(to > addDays(TODAY, -windows[id]!));
    };

    for (const row of table.rows) {
      const p = view.rows[Number(row.key)]!.period!;
      await check((id) => row.cells[col(id)]!, p.from, p.to);
    }
    await check((id) => table.totals.cells[col(id)]!, range.start, range.end);
    // The window's edge on real months: March ends 152 days before today (mature for every window),
    // June 31 days before (maturing for every window), April 112 (chargebacks maturing, refunds not).
    const month = (label: string) => table.rows.find((r) => r.cells[0]!.text === label)!;
    expect(month("2025-04").cells[col("cb_rate_count")]!.maturing).toBe(true);
    expect(month("2025-04").cells[col("refund_rate")]!.maturing).toBeUndefined();
    expect(month("2025-03").cells[col("cb_rate_count")]!.maturing).toBeUndefined();
  });
});
