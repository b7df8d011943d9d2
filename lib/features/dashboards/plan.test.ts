/**
 * The dashboard query planner: hand-built tile sets for each rule, and random tile sets on which every
 * tile must still be derivable from its planned source (and, over synthetic facts, derive to exactly
 * what its own query would have answered) while the plan never costs more than one query per tile.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CARD_BRANDS, LIMITS, METRICS as CATALOG_METRICS, dimensionsFor, type Operation } from "@/lib/contract/catalog";
import { addDays, daysBetween } from "@/lib/contract/dates";
import { OPERATION_SCHEMAS } from "@/lib/contract/operation-schemas";
import type { FilterScalar } from "@/lib/contract/requests";
import type { ReportRecord } from "@/lib/contract/records";
import { comparisonRange } from "@/lib/report/periods/compare";
import { canDerive, derive } from "@/lib/core/upstream/derive";
import { ReportFetcher } from "@/lib/core/upstream/fetcher";
import { aggregate, canonicalQuery, effectiveGroupBy, effectiveMetrics, matchesFilter, queryKey, type ReportQuery } from "@/lib/core/upstream/records";
import { planQueries, type Plan, type PlanRequest } from "./plan";
import { contractProblem, mergeQueries, normalizeQuery } from "@/lib/features/dashboards/plan-queries";
import { cohortCycles, estimateRows } from "@/lib/features/dashboards/plan-rows";

const MARCH = { start_date: "2025-03-01", end_date: "2025-03-31" };
const req = (key: string, query: ReportQuery, op: Operation = "orders"): PlanRequest => ({ key, op, query });

/** Rules 1 and 5, and the shape every plan must have, whatever the input. */
function checkPlan(requests: readonly PlanRequest[], plan: Plan, pageCap: number) {
  const distinct = new Set(requests.map((r) => queryKey(r.op, normalizeQuery(r.op, r.query))));
  expect(plan.queries.length).toBeLessThanOrEqual(distinct.size);
  const total = plan.queries.reduce((s, q) => s + q.estimatedCalls, 0);
  expect(total).toBeLessThanOrEqual(plan.naiveCalls);
  expect(plan.queries.flatMap((q) => q.serves).sort()).toEqual(requests.map((r) => r.key).sort());
  for (const [i, q] of plan.queries.entries()) {
    const order = q.serves.map((k) => requests.findIndex((r) => r.key === k));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    for (const k of q.serves) expect(plan.sourceOf[k]).toBe(i);
    expect(canonicalQuery(q.op, q.query)).toEqual(q.query);
    if (q.problem === undefined) {
      // What the gateway would read is exactly what was planned (no spelling left to normalise).
      const parsed = OPERATION_SCHEMAS[q.op].query.safeParse(q.query);
      expect(parsed.success, JSON.stringify(q.query)).toBe(true);
      if (parsed.success) expect(canonicalQuery(q.op, parsed.data)).toEqual(q.query);
    }
    // A query serving several distinct requests was made by merging: it must be one the fetcher takes.
    const own = new Set(q.serves.map((k) => queryKey(q.op, plan.canonical[k]!)));
    if (own.size > 1 && !own.has(queryKey(q.op, q.query))) expect(q.estimatedCalls).toBeLessThanOrEqual(pageCap);
  }
  for (const r of requests) {
    const src = plan.queries[plan.sourceOf[r.key]!]!;
    expect(src.op).toBe(r.op);
    expect(canDerive(r.op, plan.canonical[r.key]!, src.query)).toBe(true);
  }
}

describe("estimateRows", () => {
  it("counts days for date and multiplies the other dimensions", () => {
    expect(estimateRows("orders", { ...MARCH, group_by: [] })).toBe(1);
    expect(estimateRows("orders", { ...MARCH, group_by: ["date"] })).toBe(31);
    expect(estimateRows("orders", { ...MARCH, group_by: ["date", "card_brand"] })).toBe(31 * 5);
    expect(estimateRows("orders", { ...MARCH, group_by: ["card_brand", "sales_type"] })).toBe(15);
  });

  it("adds nothing for a name (or attribute) next to its id", () => {
    const g = (group_by: string[]) => estimateRows("orders", { ...MARCH, group_by });
    expect(g(["gateway_id", "gateway_alias"])).toBe(g(["gateway_id"]));
    expect(g(["product_id", "product_name", "product_group"])).toBe(g(["product_id"]));
    expect(g(["campaign_name", "campaign_id"])).toBe(g(["campaign_id"]));
    expect(g(["bin", "bank", "card_brand", "card_type"])).toBe(g(["bin"]));
    // Acquirer × MCC cannot have more pairs than there are gateways.
    expect(g(["acquirer", "mcc"])).toBe(g(["gateway_id"]));
  });

  it("caps a filtered dimension at its number of values", () => {
    const q = (filters: ReportQuery["filters"], group_by = ["date", "gateway_id"]) => estimateRows("orders", { ...MARCH, group_by, filters });
    expect(q({ gateway_id: [1, 2] })).toBe(31 * 2);
    expect(q({ gateway_id: 7 })).toBe(31);
    expect(q({ gateway_alias: ["Wells 01"] }, ["gateway_id", "gateway_alias"])).toBe(1);
    expect(q({ date: ["2025-03-02", "2025-03-05"] })).toBe(2 * 20);
    // A filter on a dimension not grouped leaves the grouping's rows alone.
    expect(q({ card_brand: "VISA" })).toBe(31 * 20);
  });

  it("uses observed cardinalities over the defaults", () => {
    const seen = (d: string) => (d === "gateway_id" ? 7 : undefined);
    expect(estimateRows("orders", { ...MARCH, group_by: ["date", "gateway_id"] }, seen)).toBe(31 * 7);
    expect(estimateRows("orders", { ...MARCH, group_by: ["date", "card_brand"] }, seen)).toBe(31 * 5);
  });

  it("never predicts more rows in a day than a day has facts", () => {
    const perDay = estimateRows("orders", { ...MARCH, group_by: ["bin", "sub_affid"] });
    expect(perDay).toBe(31 * 25_000);
    expect(estimateRows("orders", { ...MARCH, group_by: ["date", "bin", "sub_affid"] })).toBe(31 * 25_000);
    // No group_by is the finest grain, not a total.
    expect(estimateRows("cohort", { ...MARCH })).toBe(31 * 25_000);
  });
});

describe("a cohort's billing cycles", () => {
  const TODAY = "2025-10-20";
  const cohort = (start: string, end: string, group_by: string[], today?: string, seen?: (d: string) => number | undefined) =>
    estimateRows("cohort", { start_date: start, end_date: end, group_by }, seen, today);

  it("counts the cycles that can have come round since each initial date", () => {
    // The initial order alone until the shortest trial has passed, then one more a month at most.
    expect([0, 13, 14, 41, 42, 69, 70].map(cohortCycles)).toEqual([1, 1, 2, 2, 3, 3, 4]);
    expect(cohort(TODAY, TODAY, ["date", "billing_cycle"], TODAY)).toBe(1);
    expect(cohort("2025-10-01", "2025-10-01", ["date", "billing_cycle"], TODAY)).toBe(2);
    // A day is counted by its own age: thirty days of one cycle or two, not thirty of twelve.
    const month = cohort("2025-09-21", "2025-10-20", ["date", "billing_cycle"], TODAY);
    let sum = 0;
    for (let i = 0; i < 30; i++) sum += cohortCycles(29 - i);
    expect(month).toBe(sum);
    expect(month).toBeLessThan(30 * 12);
  });

  it("never counts more cycles than the dimension has (the default, or as seen)", () => {
    expect(cohort("2023-01-01", "2023-01-31", ["date", "billing_cycle"], TODAY)).toBe(31 * 12);
    expect(cohort("2023-01-01", "2023-01-31", ["date", "billing_cycle"], TODAY, (d) => (d === "billing_cycle" ? 7 : undefined))).toBe(31 * 7);
  });

  it("counts the oldest initial date's cycles when the answer is not by date, and every day's other dimensions", () => {
    expect(cohort("2025-07-01", "2025-09-30", ["billing_cycle"], TODAY)).toBe(cohortCycles(daysBetween("2025-07-01", TODAY)));
    expect(cohort("2025-10-20", "2025-10-20", ["date", "billing_cycle", "card_brand"], TODAY)).toBe(5);
  });

  it("counts every cycle when it does not know the day the answers run up to, and leaves other reports alone", () => {
    expect(cohort("2025-10-01", "2025-10-20", ["date", "billing_cycle"])).toBe(20 * 12);
    expect(estimateRows("orders", { start_date: "2025-10-01", end_date: "2025-10-20", group_by: ["date", "billing_cycle"] }, undefined, TODAY)).toBe(20 * 12);
  });

  it("plans a quarter's cohort by initial date and cycle in one page, a year's in more", () => {
    const q = (start: string) => planQueries([req("c", { start_date: start, end_date: "2025-09-30", group_by: ["date", "billing_cycle"] }, "cohort")], { pageCap: 50, today: TODAY });
    expect(q("2025-07-01").queries[0]!.estimatedCalls).toBe(1);
    expect(planQueries([req("c", { start_date: "2025-07-01", end_date: "2025-09-30", group_by: ["date", "billing_cycle"] }, "cohort")], { pageCap: 50 }).queries[0]!.estimatedCalls).toBe(2);
    expect(q("2024-10-01").queries[0]!.estimatedCalls).toBeGreaterThan(4);
  });
});

describe("calls", () => {
  it("splits the range exactly as the fetcher does and pages each piece on its own", () => {
    for (const [days, maxPieceDays] of [[1, undefined], [101, undefined], [102, undefined], [250, undefined], [40, 9], [10, 0]] as const) {
      const query = { start_date: "2025-01-01", end_date: addDays("2025-01-01", days - 1), group_by: ["date", "bin"] };
      const fetcher = new ReportFetcher({ rateWindowSeconds: 1, pageCap: 1, maxPieceDays }, {} as never, {} as never);
      const parts = fetcher.pieces(query);
      const plan = planQueries([req("a", query)], { pageCap: 10, maxPieceDays });
      const q = plan.queries[0]!;
      expect(q.pieces).toBe(parts.length);
      const pages = parts.map((p) => Math.max(1, Math.ceil(estimateRows("orders", { ...query, ...p }) / LIMITS.maxPageSize)));
      expect(q.estimatedCalls).toBe(pages.reduce((a, b) => a + b, 0));
      expect(q.maxPiecePages).toBe(Math.max(...pages));
      expect(plan.naiveCalls).toBe(q.estimatedCalls);
    }
    // 150 days by date: two pieces (101 + 49 days) of one page each.
    const two = planQueries([req("a", { start_date: "2025-01-01", end_date: addDays("2025-01-01", 149), group_by: ["date"] })], { pageCap: 5 });
    expect(two.queries[0]).toMatchObject({ pieces: 2, estimatedCalls: 2, estimatedRows: 150 });
    // A smaller page size means more pages.
    expect(planQueries([req("a", { ...MARCH, group_by: ["date", "card_brand"] })], { pageCap: 5, pageSize: 100 }).queries[0]!.estimatedCalls).toBe(2);
  });
});

describe("planQueries", () => {
  it("gives identical tiles one query, however they are spelled", () => {
    const requests = [
      req("t1:main", { ...MARCH, group_by: ["card_brand"], metrics: ["revenue", "approvals"], filters: { card_brand: ["visa", "MASTERCARD"] } }),
      req("t2:main", { ...MARCH, group_by: ["card_brand"], metrics: ["revenue", "approvals"], filters: { card_brand: ["MASTERCARD", "VISA"] } }),
      req("t3:main", { ...MARCH, group_by: ["card_brand"], metrics: ["approvals", "revenue"], filters: { card_brand: ["Visa", "mastercard"] } }),
    ];
    const plan = planQueries(requests, { pageCap: 50 });
    expect(plan.queries).toHaveLength(1);
    expect(plan.queries[0]!.serves).toEqual(["t1:main", "t2:main", "t3:main"]);
    expect(plan.queries[0]!.query.filters).toEqual({ card_brand: ["MASTERCARD", "VISA"] });
    expect(plan.canonical["t3:main"]!.filters).toEqual({ card_brand: ["MASTERCARD", "VISA"] });
    expect(plan.naiveCalls).toBe(3);
    checkPlan(requests, plan, 50);
  });

  it("serves a coarser tile from a finer one with no query of its own", () => {
    const fine = req("fine", { ...MARCH, group_by: ["date", "card_brand"] });
    const requests = [
      req("total by brand", { ...MARCH, group_by: ["card_brand"], metrics: ["revenue"] }),
      fine,
      req("visa trend, mid-month", { start_date: "2025-03-10", end_date: "2025-03-20", group_by: ["date"], filters: { card_brand: "VISA" } }),
      req("kpi", { ...MARCH, group_by: [] }),
    ];
    const plan = planQueries(requests, { pageCap: 50 });
    expect(plan.queries).toHaveLength(1);
    // The finer request is sent as it was asked, so it is the gateway's cache key for that tile too.
    expect(plan.queries[0]!.query).toEqual(canonicalQuery("orders", fine.query));
    expect(plan.queries[0]!.serves).toEqual(requests.map((r) => r.key));
    checkPlan(requests, plan, 50);
  });

  it("keeps the first of requests that derive from each other (group_by in another order)", () => {
    const requests = [
      req("a", { ...MARCH, group_by: ["card_brand", "date"] }),
      req("b", { ...MARCH, group_by: ["date", "card_brand"] }),
    ];
    const plan = planQueries(requests, { pageCap: 50 });
    expect(plan.queries).toHaveLength(1);
    expect(plan.queries[0]!.query.group_by).toEqual(["card_brand", "date"]);
  });

  it("plans a KPI, its trend and a breakdown by gateway into one query when pages allow", () => {
    const tiles = (range: { start_date: string; end_date: string }) => [
      req("kpi", { ...range, group_by: [], metrics: ["revenue", "approvals"] }),
      req("trend", { ...range, group_by: ["date"], metrics: ["revenue"] }),
      req("by gateway", { ...range, group_by: ["gateway_id"], metrics: ["attempts", "revenue"] }),
    ];
    const march = planQueries(tiles(MARCH), { pageCap: 50 });
    expect(march.queries).toEqual([
      {
        op: "orders",
        query: { ...MARCH, group_by: ["date", "gateway_id"], metrics: ["approvals", "attempts", "revenue"] },
        estimatedRows: 31 * 20,
        estimatedCalls: 1,
        pieces: 1,
        maxPiecePages: 1,
        serves: ["kpi", "trend", "by gateway"],
      },
    ]);
    expect(march.naiveCalls).toBe(3);
    checkPlan(tiles(MARCH), march, 50);

    // Over 90 days date × gateway takes 2 pages: still no more calls than two queries, so one query…
    const quarter = { start_date: "2025-01-01", end_date: "2025-03-31" };
    const q90 = planQueries(tiles(quarter), { pageCap: 50 });
    expect(q90.queries).toHaveLength(1);
    expect(q90.queries[0]!.estimatedCalls).toBe(2);
    // …unless the page cap is 1: then the breakdown (with the KPI folded in) and the trend go apart.
    const capped = planQueries(tiles(quarter), { pageCap: 1 });
    expect(capped.queries.map((q) => [q.query.group_by, q.serves])).toEqual([
      [["gateway_id"], ["kpi", "by gateway"]],
      [["date"], ["trend"]],
    ]);
    checkPlan(tiles(quarter), capped, 1);
  });

  it("merges a filter both tiles share, and groups by one they do not", () => {
    const requests = [
      req("visa by gateway", { ...MARCH, group_by: ["gateway_id"], filters: { card_brand: "VISA", sales_type: "Rebills" } }),
      req("amex by gateway", { ...MARCH, group_by: ["gateway_id"], filters: { card_brand: "AMEX", sales_type: "Rebills" } }),
      req("all brands, rebills", { ...MARCH, group_by: [], filters: { sales_type: "Rebills" } }),
    ];
    const plan = planQueries(requests, { pageCap: 50 });
    expect(plan.queries).toHaveLength(1);
    expect(plan.queries[0]!.query).toEqual({ ...MARCH, group_by: ["gateway_id", "card_brand"], filters: { sales_type: "Rebills" } });
    checkPlan(requests, plan, 50);
  });

  it("keeps apart tiles whose filters could only merge past the group_by limit", () => {
    // Five (or six) cheap dimensions, so that merging would otherwise save a call.
    const cheap = () => 2;
    const dims = ["card_brand", "card_type", "sales_type", "refund_type", "alert_type", "billing_cycle"];
    const day = { start_date: "2025-03-01", end_date: "2025-03-01" };
    const pair = (group_by: string[]) => [
      req("a", { ...day, group_by, filters: { affid: "1001" } }),
      req("b", { ...day, group_by, filters: { affid: "1002" } }),
    ];
    const six = planQueries(pair(dims), { pageCap: 50, cardinality: cheap });
    expect(six.queries).toHaveLength(2);
    expect(mergeQueries("orders", pair(dims)[0]!.query, pair(dims)[1]!.query)).toBeNull();
    checkPlan(pair(dims), six, 50);
    const five = planQueries(pair(dims.slice(0, 5)), { pageCap: 50, cardinality: cheap });
    expect(five.queries).toHaveLength(1);
    expect(five.queries[0]!.query.group_by).toContain("affid");
    expect(five.queries[0]!.query.filters).toEqual({ affid: ["1001", "1002"] });
  });

  it("never shares a query between operations", () => {
    const query = { ...MARCH, group_by: ["date"], metrics: ["cpa"] };
    const requests = [req("orders", query, "orders"), req("cohort", query, "cohort")];
    const plan = planQueries(requests, { pageCap: 50 });
    expect(plan.queries.map((q) => [q.op, q.serves])).toEqual([
      ["orders", ["orders"]],
      ["cohort", ["cohort"]],
    ]);
    checkPlan(requests, plan, 50);
  });

  it("splits bin × date over 90 days when one query would pass the page cap", () => {
    const quarter = { start_date: "2025-01-01", end_date: "2025-03-31" };
    const bins = (from: number) => Array.from({ length: 50 }, (_, i) => String(400000 + from + i));
    const requests = [
      req("first bins", { ...quarter, group_by: ["date", "bin"], filters: { bin: bins(0) } }),
      req("other bins", { ...quarter, group_by: ["date", "bin"], filters: { bin: bins(50) } }),
    ];
    // 90 days × 50 BINs = 4,500 rows: 5 pages each; together 9,000 rows, 9 pages.
    const split = planQueries(requests, { pageCap: 8 });
    expect(split.queries.map((q) => q.estimatedCalls)).toEqual([5, 5]);
    checkPlan(requests, split, 8);
    const one = planQueries(requests, { pageCap: 9 });
    expect(one.queries).toHaveLength(1);
    expect(one.queries[0]).toMatchObject({ estimatedCalls: 9, maxPiecePages: 9 });
    expect((one.queries[0]!.query.filters?.bin as string[]).length).toBe(100);
    // Past the contract's 100 filter values the filter goes and every BIN would be fetched: no saving.
    const wide = [...requests, req("more bins", { ...quarter, group_by: ["date", "bin"], filters: { bin: bins(100) } })];
    const wplan = planQueries(wide, { pageCap: 1000 });
    expect(wplan.queries.map((q) => q.serves.length).sort()).toEqual([1, 2]);
    checkPlan(wide, wplan, 1000);
  });

  it("merges a tile and its previous-period comparison into one date-grouped hull query when cheap", () => {
    const range = { start: "2025-03-01", end: "2025-03-31" };
    const prev = comparisonRange(range, { kind: "previous" })!;
    const pair = (group_by: string[]) => [
      req("t2:main", { start_date: range.start, end_date: range.end, group_by, metrics: ["revenue"] }),
      req("t2:compare", { start_date: prev.start, end_date: prev.end, group_by, metrics: ["revenue"] }),
    ];
    const kpi = planQueries(pair([]), { pageCap: 50 });
    expect(kpi.queries).toHaveLength(1);
    expect(kpi.queries[0]!.query).toEqual({ start_date: prev.start, end_date: range.end, group_by: ["date"], metrics: ["revenue"] });
    expect(kpi.queries[0]!.estimatedCalls).toBe(1);
    expect(kpi.naiveCalls).toBe(2);
    checkPlan(pair([]), kpi, 50);
    // By brand: 62 days × 5 brands is still one page.
    const brand = planQueries(pair(["card_brand"]), { pageCap: 50 });
    expect(brand.queries.map((q) => q.query.group_by)).toEqual([["date", "card_brand"]]);
    // By BIN the hull needs a row per BIN per day: far more calls than the two totals.
    const bin = planQueries(pair(["bin"]), { pageCap: 50 });
    expect(bin.queries).toHaveLength(2);
    expect(bin.queries.map((q) => q.estimatedCalls)).toEqual([2, 2]);
    checkPlan(pair(["bin"]), bin, 50);
  });

  it("sends an invalid request on its own, and the rest are planned as usual", () => {
    const requests = [
      req("bad", { ...MARCH, group_by: ["date", "card_brand", "card_type", "sales_type", "billing_cycle", "bin", "bank"] }),
      req("kpi", { ...MARCH, group_by: [] }),
      req("trend", { ...MARCH, group_by: ["date"] }),
    ];
    const plan = planQueries(requests, { pageCap: 50 });
    expect(plan.queries.map((q) => q.serves)).toEqual([["bad"], ["kpi", "trend"]]);
    expect(plan.queries[0]!.problem).toMatch(/at most 6/);
    checkPlan(requests, plan, 50);
  });

  it("refuses duplicate keys and is deterministic", () => {
    expect(() => planQueries([req("a", MARCH), req("a", MARCH)], { pageCap: 5 })).toThrow(/duplicate/);
    const requests = [req("x", { ...MARCH, group_by: ["gateway_id"] }), req("y", { ...MARCH, group_by: ["card_brand"] }), req("z", { ...MARCH, group_by: [] })];
    expect(planQueries(requests, { pageCap: 50 })).toEqual(planQueries(requests, { pageCap: 50 }));
    expect(planQueries([], { pageCap: 5 })).toEqual({ queries: [], sourceOf: {}, canonical: {}, naiveCalls: 0 });
  });
});

// ---------------------------------------------------------------------------------------------
// Random tile sets

const BASE = "2025-01-01";
const WINDOW_DAYS = 130;
const GROUP_POOL = ["date", "gateway_id", "gateway_alias", "card_brand", "bin", "sales_type", "billing_cycle", "affid"];
const VALUES: Record<string, readonly FilterScalar[]> = {
  gateway_id: [1, 2, 3],
  gateway_alias: ["Main 01", "Backup 02"],
  card_brand: ["VISA", "MASTERCARD", null],
  bin: ["411111", "555555", "601100"],
  sales_type: ["Initials", "Rebills"],
  billing_cycle: [0, 1, 2],
  affid: ["1001", "1002"],
  date: [BASE, addDays(BASE, 3), addDays(BASE, 40), addDays(BASE, 61)],
};
const METRIC_POOL: Record<Operation, string[]> = {
  orders: ["attempts", "approvals", "revenue", "cb_count"],
  cohort: ["approvals_by_initial_date", "revenue_by_initial_date", "cpa", "initial_attempt"],
};
const RANGES = [
  ["2025-03-01", "2025-03-31"],
  ["2025-01-29", "2025-02-28"],
  ["2025-03-10", "2025-03-20"],
  ["2025-01-01", "2025-03-31"],
] as const;

const METRICS = CATALOG_METRICS.map((m) => m.name);

/** Synthetic facts with every dimension and metric of both operations, so any query can be answered directly. */
function makeFacts(): ReportRecord[] {
  let seed = 42;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const dims = new Map([...dimensionsFor("orders"), ...dimensionsFor("cohort")].map((d) => [d.name, d]));
  const out: ReportRecord[] = [];
  for (let i = 0; i < 700; i++) {
    const r: ReportRecord = {};
    for (const [name, d] of dims) {
      const pool: readonly FilterScalar[] =
        name === "date"
          ? [addDays(BASE, rnd(WINDOW_DAYS))]
          : (VALUES[name] ?? (d.type === "integer" ? [1, 2] : d.type === "decimal" ? [4.95, 6.95] : (d.values?.slice(0, 2) ?? ["x", "y"])));
      r[name] = pool[rnd(pool.length)]!;
    }
    for (const m of METRICS) r[m] = rnd(3) === 0 ? 0 : rnd(5) + (m.includes("revenue") || m.includes("amount") || m === "cpa" ? 0.25 : 0);
    out.push(r);
  }
  return out;
}
const FACTS = makeFacts();

/** The answer the service would give `q`, computed over the synthetic facts. */
function answer(op: Operation, q: ReportQuery): ReportRecord[] {
  const filters = Object.entries((q.filters ?? {}) as Record<string, FilterScalar | FilterScalar[]>);
  const kept = FACTS.filter((r) => String(r.date) >= q.start_date && String(r.date) <= q.end_date && filters.every(([d, f]) => matchesFilter(r[d], f)));
  return aggregate(kept, effectiveGroupBy(op, q), effectiveMetrics(op, q));
}

const filterValueArb = (d: string) =>
  fc
    .subarray([...VALUES[d]!], { minLength: 1 })
    .chain((vs) => fc.boolean().map((lower) => (lower ? vs.map((v) => (typeof v === "string" && (CARD_BRANDS as readonly string[]).includes(v) ? v.toLowerCase() : v)) : vs)))
    .chain((vs) => (vs.length === 1 ? fc.constantFrom<FilterScalar | FilterScalar[]>(vs[0]!, vs) : fc.constant<FilterScalar | FilterScalar[]>(vs)));

const rangeArb = fc.oneof(
  fc.constantFrom(...RANGES).map(([s, e]) => ({ start_date: s, end_date: e })),
  fc.tuple(fc.integer({ min: 0, max: 90 }), fc.integer({ min: 0, max: 40 })).map(([s, n]) => ({ start_date: addDays(BASE, s), end_date: addDays(BASE, s + n) })),
  // Several pieces.
  fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 101, max: 300 })).map(([s, n]) => ({ start_date: addDays(BASE, s), end_date: addDays(BASE, s + n) })),
);

const requestArb = fc.constantFrom<Operation>("orders", "cohort").chain((op) =>
  fc.record({
    op: fc.constant(op),
    range: rangeArb,
    group_by: fc.option(fc.shuffledSubarray(GROUP_POOL, { maxLength: 4 }), { nil: undefined, freq: 12 }),
    metrics: fc.option(fc.shuffledSubarray(METRIC_POOL[op], { minLength: 1 }), { nil: undefined, freq: 4 }),
    filters: fc.uniqueArray(fc.constantFrom(...Object.keys(VALUES)), { maxLength: 2 }).chain((ds) =>
      fc.tuple(...ds.map((d) => filterValueArb(d).map((v) => [d, v] as const))).map((kv) => (kv.length ? Object.fromEntries(kv) : undefined)),
    ),
  }),
);

/** Tiles, with some repeated as they are or over the previous period (what a comparison does). */
const requestSetArb = fc
  .tuple(fc.array(requestArb, { minLength: 1, maxLength: 8 }), fc.array(fc.tuple(fc.nat(), fc.boolean()), { maxLength: 4 }))
  .map(([base, copies]) => {
    const all = [...base];
    for (const [i, shift] of copies) {
      const r = base[i % base.length]!;
      const days = (Date.parse(r.range.end_date) - Date.parse(r.range.start_date)) / 86_400_000 + 1;
      all.push(shift ? { ...r, range: { start_date: addDays(r.range.start_date, -days), end_date: addDays(r.range.start_date, -1) } } : r);
    }
    return all.map(
      (r, i): PlanRequest => ({
        key: `t${i}`,
        op: r.op,
        query: { ...r.range, ...(r.group_by ? { group_by: r.group_by } : {}), ...(r.metrics ? { metrics: r.metrics } : {}), ...(r.filters ? { filters: r.filters } : {}) },
      }),
    );
  });

describe("planQueries on random tile sets", () => {
  it("derives every tile from its source, exactly, and never plans more than one query per tile", () => {
    fc.assert(
      fc.property(requestSetArb, fc.integer({ min: 1, max: 60 }), fc.option(fc.integer({ min: 1, max: 3000 }), { nil: undefined }), (requests, pageCap, bins) => {
        const cardinality = bins === undefined ? undefined : (d: string) => (d === "bin" ? bins : undefined);
        const plan = planQueries(requests, { pageCap, cardinality });
        checkPlan(requests, plan, pageCap);
        expect(planQueries(requests, { pageCap, cardinality })).toEqual(plan);
        const answers = plan.queries.map((q) => answer(q.op, q.query));
        for (const r of requests) {
          const wanted = plan.canonical[r.key]!;
          expect(derive(r.op, wanted, answers[plan.sourceOf[r.key]!]!)).toEqual(answer(r.op, wanted));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("checks the contract as the gateway's schema does", () => {
    const queryArb = fc.record({
      op: fc.constantFrom<Operation>("orders", "cohort"),
      start: fc.integer({ min: -5, max: 40 }),
      days: fc.integer({ min: -2, max: 3700 }),
      badDate: fc.constantFrom(null, "2025-02-30", "2025-3-01"),
      group_by: fc.option(fc.array(fc.constantFrom(...GROUP_POOL, "attempt_col", "nope"), { maxLength: 8 }), { nil: undefined }),
      metrics: fc.option(fc.array(fc.constantFrom("attempts", "approvals_by_initial_date", "cpa", "bogus"), { maxLength: 3 }), { nil: undefined }),
      filters: fc.option(
        fc.dictionary(
          fc.constantFrom("gateway_id", "card_brand", "bin", "date", "price_point", "attempt_col", "nope"),
          fc.oneof(
            fc.constantFrom<FilterScalar>(null, 1, 1.5, "visa", "VISA", "Visa ", "", "411111", "2025-01-05", "2025-02-30"),
            fc.array(fc.constantFrom<FilterScalar>(1, 2, "VISA", "amex", null), { maxLength: 3 }),
            fc.constant(Array.from({ length: 101 }, (_, i) => i)),
          ),
          { maxKeys: 3 },
        ),
        { nil: undefined },
      ),
    });
    fc.assert(
      fc.property(queryArb, ({ op, start, days, badDate, group_by, metrics, filters }) => {
        const start_date = addDays(BASE, start);
        const q = { start_date, end_date: badDate ?? addDays(start_date, days), group_by, metrics, filters } as ReportQuery;
        const mine = contractProblem(op, canonicalQuery(op, q));
        const theirs = OPERATION_SCHEMAS[op].query.safeParse(JSON.parse(JSON.stringify(canonicalQuery(op, q))));
        expect(mine === null, `${JSON.stringify(q)} → ${mine}`).toBe(theirs.success);
      }),
      { numRuns: 2000 },
    );
  });
});
