/**
 * Rolled-up and compared cells against the real service: for random ranges, grains, groupings,
 * filters and comparisons, the dashboard's path (report gateway → daily answers → roll-up → table)
 * gives, in every cell, what one direct service call over exactly that row's days gives, summed by
 * this test; a KPI and its change are ratios of those independent sums. Calendar comparisons (the
 * previous calendar period, custom ranges of whole months) too: each month's compared values are one
 * direct call over exactly its compared month.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays } from "@/lib/contract/dates";
import { toCents } from "@/lib/contract/money";
import type { ReportQuery, ReportRecord } from "@/lib/contract/schemas";
import { buildViewTable, comparedId } from "@/lib/report/table/table";
import { comparisonRange, type CompareSelection } from "@/lib/report/periods/compare";
import { TIME_GRAINS, type DayRange, type TimeGrain } from "@/lib/report/periods/grain";
import { periodEnd } from "@/lib/report/periods/periods";
import { buildReportView } from "@/lib/report/periods/view";
import { runThroughGateway } from "@/lib/features/sharing/service";
import type { ReportGateway } from "@/lib/core/upstream/gateway";
import { startTestService, type TestService } from "@/service/testing/harness";
import { gatewayFor } from "@/service/testing/test-gateway";

const END = "2025-07-31";
// Over a year and a half of days, so that last year's period exists, 29 February 2024 included.
const FIRST = addDays(END, -579);
const METRICS = ["attempts", "approvals", "revenue", "cb_count", "refund_amount"] as const;
const KPIS = ["approval_rate"] as const;

let svc: TestService;
let gateway: ReportGateway;

beforeAll(async () => {
  svc = await startTestService({ data: { days: 580, ordersPerDay: 12, seed: 16, endDate: END }, env: { REPORT_RATE_LIMIT: "1000000" } });
  gateway = gatewayFor(svc);
});

afterAll(async () => {
  await svc?.stop();
});

/** Every record of direct service calls over `from`..`to`, in calls of at most 100 days, all pages. */
async function directOver(from: string, to: string, body: Record<string, unknown>): Promise<ReportRecord[]> {
  const out: ReportRecord[] = [];
  for (let a = from; a <= to; a = addDays(a, 100)) {
    const b = addDays(a, 99) < to ? addDays(a, 99) : to;
    out.push(...(await direct({ ...body, start_date: a, end_date: b })));
  }
  return out;
}

/** Every record of one direct service call, all pages. */
const direct = (body: Record<string, unknown>): Promise<ReportRecord[]> => svc.allRecords("/api/data", body);

async function daily(query: ReportQuery): Promise<ReportRecord[]> {
  const run = await runThroughGateway(gateway, "orders", query, 60_000, "property-test");
  if (!("done" in run)) throw new Error("the report did not finish");
  return run.done.data;
}

/** Sums of the metrics, in integer units, of records keyed by the `other` dimension's value. */
function sumsBy(records: readonly ReportRecord[], other: string | null): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const r of records) {
    const key = other ? String(r[other] ?? null) : "";
    const s = out.get(key) ?? Object.fromEntries(METRICS.map((m) => [m, 0]));
    for (const m of METRICS) s[m]! += m === "revenue" || m === "refund_amount" ? toCents(Number(r[m] ?? 0)) : Number(r[m] ?? 0);
    out.set(key, s);
  }
  return out;
}

const zero = () => Object.fromEntries(METRICS.map((m) => [m, 0])) as Record<string, number>;

interface Case {
  range: DayRange;
  compare: CompareSelection;
  grain: TimeGrain;
  other: string | null;
  filters: Record<string, string[]> | undefined;
}

/**
 * Runs the report through the dashboard's path and checks every row's cells, and the totals, against
 * direct service calls over exactly the row's days and its compared days. Returns the view's rows.
 */
async function checkCase(c: Case) {
  const { range, compare, grain, other, filters } = c;
  const cmpRange = comparisonRange(range, compare)!;
  const groupBy = other ? ["date", other] : ["date"];
  const query: ReportQuery = { start_date: range.start, end_date: range.end, group_by: groupBy, metrics: [...METRICS], ...(filters ? { filters } : {}) };
  const [now, before] = await Promise.all([daily(query), daily({ ...query, start_date: cmpRange.start, end_date: cmpRange.end })]);
  const view = buildReportView({
    op: "orders",
    groupBy,
    metrics: METRICS,
    grain,
    range,
    records: now,
    comparison: { compare, range: cmpRange, records: before },
  });
  const measures = [...METRICS, ...KPIS];
  const table = buildViewTable({ op: "orders", groupBy, measures }, view);
  const col = (id: string) => table.columns.findIndex((x) => x.id === id);

  // One direct call per row period for each side, grouped by the other dimension only.
  const cache = new Map<string, Promise<Map<string, Record<string, number>>>>();
  const expected = (from: string, to: string) => {
    const key = `${from}..${to}`;
    if (!cache.has(key)) {
      cache.set(key, directOver(from, to, { ...(other ? { group_by: [other] } : {}), metrics: [...METRICS], ...(filters ? { filters } : {}) }).then((r) => sumsBy(r, other)));
    }
    return cache.get(key)!;
  };
  for (const [i, row] of view.rows.entries()) {
    const key = other ? String(row.record[other] ?? null) : "";
    const cur = row.period && !row.unaligned ? ((await expected(row.period.from, row.period.to)).get(key) ?? zero()) : zero();
    const cmp = row.compared ? ((await expected(row.compared.start, row.compared.end)).get(key) ?? zero()) : zero();
    const cells = table.rows[i]!.cells;
    for (const m of METRICS) {
      const money = m === "revenue" || m === "refund_amount";
      const shown = (id: string) => {
        const v = cells[col(id)]!.value as number;
        return money ? toCents(v) : v;
      };
      expect(shown(m), `${m} ${row.period?.label} ${key}`).toBe(cur[m]);
      expect(shown(comparedId(m, "cmp")), `${m} compared ${row.compared?.start} ${key}`).toBe(cmp[m]);
      expect(shown(comparedId(m, "chg"))).toBe(cur[m]! - cmp[m]!);
    }
    // KPIs: ratios of the independent sums, and their change in points.
    const rate = (s: Record<string, number>) => (s.attempts === 0 ? null : s.approvals! / s.attempts!);
    const r0 = rate(cur);
    const r1 = rate(cmp);
    const ar = cells[col("approval_rate")]!.value;
    if (r0 === null) expect(ar).toBeNull();
    else expect(ar as number).toBeCloseTo(r0, 12);
    const chg = cells[col(comparedId("approval_rate", "chg"))]!.value;
    if (r0 === null || r1 === null) expect(chg).toBeNull();
    else expect(chg as number).toBeCloseTo(r0 - r1, 12);
  }
  // The totals: the whole range against the whole comparison.
  const all = (await expected(range.start, range.end)).values();
  const allCmp = (await expected(cmpRange.start, cmpRange.end)).values();
  const total = (it: Iterable<Record<string, number>>) => [...it].reduce((a, s) => a + s.attempts!, 0);
  expect(table.totals.cells[col("attempts")]!.value).toBe(total(all));
  expect(table.totals.cells[col(comparedId("attempts", "cmp"))]!.value).toBe(total(allCmp));
  return { view, table, col };
}

const filterArb = fc.constantFrom<Record<string, string[]> | null>(null, { card_type: ["CREDIT", "DEBIT"] }, { sales_type: ["Rebills"] });
const otherArb = fc.constantFrom(null, "card_brand", "sales_type");

describe("a rolled-up, compared report, cell by cell", () => {
  it("equals direct service calls over exactly each row's days", async () => {
    const caseArb = fc.record({
      // Ranges whose comparison (up to a year before) stays inside the data.
      startOffset: fc.integer({ min: 400, max: 560 }),
      days: fc.integer({ min: 1, max: 120 }),
      grain: fc.constantFrom(...TIME_GRAINS),
      other: otherArb,
      filter: filterArb,
      compare: fc.constantFrom<"previous" | "year" | "custom">("previous", "year", "custom"),
      customBack: fc.integer({ min: 121, max: 380 }),
    });
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const start = addDays(FIRST, c.startOffset);
        const end = addDays(start, Math.min(c.days, 579 - c.startOffset) - 1);
        const compare: CompareSelection =
          c.compare === "custom" ? { kind: "custom", start: addDays(start, -c.customBack), end: addDays(end, -c.customBack) } : { kind: c.compare };
        await checkCase({ range: { start, end }, compare, grain: c.grain, other: c.other, filters: c.filter ?? undefined });
      }),
      { numRuns: 12, seed: Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31) },
    );
  }, 600_000);

  it("compared by calendar month (previous calendar period, or a custom range of as many whole months) equals direct calls over each compared month", async () => {
    // Whole months from January 2024 (the data starts 2023-12-29) to July 2025, the comparison inside the data too.
    const month = (i: number) => `${2024 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, "0")}-01`;
    const caseArb = fc
      .record({
        count: fc.integer({ min: 1, max: 4 }),
        startMonth: fc.integer({ min: 4, max: 18 }),
        grain: fc.constantFrom(...TIME_GRAINS),
        other: otherArb,
        filter: filterArb,
        custom: fc.option(fc.integer({ min: 1, max: 8 }), { nil: null }),
      })
      .filter((c) => c.startMonth + c.count - 1 <= 18 && c.startMonth - c.count - (c.custom ?? 0) >= 0);
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const range = { start: month(c.startMonth), end: periodEnd(month(c.startMonth + c.count - 1), "month") };
        const first = c.startMonth - c.count - (c.custom ?? 0);
        const compare: CompareSelection =
          c.custom === null ? { kind: "calendar" } : { kind: "custom", start: month(first), end: periodEnd(month(first + c.count - 1), "month") };
        await checkCase({ range, compare, grain: c.grain, other: c.other, filters: c.filter ?? undefined });
      }),
      { numRuns: 10, seed: Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31) },
    );
  }, 600_000);

  it("Q2 2025 against Q1 by month: April beside January, May beside February (28 days), June beside March, each from its own direct call", async () => {
    const { view, table, col } = await checkCase({ range: { start: "2025-04-01", end: "2025-06-30" }, compare: { kind: "calendar" }, grain: "month", other: null, filters: undefined });
    const months: [string, string, string][] = [
      ["2025-04", "2025-01-01", "2025-01-31"],
      ["2025-05", "2025-02-01", "2025-02-28"],
      ["2025-06", "2025-03-01", "2025-03-31"],
    ];
    expect(view.rows.map((r) => r.period!.label)).toEqual(months.map((m) => m[0]));
    for (const [i, [, from, to]] of months.entries()) {
      // Independently: one call over exactly that month, summed here.
      const direct = sumsBy(await directOver(from, to, { metrics: [...METRICS] }), null).get("") ?? zero();
      const cells = table.rows[i]!.cells;
      expect(toCents(cells[col(comparedId("revenue", "cmp"))]!.value as number)).toBe(direct.revenue);
      expect(cells[col(comparedId("approvals", "cmp"))]!.value).toBe(direct.approvals);
      expect(view.rows[i]!.compared).toEqual({ start: from, end: to });
    }
    // A leap February: May 2024 beside February 2024, all 29 days.
    const leap = await checkCase({ range: { start: "2024-04-01", end: "2024-06-30" }, compare: { kind: "calendar" }, grain: "month", other: null, filters: undefined });
    expect(leap.view.rows.map((r) => r.compared)).toEqual([
      { start: "2024-01-01", end: "2024-01-31" },
      { start: "2024-02-01", end: "2024-02-29" },
      { start: "2024-03-01", end: "2024-03-31" },
    ]);
  }, 600_000);
});
