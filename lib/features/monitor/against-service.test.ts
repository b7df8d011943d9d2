/**
 * The Monitor against the real service: a generated dataset (declines retried and cascaded) in which
 * one Mastercard MID is made to breach Mastercard's Excessive Chargeback Program in June 2025, by
 * importing its chargebacks through the product's importer. The Monitor's loader (report gateway →
 * four monthly reports → programmes) puts that MID first among June's Mastercard rows as "excessive",
 * with the numerator, denominator and ratio of direct service calls over exactly June (chargebacks
 * by chargeback date) and May (sales), MID by MID; no other MID is excessive; it costs four upstream
 * calls from cold and none warm; and the disputes equal direct sums of chargebacks and alerts by type.
 *
 * A MID's sales are every approved attempt it settled, cascades included: every row's denominator,
 * and the drill-down's, equals a count of approved attempts read with SQL straight from the DuckDB
 * file, and the data holds approved cascades on those MIDs, so a Monitor that left them out fails.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toCents } from "@/lib/contract/money";
import type { ReportRecord } from "@/lib/contract/schemas";
import { DEFAULT_MONITOR_CONFIG } from "./definitions";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import type { ImportResult } from "@/service/data/importer";
import { startTestService, type TestService } from "@/service/testing/harness";
import { importChargebackBreach, type BreachPlan } from "@/service/testing/monitor-breach";
import { gatewayFor } from "@/service/testing/test-gateway";
import { loadDrill } from "./drill";
import { loadMonitor, type MonitorAnswer } from "./load";

const TODAY = "2025-07-20";
const JUNE = { start_date: "2025-06-01", end_date: "2025-06-30" };
const MAY = { start_date: "2025-05-01", end_date: "2025-05-31" };
const MC = "MASTERCARD";
const ECP = DEFAULT_MONITOR_CONFIG.programs.find((p) => p.id === "mastercard-ecp")!;
const EXCESSIVE = ECP.thresholds.find((t) => t.level === "excessive")!;
const HIGH = ECP.thresholds.find((t) => t.level === "high_excessive")!;

let svc: TestService;
let plan: BreachPlan;
let imported: ImportResult;

beforeAll(async () => {
  svc = await startTestService({
    data: { days: 150, ordersPerDay: 400, seed: 21, endDate: TODAY },
    env: { REPORT_RATE_LIMIT: "1000000" },
    // Before the service starts: June's chargebacks for one MID, loaded as a user would load an export.
    setup: async (db) => {
      ({ plan, imported } = await importChargebackBreach(db, { month: "2025-06", cardBrand: MC, ratio: EXCESSIVE.ratio, minCount: EXCESSIVE.minCount }));
    },
  });
});

afterAll(async () => {
  await svc?.stop();
});

/** Every record of one direct service call, all pages. */
const direct = (body: Record<string, unknown>): Promise<ReportRecord[]> => svc.allRecords("/api/data", body);

const sum = (records: readonly ReportRecord[], metric: string) => records.reduce((s, r) => s + Number(r[metric] ?? 0), 0);
const sumCents = (records: readonly ReportRecord[], metric: string) => records.reduce((s, r) => s + toCents(Number(r[metric] ?? 0)), 0);

/** One MID's programme figures from two direct calls: June's chargebacks by chargeback date ÷ May's sales (approved attempts, cascades included). */
async function ecpDirect(gatewayId: number): Promise<{ numerator: number; denominator: number }> {
  const filters = { gateway_id: [gatewayId], card_brand: [MC] };
  const [june, may] = await Promise.all([
    direct({ ...JUNE, metrics: ["cb_count_by_cb_date"], filters }),
    direct({ ...MAY, metrics: ["net_approvals"], filters }),
  ]);
  return { numerator: sum(june, "cb_count_by_cb_date"), denominator: sum(may, "net_approvals") };
}

type Ok = Extract<MonitorAnswer, { kind: "ok" }>;

describe("the Monitor over a dataset with one Mastercard MID over the threshold in June", () => {
  // One gateway of the dashboard's, fresh: its cache is cold. Loaded twice, by two viewers.
  let cold: Ok;
  let warm: Ok;
  let coldCalls: number;
  let warmCalls: number;
  beforeAll(async () => {
    const gateway: ReportGateway = gatewayFor(svc);
    const at0 = gateway.client.reportCalls;
    const first = await loadMonitor(gateway, DEFAULT_MONITOR_CONFIG, TODAY, "test", 60_000);
    const at1 = gateway.client.reportCalls;
    const second = await loadMonitor(gateway, DEFAULT_MONITOR_CONFIG, TODAY, "someone else", 60_000);
    const at2 = gateway.client.reportCalls;
    if (first.kind !== "ok" || second.kind !== "ok") throw new Error(`the Monitor did not finish: ${JSON.stringify([first.months, second.months])}`);
    [cold, warm, coldCalls, warmCalls] = [first, second, at1 - at0, at2 - at1];
  });

  it("imports the breach through the importer", () => {
    expect(imported.rejections).toEqual([]);
    expect(imported.inserted).toEqual({ chargebacks: plan.added });
    expect(plan.total).toBeGreaterThanOrEqual(EXCESSIVE.minCount);
    expect(plan.total / plan.sales).toBeGreaterThanOrEqual(EXCESSIVE.ratio);
  });

  it("costs four upstream reports from cold, one per month, and none when loaded again", () => {
    expect(coldCalls).toBe(4);
    expect(cold.months.map((m) => [m.month, m.start, m.end, m.salesOnly])).toEqual([
      ["2025-07", "2025-07-01", TODAY, false],
      ["2025-06", "2025-06-01", "2025-06-30", false],
      ["2025-05", "2025-05-01", "2025-05-31", false],
      ["2025-04", "2025-04-01", "2025-04-30", true],
    ]);
    expect(cold.months.map((m) => m.status.state === "done" && m.status.result.upstream_calls)).toEqual([1, 1, 1, 1]);

    expect(warmCalls).toBe(0);
    expect(warm.months.map((m) => m.status.state === "done" && m.status.result.upstream_calls)).toEqual([0, 0, 0, 0]);
    expect(warm.rows).toEqual(cold.rows);
    expect(warm.disputes).toEqual(cold.disputes);
  });

  it("puts the breached MID first among June's Mastercard rows, excessive, with the figures of direct calls", async () => {
    const june = cold.rows.filter((r) => r.month === "2025-06" && r.programId === ECP.id);
    expect(june.length).toBeGreaterThan(1);
    expect(june.every((r) => r.cardBrand === MC && r.projected === null)).toBe(true);

    const top = june[0]!;
    expect(top.gatewayId).toBe(plan.gatewayId);
    const want = await ecpDirect(plan.gatewayId);
    expect(want).toEqual({ numerator: plan.total, denominator: plan.sales });
    expect(top.actual.numerator).toBe(want.numerator);
    expect(top.actual.denominator).toBe(want.denominator);
    expect(top.actual.ratio).toBe(want.numerator / want.denominator);
    const high = want.numerator >= HIGH.minCount && want.numerator / want.denominator >= HIGH.ratio;
    expect(top.actual.level).toBe(high ? "high_excessive" : "excessive");
    expect(top.actual.threshold).toEqual(high ? HIGH : EXCESSIVE);
  });

  it("shows every other Mastercard MID of June with its direct figures, none of them excessive", async () => {
    const june = cold.rows.filter((r) => r.month === "2025-06" && r.programId === ECP.id);
    // The MIDs with Mastercard sales in May or chargebacks in June, straight from the service.
    const [juneCb, maySales] = await Promise.all([
      direct({ ...JUNE, group_by: ["gateway_id"], metrics: ["cb_count_by_cb_date"], filters: { card_brand: [MC] } }),
      direct({ ...MAY, group_by: ["gateway_id"], metrics: ["net_approvals"], filters: { card_brand: [MC] } }),
    ]);
    const mids = [...new Set([...juneCb, ...maySales].map((r) => Number(r.gateway_id)))].sort((a, b) => a - b);
    expect(june.map((r) => r.gatewayId).sort((a, b) => a - b)).toEqual(mids);

    const others = june.filter((r) => r.gatewayId !== plan.gatewayId);
    expect(others.length).toBe(mids.length - 1);
    for (const row of others) {
      const want = await ecpDirect(row.gatewayId);
      expect([row.gatewayId, row.actual.numerator, row.actual.denominator], `MID ${row.gatewayId}`).toEqual([row.gatewayId, want.numerator, want.denominator]);
      expect(row.actual.ratio).toBe(want.denominator > 0 ? want.numerator / want.denominator : null);
      const excessive = want.denominator > 0 && want.numerator >= EXCESSIVE.minCount && want.numerator / want.denominator >= EXCESSIVE.ratio;
      expect(excessive, `MID ${row.gatewayId}: ${want.numerator} ÷ ${want.denominator}`).toBe(false);
      expect(["excessive", "high_excessive"]).not.toContain(row.actual.level);
    }
  });

  it("divides by every approved attempt on the MID, cascades included, for every programme, MID and month", async () => {
    // Straight from the DuckDB file, not through the service's reports: approved attempts by MID,
    // card brand and month, and how many of them were cascades.
    const settled = await svc.db.all<{ gateway_id: number; card_brand: string; month: string; approved: number; cascades: number }>(
      `SELECT a.gateway_id::INTEGER AS gateway_id, b.card_brand, strftime(a.attempt_date, '%Y-%m') AS month,
              (count(*) FILTER (a.approved))::INTEGER AS approved,
              (count(*) FILTER (a.approved AND a.is_cascade))::INTEGER AS cascades
       FROM attempts a JOIN bins b USING (bin)
       WHERE a.attempt_date BETWEEN $1::DATE AND $2::DATE
       GROUP BY ALL`,
      ["2025-04-01", TODAY],
    );
    const key = (gatewayId: number, brand: string, month: string) => `${gatewayId}|${brand}|${month}`;
    const byKey = new Map(settled.map((r) => [key(Number(r.gateway_id), r.card_brand, r.month), { approved: Number(r.approved), cascades: Number(r.cascades) }]));
    const previous = (month: string) => ({ "2025-07": "2025-06", "2025-06": "2025-05", "2025-05": "2025-04" })[month]!;

    let withCascades = 0;
    const rows = cold.rows.filter((r) => r.month >= "2025-05");
    expect(new Set(rows.map((r) => r.programId))).toEqual(new Set(DEFAULT_MONITOR_CONFIG.programs.map((p) => p.id)));
    for (const row of rows) {
      const program = DEFAULT_MONITOR_CONFIG.programs.find((p) => p.id === row.programId)!;
      const salesMonth = program.denominator.month === "preceding" ? previous(row.month) : row.month;
      const want = byKey.get(key(row.gatewayId, row.cardBrand, salesMonth)) ?? { approved: 0, cascades: 0 };
      expect(row.actual.denominator, `${program.id} MID ${row.gatewayId} ${row.cardBrand} ${row.month} (sales of ${salesMonth})`).toBe(want.approved);
      if (want.cascades > 0) withCascades++;
    }
    // The data has approved cascades on most of these MIDs: leaving them out would fail above.
    expect(withCascades).toBeGreaterThan(rows.length / 2);
  });

  it("draws the drill-down's trend over the same sales: its last day is the row's ratio", async () => {
    const gateway: ReportGateway = gatewayFor(svc);
    const vamp = DEFAULT_MONITOR_CONFIG.programs.find((p) => p.id === "visa-vamp")!;
    const busiestVisa = cold.rows.filter((r) => r.month === "2025-06" && r.programId === vamp.id).sort((a, b) => b.actual.denominator - a.actual.denominator)[0]!;
    const breached = cold.rows.find((r) => r.month === "2025-06" && r.programId === ECP.id && r.gatewayId === plan.gatewayId)!;
    for (const row of [breached, busiestVisa]) {
      const drill = await loadDrill(gateway, DEFAULT_MONITOR_CONFIG, TODAY, "test", 60_000, { program: row.programId, gateway: row.gatewayId, brand: row.cardBrand as "VISA" | "MASTERCARD", month: row.month });
      if (drill.kind !== "ok") throw new Error(`the drill-down did not finish: ${JSON.stringify(drill)}`);
      const last = drill.trend.at(-1)!;
      expect([last.date, last.numerator, last.denominator], `${row.programId} MID ${row.gatewayId}`).toEqual(["2025-06-30", row.actual.numerator, row.actual.denominator]);
      expect(last.ratio).toBe(row.actual.ratio);
    }
    // The same-month programme's denominator grows day by day, to the month's sales on its last day.
    const daily = await loadDrill(gateway, DEFAULT_MONITOR_CONFIG, TODAY, "test", 60_000, { program: vamp.id, gateway: busiestVisa.gatewayId, brand: "VISA", month: "2025-06" });
    if (daily.kind !== "ok") throw new Error("the drill-down did not finish");
    const denominators = daily.trend.map((t) => t.denominator);
    expect(denominators).toEqual([...denominators].sort((a, b) => a - b));
    expect(denominators[0]).toBeLessThan(busiestVisa.actual.denominator);
  });

  it("gives a MID's disputes as direct sums of its chargebacks and alerts by type", async () => {
    const juneDisputes = cold.disputes.filter((d) => d.month === "2025-06");
    // The breached MID, and the MID with the most alerts in June (whatever its brand).
    const alerts = (d: (typeof juneDisputes)[number]) => d.alerts.ETHOCA.count + d.alerts.CDRN.count + d.alerts.RDR.count;
    const busiest = [...juneDisputes].sort((a, b) => alerts(b) - alerts(a) || a.gatewayId - b.gatewayId)[0]!;
    expect(alerts(busiest)).toBeGreaterThan(0);
    const breached = juneDisputes.find((d) => d.gatewayId === plan.gatewayId && d.cardBrand === MC)!;
    expect(breached).toBeDefined();

    for (const row of [breached, busiest]) {
      const records = await direct({
        ...JUNE,
        group_by: ["alert_type"],
        metrics: ["cb_count_by_cb_date", "cb_amount_by_cb_date", "alert_count_by_alert_date", "alert_by_alert_date"],
        filters: { gateway_id: [row.gatewayId], card_brand: [row.cardBrand] },
      });
      const ofType = (t: string) => records.filter((r) => r.alert_type === t);
      const want = {
        chargebacks: sum(records, "cb_count_by_cb_date"),
        chargebackCents: sumCents(records, "cb_amount_by_cb_date"),
        alerts: Object.fromEntries(
          (["ETHOCA", "CDRN", "RDR"] as const).map((t) => [t, { count: sum(ofType(t), "alert_count_by_alert_date"), cents: sumCents(ofType(t), "alert_by_alert_date") }]),
        ),
      };
      expect({ chargebacks: row.chargebacks, chargebackCents: row.chargebackCents, alerts: row.alerts }, `MID ${row.gatewayId} ${row.cardBrand}`).toEqual(want);
      const alertCount = alerts(row);
      expect(row.caughtShare).toBe(alertCount + want.chargebacks > 0 ? alertCount / (alertCount + want.chargebacks) : null);
      const cost = DEFAULT_MONITOR_CONFIG.alertCost;
      expect(row.alertCostCents).toBe(row.alerts.ETHOCA.count * toCents(cost.ETHOCA) + row.alerts.CDRN.count * toCents(cost.CDRN) + row.alerts.RDR.count * toCents(cost.RDR));
      expect(row.preventedCents).toBe(row.alerts.ETHOCA.cents + row.alerts.CDRN.cents + row.alerts.RDR.cents);
    }
    expect(breached.chargebacks).toBe(plan.total);
  });

  it("says a month failed instead of asking again, so a broken month spends no more calls", async () => {
    // A page cap of 0 makes every report fail on its first page.
    const failing = gatewayFor(svc, { pageCap: 0 });
    const answer = await loadMonitor(failing, DEFAULT_MONITOR_CONFIG, TODAY, "failing", 10_000);
    expect(answer.kind).toBe("failed");
    expect(answer.kind !== "ok" && answer.months.every((m) => m.status.state === "failed")).toBe(true);
  });

  it("costs four calls however many people open it at once, and answers them all alike", async () => {
    const cold = gatewayFor(svc);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => loadMonitor(cold, DEFAULT_MONITOR_CONFIG, TODAY, `user-${i % 7}`, 60_000)));
    expect(answers.every((a) => a.kind === "ok")).toBe(true);
    expect(cold.client.reportCalls).toBe(4);
    const rows = (a: MonitorAnswer) => (a.kind === "ok" ? a.rows : null);
    for (const a of answers) expect(rows(a)).toEqual(rows(answers[0]!));
  });
});
