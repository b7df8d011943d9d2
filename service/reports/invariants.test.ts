/**
 * SPEC §2.3–§3 invariants on the demo data set of `npm start` (DEMO_DATASET: its 400 days and seed,
 * at a fifth of its orders a day), read over real HTTP. Every metric is a sum, so an inequality or
 * identity that holds for every record at the finest grain holds for every coarser group too; the
 * finest grain is checked over the service's own grain table (every day and every group), and the
 * answers users read over HTTP are checked for every day, by several groupings, and at the finest
 * grain for the last week.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays, daysBetween, getMetric, type ReportRecord, type ReportRequest } from "@/lib/contract";
import { DEMO_DATASET } from "../data/generator";
import { startTestService, type TestService } from "../testing/harness";

const END = "2025-07-31";
const START = addDays(END, -(DEMO_DATASET.days - 1));
/** The whole data set in ranges the contract allows (at most 100 days after the start). */
const WINDOWS: { start_date: string; end_date: string }[] = [];
for (let s = START; s <= END; s = addDays(s, 101)) {
  const e = addDays(s, 100);
  WINDOWS.push({ start_date: s, end_date: e < END ? e : END });
}

/**
 * Every invariant here holds row by row (and every metric is a sum), so it does not depend on how
 * many orders a day holds; the days do matter (every window, every cohort's later cycles and events).
 * A fifth of the demo's orders, about 300 k attempts, keeps the last week at the finest grain over
 * three pages of 1,000 records, so reading every page is still checked.
 */
const DATA = { ...DEMO_DATASET, ordersPerDay: DEMO_DATASET.ordersPerDay / 5, endDate: END };

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ data: DATA, env: { REPORT_RATE_LIMIT: "1000000" } });
});
afterAll(async () => svc.stop());

/** Every record of a request, all pages. */
async function all(path: "/api/data" | "/api/data/cohort", req: ReportRequest): Promise<ReportRecord[]> {
  const out: ReportRecord[] = [];
  for (let offset = 0; ; offset += 1000) {
    const res = await svc.post(path, { ...req, offset });
    const body = (await res.json()) as { data: ReportRecord[]; pagination: { has_more: boolean } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    out.push(...body.data);
    if (!body.pagination.has_more) return out;
  }
}

/** Sums of `metrics` over the whole data set: counts as they are, amounts in exact cents. */
async function totals(path: "/api/data" | "/api/data/cohort", metrics: string[]): Promise<Record<string, number>> {
  const sums: Record<string, number> = Object.fromEntries(metrics.map((m) => [m, 0]));
  for (const w of WINDOWS) {
    const [row] = await all(path, { ...w, group_by: [], metrics });
    for (const m of metrics) {
      const v = Number(row?.[m] ?? 0);
      sums[m]! += getMetric(m)?.type === "amount" ? Math.round(v * 100) : v;
    }
  }
  return sums;
}

const n = (r: ReportRecord, k: string) => r[k] as number;

function expectApprovalInvariants(records: ReportRecord[]): void {
  for (const r of records) {
    expect(n(r, "approvals_organic"), JSON.stringify(r)).toBeLessThanOrEqual(n(r, "approvals"));
    expect(n(r, "approvals"), JSON.stringify(r)).toBeLessThanOrEqual(n(r, "net_approvals"));
    expect(n(r, "initial_approved") + n(r, "rebills_approved"), JSON.stringify(r)).toBe(n(r, "approvals"));
  }
}

const APPROVALS = ["approvals_organic", "approvals", "net_approvals", "initial_approved", "rebills_approved"];

describe("approvals_organic ≤ approvals ≤ net_approvals and initial_approved + rebills_approved = approvals", () => {
  it("in every row of the order grain: every day and every group", async () => {
    const [row] = await svc.db.all<{ rows: number; days: number; broken: number }>(
      `SELECT count(*)::INTEGER AS rows, count(DISTINCT "date")::INTEGER AS days,
         count(*) FILTER (NOT (approvals_organic <= approvals AND approvals <= net_approvals
                              AND initial_approved + rebills_approved = approvals))::INTEGER AS broken
       FROM order_grain`,
    );
    expect(row?.days).toBe(DEMO_DATASET.days);
    // Many groups a day (about 720 at this size): the grain, not a few totals, is what is checked.
    expect(row?.rows).toBeGreaterThan(500 * DATA.days);
    expect(row?.broken).toBe(0);
  });

  it.each([[["date"]], [["date", "gateway_id"]], [["date", "campaign_id", "sales_type"]], [["date", "bank", "card_type"]]])(
    "in every record over HTTP, every day of the data set, grouped by %j",
    async (group_by) => {
      const days = new Set<string>();
      for (const w of WINDOWS) {
        const data = await all("/api/data", { ...w, group_by, metrics: APPROVALS });
        expectApprovalInvariants(data);
        for (const r of data) days.add(String(r.date));
      }
      expect(days.size).toBe(DEMO_DATASET.days);
    },
    120_000,
  );

  it("in every record of the last week at the finest grain (no group_by)", async () => {
    const data = await all("/api/data", { start_date: addDays(END, -6), end_date: END, metrics: APPROVALS });
    // Over three pages of 1,000 (about 3,650 records at this size), so every page is checked.
    expect(data.length).toBeGreaterThan(3_000);
    expectApprovalInvariants(data);
  });
});

describe("each metric counts every event once, whatever its date basis", () => {
  it("over the whole data set, Σ cb_count = Σ cb_count_by_cb_date (and refunds and alerts alike), equal to the facts", async () => {
    const t = await totals("/api/data", [
      "cb_count", "cb_count_by_cb_date", "cb_amount", "cb_amount_by_cb_date",
      "refund_count", "refund_count_by_refund_date", "refund_amount", "refund_amount_by_refund_date",
      "alert_count", "alert_count_by_alert_date", "alert", "alert_by_alert_date",
    ]);
    const facts = async (table: string) => {
      const [r] = await svc.db.all<{ n: number; cents: number }>(`SELECT count(*)::DOUBLE AS n, sum(amount_cents)::DOUBLE AS cents FROM ${table}`);
      return { n: Number(r?.n), cents: Number(r?.cents) };
    };
    const cb = await facts("chargebacks");
    const refunds = await facts("refunds");
    const alerts = await facts("alerts");
    expect(cb.n).toBeGreaterThan(0);
    expect([t.cb_count, t.cb_count_by_cb_date]).toEqual([cb.n, cb.n]);
    expect([t.cb_amount, t.cb_amount_by_cb_date]).toEqual([cb.cents, cb.cents]);
    expect([t.refund_count, t.refund_count_by_refund_date]).toEqual([refunds.n, refunds.n]);
    expect([t.refund_amount, t.refund_amount_by_refund_date]).toEqual([refunds.cents, refunds.cents]);
    expect([t.alert_count, t.alert_count_by_alert_date]).toEqual([alerts.n, alerts.n]);
    expect([t.alert, t.alert_by_alert_date]).toEqual([alerts.cents, alerts.cents]);
  });

  it("over the whole data set, cohorts by initial date add up to the order summaries by event date", async () => {
    const pairs: [cohort: string, orders: string][] = [
      ["attempts_by_initial_date", "attempts"],
      ["approvals_by_initial_date", "approvals"],
      ["revenue_by_initial_date", "revenue"],
      ["cpa", "cpa"],
      ["cb_count_by_initial_date", "cb_count"],
      ["cb_amount_by_initial_date", "cb_amount"],
      ["refund_count_by_initial_date", "refund_count"],
      ["refund_amount_by_initial_date", "refund_amount"],
      ["alert_count_by_initial_date", "alert_count"],
      ["alert_by_initial_date", "alert"],
      ["initial_approved", "initial_approved"],
      ["rebills_approved", "rebills_approved"],
    ];
    const cohort = await totals("/api/data/cohort", pairs.map(([c]) => c));
    const orders = await totals("/api/data", pairs.map(([, o]) => o));
    for (const [c, o] of pairs) expect([c, cohort[c]]).toEqual([c, orders[o]]);
    expect(cohort.rebills_approved).toBeGreaterThan(0);
  });

  it("per initial date, initial_approved + rebills_approved = approvals_by_initial_date", async () => {
    for (const w of WINDOWS) {
      const data = await all("/api/data/cohort", { ...w, group_by: ["date"], metrics: ["approvals_by_initial_date", "initial_approved", "rebills_approved"] });
      expect(data.length).toBe(daysBetween(w.start_date, w.end_date) + 1);
      for (const r of data) expect(n(r, "initial_approved") + n(r, "rebills_approved")).toBe(n(r, "approvals_by_initial_date"));
    }
  });
});
