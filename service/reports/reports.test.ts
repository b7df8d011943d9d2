/**
 * The report operations over real HTTP against an independent reference (plain TypeScript over the
 * raw rows), for hundreds of randomized requests; plus paging, injection and invariants. On each
 * engine (service/testing/harness.ts): the answers must be the reference's whatever runs them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addDays,
  dimensionsFor,
  metricsFor,
  type DimensionDef,
  type FilterScalar,
  type Operation,
  type ReportRecord,
  type ReportRequest,
} from "@/lib/contract";
import { generateTestFile, startTestService, TEST_ENGINES, type TestService } from "../testing/harness";
import { loadDataset, referenceReport, type Dataset } from "../testing/reference";

const END = "2025-07-31";
const DAYS = 150;
const START = addDays(END, -(DAYS - 1));

// One generated file, copied for each engine's service: every engine answers over the same data.
let dataDir: string;
let dataFile: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "reports-test-"));
  dataFile = await generateTestFile(join(dataDir, "data.duckdb"), { days: DAYS, ordersPerDay: 20, seed: 11, endDate: END });
});
afterAll(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

// The same suite on every engine: DuckDB, ClickHouse on one node, and ClickHouse on two shards.
describe.each(TEST_ENGINES)("on %s", (engine) => {
  let svc: TestService;
  let ds: Dataset;
  /** Observed values per dimension, to build filters that match something. */
  const seen: Record<Operation, Map<string, (string | number | null)[]>> = { orders: new Map(), cohort: new Map() };

  beforeAll(async () => {
    svc = await startTestService({
      from: dataFile,
      env: { REPORT_RATE_LIMIT: "1000000" },
      engine,
    });
    ds = await loadDataset(svc.db);
    for (const op of ["orders", "cohort"] as const) {
      const all = referenceReport(op, { start_date: START, end_date: END, limit: 1_000_000 }, ds);
      for (const d of dimensionsFor(op)) {
        seen[op].set(d.name, [...new Set(all.data.map((r) => r[d.name] ?? null))].slice(0, 40));
      }
    }
  });
  afterAll(async () => svc?.stop());

  async function call(op: Operation, req: ReportRequest) {
    const res = await svc.post(op === "orders" ? "/api/data" : "/api/data/cohort", req);
    const body = (await res.json()) as { data: ReportRecord[]; pagination: { total: number; has_more: boolean; offset: number; limit: number }; message: string };
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${JSON.stringify(body)}`);
    return body;
  }

  function requestArb(op: Operation): fc.Arbitrary<ReportRequest> {
    const dims = dimensionsFor(op);
    const metrics = metricsFor(op).map((m) => m.name);
    const dayArb = fc.integer({ min: -5, max: DAYS + 5 });
    const filterArb = (d: DimensionDef): fc.Arbitrary<FilterScalar | FilterScalar[]> => {
      const values = seen[op].get(d.name) ?? [null];
      return fc.oneof(fc.constantFrom(...values), fc.subarray(values, { minLength: 1, maxLength: Math.min(4, values.length) }));
    };
    return fc
      .record({
        from: dayArb,
        span: fc.integer({ min: 0, max: 100 }),
        group_by: fc.option(fc.shuffledSubarray(dims.map((d) => d.name), { minLength: 1, maxLength: 4 }), { nil: undefined }),
        metrics: fc.option(fc.shuffledSubarray(metrics, { minLength: 1, maxLength: 6 }), { nil: undefined }),
        filterDims: fc.shuffledSubarray([...dims], { minLength: 0, maxLength: 2 }),
        limit: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
        offset: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
      })
      .chain((r) =>
        fc.tuple(...r.filterDims.map((d) => filterArb(d).map((v) => [d.name, v] as const))).map((filters) => {
          const req: ReportRequest = { start_date: addDays(START, r.from), end_date: addDays(START, r.from + r.span) };
          if (r.group_by) req.group_by = r.group_by;
          if (r.metrics) req.metrics = r.metrics;
          if (filters.length) req.filters = Object.fromEntries(filters);
          if (r.limit !== undefined) req.limit = r.limit;
          if (r.offset !== undefined) req.offset = r.offset;
          return req;
        }),
      );
  }

  describe.each(["orders", "cohort"] as const)("%s summary equals the reference", (op) => {
    it("for hundreds of randomized requests", async () => {
      await fc.assert(
        fc.asyncProperty(requestArb(op), async (req) => {
          const body = await call(op, req);
          const ref = referenceReport(op, req, ds);
          expect(body.pagination.total).toBe(ref.total);
          expect(body.data).toEqual(ref.data);
          expect(body.pagination.has_more).toBe((req.offset ?? 0) + body.data.length < ref.total);
        }),
        { numRuns: 250 },
      );
      // 250 requests take about 10 s on a quiet machine and over a minute on the sharded ClickHouse
      // of a busy one: the bound is for a hung engine, not a slow one.
    }, 300_000);

    // Grouped; the finest grain with every metric (orders: a plain scan of the grain table, whose total
    // is counted separately); the finest grain with a few metrics and a filter (rows that are zero on
    // those metrics must drop out of the page and the total).
    const fewMetrics = op === "orders" ? ["approvals", "refund_amount"] : ["attempts_by_initial_date", "refund_amount_by_initial_date"];
    it.each<[string, Omit<ReportRequest, "start_date" | "end_date">]>([
      ["grouped", { group_by: ["date", "gateway_id", "billing_cycle"] }],
      ["at the finest grain", {}],
      ["at the finest grain, a few metrics, filtered", { metrics: fewMetrics, filters: { sales_type: ["Rebills", "Straight Sales"] } }],
    ])("all pages concatenated equal the unpaged result, in a stable order (%s)", async (_, shape) => {
      const req: ReportRequest = { start_date: addDays(END, -90), end_date: END, ...shape };
      const whole = referenceReport(op, { ...req, limit: 1_000_000 }, ds).data;
      expect(whole.length).toBeGreaterThan(1000); // more than one full page
      const first = await call(op, req);
      expect(first.pagination).toMatchObject({ total: whole.length, limit: 1000, offset: 0, has_more: true });
      expect(first.data).toEqual(whole.slice(0, 1000));
      const pages: ReportRecord[] = [];
      for (let offset = 0; ; offset += 397) {
        const page = await call(op, { ...req, limit: 397, offset });
        expect(page.pagination.total).toBe(whole.length);
        pages.push(...page.data);
        if (!page.pagination.has_more) break;
      }
      expect(pages).toEqual(whole);
      const past = await call(op, { ...req, offset: whole.length + 10 });
      expect(past.data).toEqual([]);
      expect(past.pagination.total).toBe(whole.length);
    });

    it("without group_by returns the finest grain in date-first order", async () => {
      const body = await call(op, { start_date: addDays(END, -3), end_date: END, limit: 50 });
      const first = body.data[0]!;
      expect(Object.keys(first)).toEqual([...dimensionsFor(op).map((d) => d.name), ...metricsFor(op).map((m) => m.name)]);
      const dates = body.data.map((r) => String(r.date));
      expect([...dates].sort()).toEqual(dates);
    });

    it("turns injection attempts in every string filter into a clean empty answer or a 400", async () => {
      const attacks = ["' OR 1=1 --", "x'); DROP TABLE attempts; --", '" OR ""="', "\\'; SELECT * FROM api_clients; --", "%", "_", "\u0000"];
      const before = await svc.db.all("SELECT count(*)::DOUBLE AS n FROM attempts");
      for (const d of dimensionsFor(op).filter((x) => x.type === "string")) {
        for (const attack of attacks) {
          const res = await svc.post(op === "orders" ? "/api/data" : "/api/data/cohort", {
            start_date: START,
            end_date: addDays(START, 100),
            group_by: ["date"],
            filters: { [d.name]: attack },
          });
          expect([200, 400]).toContain(res.status);
          const body = (await res.json()) as { data?: unknown[] };
          if (res.status === 200) expect(body.data).toEqual([]);
        }
      }
      expect(await svc.db.all("SELECT count(*)::DOUBLE AS n FROM attempts")).toEqual(before);
    });
  });

  describe("metric semantics on the generated data", () => {
    const full = () => ({ start_date: addDays(END, -100), end_date: END });

    it("dates each metric by its own basis: Σ cb_count = Σ cb_count_by_cb_date over a range holding every chargeback of its attempts", async () => {
      // Attempts of the first 50 days, whichever day their chargebacks arrived.
      const early = { start_date: START, end_date: addDays(START, 49) };
      const byAttempt = await call("orders", { ...early, group_by: [], metrics: ["cb_count", "cb_amount"] });
      let byCbDate = 0;
      let byCbAmount = 0;
      for (const e of ds.chargebacks) {
        const a = ds.attempts.get(e.attempt_id)!;
        if (a.attempt_date >= early.start_date && a.attempt_date <= early.end_date) {
          byCbDate += 1;
          byCbAmount += Number(e.amount_cents);
        }
      }
      expect(byCbDate).toBeGreaterThan(0);
      expect(byAttempt.data[0]?.cb_count).toBe(byCbDate);
      expect(byAttempt.data[0]?.cb_amount).toBe(byCbAmount / 100);
      // And over the whole dataset both bases count every chargeback once.
      const span1 = await call("orders", { start_date: START, end_date: addDays(START, 100), group_by: [], metrics: ["cb_count", "cb_count_by_cb_date"] });
      const span2 = await call("orders", { start_date: addDays(START, 101), end_date: END, group_by: [], metrics: ["cb_count", "cb_count_by_cb_date"] });
      const total = (k: string) => Number(span1.data[0]?.[k] ?? 0) + Number(span2.data[0]?.[k] ?? 0);
      expect(total("cb_count")).toBe(ds.chargebacks.length);
      expect(total("cb_count_by_cb_date")).toBe(ds.chargebacks.length);
    });

    it("puts refund_type and alert_type in null buckets outside their own metrics", async () => {
      const body = await call("orders", { ...full(), group_by: ["refund_type"], metrics: ["attempts", "refund_count"] });
      const byType = new Map(body.data.map((r) => [r.refund_type, r]));
      expect(byType.get(null)?.refund_count).toBe(0);
      expect(byType.get(null)?.attempts as number).toBeGreaterThan(0);
      expect(byType.get("Refund CS")?.attempts).toBe(0);
      expect(byType.get("Refund CS")?.refund_count as number).toBeGreaterThan(0);
      const alerts = await call("orders", { ...full(), group_by: ["alert_type"], metrics: ["alert_count"], filters: { alert_type: "ethoca" } });
      expect(alerts.data.map((r) => r.alert_type)).toEqual(["ETHOCA"]);
    });

    it("keeps amounts exact to the cent: the day totals add up to the range total", async () => {
      const days = await call("orders", { ...full(), group_by: ["date"], metrics: ["revenue", "refund_amount"] });
      const total = await call("orders", { ...full(), group_by: [], metrics: ["revenue", "refund_amount"] });
      const cents = (k: string) => days.data.reduce((s, r) => s + Math.round((r[k] as number) * 100), 0);
      expect(cents("revenue")).toBe(Math.round((total.data[0]?.revenue as number) * 100));
      expect(cents("refund_amount")).toBe(Math.round((total.data[0]?.refund_amount as number) * 100));
      for (const r of days.data) expect(Math.round((r.revenue as number) * 100) / 100).toBe(r.revenue);
    });

    it("attributes a cohort's later rebills, refunds and chargebacks to its initial date", async () => {
      const req = { start_date: START, end_date: addDays(START, 9), group_by: ["date", "billing_cycle"], metrics: ["approvals_by_initial_date", "cb_count_by_initial_date"] };
      const body = await call("cohort", req as ReportRequest);
      const cycles = new Set(body.data.map((r) => r.billing_cycle));
      expect(cycles.has(0) && cycles.has(1) && cycles.has(2)).toBe(true);
      for (const r of body.data) expect(r.date! >= req.start_date && r.date! <= req.end_date).toBe(true);
    });
  });
});
