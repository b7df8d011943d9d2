/**
 * Rolled-up and compared cells against the real service: for random ranges, grains, groupings,
 * filters and comparisons, the dashboard's path (report gateway → daily answers → roll-up → table)
 * gives, in every cell, what one direct service call over exactly that row's days gives, summed by
 * this test; a KPI and its change are ratios of those independent sums.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays } from "@/lib/contract/dates";
import { toCents } from "@/lib/contract/money";
import type { ReportQuery, ReportRecord } from "@/lib/contract/schemas";
import { buildViewTable, comparedId } from "@/lib/metrics/table";
import { comparisonRange, type CompareSelection } from "@/lib/periods/compare";
import { TIME_GRAINS } from "@/lib/periods/grain";
import { buildReportView } from "@/lib/periods/view";
import { runThroughGateway } from "@/lib/sharing/service";
import type { ReportGateway } from "@/lib/upstream/gateway";
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
}, 180_000);

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

describe("a rolled-up, compared report, cell by cell", () => {
  it("equals direct service calls over exactly each row's days", async () => {
    const caseArb = fc.record({
      // Ranges whose comparison (up to a year before) stays inside the data.
      startOffset: fc.integer({ min: 400, max: 560 }),
      days: fc.integer({ min: 1, max: 120 }),
      grain: fc.constantFrom(...TIME_GRAINS),
      other: fc.constantFrom(null, "card_brand", "sales_type"),
      filter: fc.constantFrom<Record<string, string[]> | null>(null, { card_type: ["CREDIT", "DEBIT"] }, { sales_type: ["Rebills"] }),
      compare: fc.constantFrom<"previous" | "year" | "custom">("previous", "year", "custom"),
      customBack: fc.integer({ min: 121, max: 380 }),
    });
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const start = addDays(FIRST, c.startOffset);
        const end = addDays(start, Math.min(c.days, 579 - c.startOffset) - 1);
        const range = { start, end };
        const compare: CompareSelection =
          c.compare === "custom" ? { kind: "custom", start: addDays(start, -c.customBack), end: addDays(end, -c.customBack) } : { kind: c.compare };
        const cmpRange = comparisonRange(range, compare)!;
        const groupBy = c.other ? ["date", c.other] : ["date"];
        const filters = c.filter ?? undefined;
        const query: ReportQuery = { start_date: start, end_date: end, group_by: groupBy, metrics: [...METRICS], ...(filters ? { filters } : {}) };
        const [now, before] = await Promise.all([daily(query), daily({ ...query, start_date: cmpRange.start, end_date: cmpRange.end })]);
        const view = buildReportView({
          op: "orders",
          groupBy,
          metrics: METRICS,
          grain: c.grain,
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
            cache.set(key, directOver(from, to, { ...(c.other ? { group_by: [c.other] } : {}), metrics: [...METRICS], ...(filters ? { filters } : {}) }).then((r) => sumsBy(r, c.other)));
          }
          return cache.get(key)!;
        };
        for (const [i, row] of view.rows.entries()) {
          const key = c.other ? String(row.record[c.other] ?? null) : "";
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
        const all = (await expected(start, end)).values();
        const allCmp = (await expected(cmpRange.start, cmpRange.end)).values();
        const total = (it: Iterable<Record<string, number>>) => [...it].reduce((a, s) => a + s.attempts!, 0);
        expect(table.totals.cells[col("attempts")]!.value).toBe(total(all));
        expect(table.totals.cells[col(comparedId("attempts", "cmp"))]!.value).toBe(total(allCmp));
      }),
      { numRuns: 12, seed: Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31) },
    );
  }, 600_000);
});
