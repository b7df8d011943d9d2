import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addDays, DASHBOARD_MAX_RANGE_DAYS, dimensionsFor, metricsFor, OPERATIONS, type Operation } from "@/lib/contract";
import { kpisFor } from "@/lib/report/metrics/kpis";
import type { CompareSelection } from "@/lib/report/periods/compare";
import { TIME_GRAINS } from "@/lib/report/periods/grain";
import { COHORT_CELLS, COHORT_GRID_METRICS, COHORT_ROWS, cohortQueryString, cohortRequest, defaultCohortState, normalizeCohort, parseCohort, serializeCohort, type CohortState } from "./cohort";
import { describeFilters } from "./describe-filters";
import { decodeList, encodeList } from "./encoding";
import { TABLE_LAYOUTS, CHART_KINDS, defaultExploreState, exploreQueryString, exploreRequest, normalizeExplore, parseExplore, serializeExplore, type ExploreState } from "./explore";
import { type FilterValue } from "./filters";
import { MAX_RANGE_DAYS, RANGE_PRESETS, resolveRange, type RangeSelection } from "./range";

const today = "2025-07-31";

describe("range presets", () => {
  it("allow as long a custom range as the contract's dashboard schema", () => {
    expect(MAX_RANGE_DAYS).toBe(DASHBOARD_MAX_RANGE_DAYS);
  });
  const cases: [RangeSelection, string, string][] = [
    [{ preset: "today" }, "2025-07-31", "2025-07-31"],
    [{ preset: "yesterday" }, "2025-07-30", "2025-07-30"],
    [{ preset: "last7" }, "2025-07-25", "2025-07-31"],
    [{ preset: "last30" }, "2025-07-02", "2025-07-31"],
    [{ preset: "last90" }, "2025-05-03", "2025-07-31"],
    [{ preset: "mtd" }, "2025-07-01", "2025-07-31"],
    [{ preset: "lastmonth" }, "2025-06-01", "2025-06-30"],
    [{ start: "2024-01-01", end: "2024-12-31" }, "2024-01-01", "2024-12-31"],
  ];
  it.each(cases)("%j resolves against today", (range, start, end) => {
    expect(resolveRange(range, today)).toEqual({ start, end });
  });
  it("handles January and leap years", () => {
    expect(resolveRange({ preset: "lastmonth" }, "2025-01-15")).toEqual({ start: "2024-12-01", end: "2024-12-31" });
    expect(resolveRange({ preset: "lastmonth" }, "2024-03-01")).toEqual({ start: "2024-02-01", end: "2024-02-29" });
  });
});

describe("list encoding", () => {
  it("round-trips any strings, commas and percent signs included", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 5 }), (items) => {
        expect(decodeList(encodeList(items))).toEqual(items);
      }),
    );
  });
});

describe("Explore URLs", () => {
  it("are compact and readable", () => {
    const s: ExploreState = {
      ...defaultExploreState("orders"),
      range: { start: "2025-01-01", end: "2025-03-31" },
      groupBy: ["date", "card_brand"],
      metrics: ["revenue", "approvals"],
      kpis: ["net_revenue", "approval_rate"],
      filters: { product_id: [904, 903], card_brand: ["visa", "MASTERCARD"], campaign_name: ["Summer, 2025 & more"] },
      sort: { key: "revenue", dir: "desc" },
      grain: "month",
      compare: { kind: "previous" },
      table: "pivot",
      pivotMeasure: "revenue",
      chart: "bar",
      chartMeasure: "approval_rate",
      chartMeasure2: "revenue",
    };
    // Metrics and KPIs keep the order the user chose them in.
    expect(serializeExplore(s)).toBe(
      "op=orders&range=2025-01-01..2025-03-31&by=date,card_brand&grain=month&cmp=prev&m=revenue,approvals&kpi=net_revenue,approval_rate" +
        "&f.product_id=903,904&f.campaign_name=Summer%252C+2025+%26+more&f.card_brand=MASTERCARD,VISA&sort=-revenue&table=pivot&pm=revenue&chart=bar&cm=approval_rate&cm2=revenue",
    );
    const back = parseExplore(serializeExplore(s));
    expect(back.hasReport).toBe(true);
    expect(back.state.filters).toEqual({ product_id: [903, 904], campaign_name: ["Summer, 2025 & more"], card_brand: ["MASTERCARD", "VISA"] });
  });

  it("leave view settings out at their defaults", () => {
    expect(serializeExplore(defaultExploreState())).toBe(
      "op=orders&range=last30&by=date&m=attempts,approvals,revenue,cb_count,cb_amount,refund_count,refund_amount&kpi=approval_rate,cb_rate_count,refund_rate,net_revenue",
    );
  });

  it("without a range name no report: the form shows defaults and nothing runs", () => {
    expect(parseExplore("")).toEqual({ state: defaultExploreState(), hasReport: false, problems: [] });
    expect(parseExplore("?by=date").hasReport).toBe(false);
  });

  it("name every part they cannot apply, and offer the rest as the nearest valid report", () => {
    const { state, problems } = parseExplore(
      "op=orders&range=2025-02-30..2025-03-01&by=date,nope,date,attempt_col&m=revenue,approvals_by_initial_date&kpi=zzz" +
        "&f.product_id=abc,7&f.card_brand=visa,PAYPAL&f.unknown=1&sort=-nothing&chart=pie&cm=attempts",
    );
    expect(state.range).toEqual({ preset: "last30" });
    expect(state.groupBy).toEqual(["date"]); // attempt_col is cohort-only
    expect(state.metrics).toEqual(["revenue"]);
    expect(state.kpis).toEqual([]);
    expect(state.filters).toEqual({ product_id: [7], card_brand: ["VISA"] });
    expect(state.sort).toBeNull();
    expect(state.chart).toBe("auto");
    expect(state.chartMeasure).toBeNull();
    expect(problems.map((p) => p.param)).toEqual(["range", "by", "m", "kpi", "f.product_id", "f.card_brand", "f.unknown", "chart", "sort", "cm"]);
    // The nearest valid report is itself a report the page can apply exactly.
    expect(parseExplore(serializeExplore(state)).problems).toEqual([]);
  });

  it("cap group-by at 6 and fall back to default columns when none are left", () => {
    const all = dimensionsFor("orders").map((d) => d.name);
    const { state, problems } = parseExplore(`range=last7&by=${all.join(",")}&m=nope`);
    expect(state.groupBy).toEqual(all.slice(0, 6));
    expect(state.metrics).toEqual(defaultExploreState().metrics);
    expect(problems.map((p) => p.param)).toEqual(["by", "m"]);
  });

  const dateArb = fc.integer({ min: 0, max: 3000 }).map((n) => addDays("2018-01-01", n));
  const rangeArb: fc.Arbitrary<RangeSelection> = fc.oneof(
    fc.constantFrom(...RANGE_PRESETS.map((p) => ({ preset: p.id }))),
    fc.tuple(dateArb, fc.integer({ min: 0, max: 400 })).map(([start, n]) => ({ start, end: addDays(start, n) })),
  );
  const filterValueArb = (op: Operation) =>
    fc.constantFrom(...dimensionsFor(op)).chain((d): fc.Arbitrary<[string, FilterValue[]]> => {
      const values: fc.Arbitrary<FilterValue> =
        d.type === "integer"
          ? fc.integer({ min: -5, max: 100_000 })
          : d.type === "decimal"
            ? fc.double({ min: 0, max: 1000, noNaN: true }).map((x) => Math.round(x * 100) / 100)
            : d.type === "date"
              ? dateArb
              : d.values
                ? fc.constantFrom(...d.values)
                : fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() === s && s !== "");
      return fc.tuple(fc.constant(d.name), fc.array(values, { minLength: 1, maxLength: 4 }));
    });
  const exploreArb = fc.constantFrom(...OPERATIONS).chain((op) =>
    fc
      .record({
        range: rangeArb,
        groupBy: fc.shuffledSubarray(dimensionsFor(op).map((d) => d.name), { maxLength: 6 }),
        // Shuffled: the order the user chose is kept, not the catalog's.
        metrics: fc.shuffledSubarray(metricsFor(op).map((m) => m.name)),
        kpis: fc.shuffledSubarray(kpisFor(op).map((k) => k.id)),
        grain: fc.constantFrom(...TIME_GRAINS),
        compare: fc.constantFrom<CompareSelection>({ kind: "none" }, { kind: "previous" }, { kind: "calendar" }, { kind: "year" }, { kind: "custom", start: "2024-02-01", end: "2024-02-10" }),
        table: fc.constantFrom(...TABLE_LAYOUTS),
        pmPick: fc.option(fc.nat(), { nil: null }),
        cm2Pick: fc.option(fc.nat(), { nil: null }),
        filters: fc.array(filterValueArb(op), { maxLength: 4 }).map((e) => Object.fromEntries(e)),
        sortDir: fc.constantFrom("asc" as const, "desc" as const),
        sortPick: fc.nat(),
        chart: fc.constantFrom(...CHART_KINDS),
        cmPick: fc.option(fc.nat(), { nil: null }),
      })
      .map((r): ExploreState => {
        const cols = [...r.groupBy, ...r.metrics, ...r.kpis];
        const measures = [...r.metrics, ...r.kpis];
        return normalizeExplore({
          op,
          range: r.range,
          groupBy: r.groupBy,
          grain: r.grain,
          compare: r.compare,
          metrics: r.metrics,
          kpis: r.kpis,
          filters: r.filters,
          sort: cols.length > 0 && r.sortPick % 3 !== 0 ? { key: cols[r.sortPick % cols.length]!, dir: r.sortDir } : null,
          table: r.table,
          pivotMeasure: r.pmPick !== null && measures.length > 0 ? measures[r.pmPick % measures.length]! : null,
          chart: r.chart,
          chartMeasure: r.cmPick !== null && measures.length > 0 ? measures[r.cmPick % measures.length]! : null,
          chartMeasure2: r.cm2Pick !== null && measures.length > 0 ? measures[r.cm2Pick % measures.length]! : null,
        });
      }),
  );

  it("round-trip every canonical state exactly", () => {
    fc.assert(
      fc.property(exploreArb, (s) => {
        const qs = serializeExplore(s);
        const back = parseExplore(qs);
        expect(back.hasReport).toBe(true);
        expect(back.problems).toEqual([]);
        expect(back.state).toEqual(s);
        expect(serializeExplore(back.state)).toBe(qs);
        // what a browser does to the string (URL parsing) changes nothing
        expect(parseExplore(new URL(`https://x.test/explore?${qs}`).searchParams).state).toEqual(s);
      }),
      { numRuns: 300 },
    );
  });

  it("serialize(parse(anything)) is a fixed point", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (a, b, c) => {
        const qs = `range=last7&by=${a}&m=${b}&f.product_id=${c}&sort=${a}`;
        const once = serializeExplore(parseExplore(qs).state);
        expect(serializeExplore(parseExplore(once).state)).toBe(once);
        // the nearest valid report offered for any URL opens without problems
        expect(parseExplore(once).problems).toEqual([]);
      }),
    );
  });

  it("key the form and the data by the request part only", () => {
    const s = defaultExploreState();
    expect(exploreQueryString({ ...s, sort: { key: "revenue", dir: "asc" }, chart: "bar" })).toBe(exploreQueryString(s));
  });
});

describe("Cohort URLs", () => {
  it("write only what differs from the defaults", () => {
    expect(serializeCohort(defaultCohortState())).toBe("range=last90");
    const s: CohortState = { ...defaultCohortState(), rows: "month", cell: "ltv", cycles: 6, trialDays: 7, filters: { campaign_id: [12] } };
    expect(serializeCohort(s)).toBe("range=last90&f.campaign_id=12&rows=month&cell=ltv&cycles=6&trial=7");
    expect(cohortQueryString(s)).toBe("range=last90&f.campaign_id=12");
  });

  it("round-trip every canonical state", () => {
    const arb = fc
      .record({
        rows: fc.constantFrom(...COHORT_ROWS),
        cell: fc.constantFrom(...COHORT_CELLS),
        cycles: fc.integer({ min: 1, max: 36 }),
        trialDays: fc.integer({ min: 0, max: 90 }),
        periodDays: fc.integer({ min: 1, max: 366 }),
        preset: fc.constantFrom(...RANGE_PRESETS.map((p) => p.id)),
        ids: fc.array(fc.integer({ min: 1, max: 999 }), { maxLength: 3 }),
      })
      .map((r) =>
        normalizeCohort({ ...r, range: { preset: r.preset }, filters: r.ids.length ? { campaign_id: r.ids, card_type: ["DEBIT"] } : {} }),
      );
    fc.assert(
      fc.property(arb, (s) => {
        const back = parseCohort(serializeCohort(s));
        expect(back.hasReport).toBe(true);
        expect(back.state).toEqual(s);
      }),
    );
  });

  it("refuse numbers out of range and junk, offering the nearest valid grid", () => {
    const { state, problems } = parseCohort("range=last7&cycles=999&trial=x&period=0&rows=year&cell=ltv");
    expect(state).toMatchObject({ cycles: 36, trialDays: 14, periodDays: 1, rows: "week", cell: "ltv" });
    expect(problems.map((p) => p.param)).toEqual(["rows", "cycles", "trial", "period"]);
    expect(problems.find((p) => p.param === "cycles")?.message).toBe("Billing cycles shown must be 1 to 36, not “999”.");
    expect(parseCohort(serializeCohort(state)).problems).toEqual([]);
  });
});

describe("requests", () => {
  it("fetch the shown metrics plus what the KPIs need, in catalog order", () => {
    const s: ExploreState = { ...defaultExploreState(), metrics: ["revenue"], kpis: ["approval_rate"], filters: { card_brand: ["VISA"] } };
    expect(exploreRequest(s, today)).toEqual({
      op: "orders",
      request: {
        start_date: "2025-07-02",
        end_date: "2025-07-31",
        filters: { card_brand: ["VISA"] },
        group_by: ["date"],
        metrics: ["attempts", "approvals", "revenue"],
      },
    });
  });

  it("ask the cohort operation for days × billing cycles", () => {
    expect(cohortRequest(defaultCohortState(), today).request).toEqual({
      start_date: "2025-05-03",
      end_date: "2025-07-31",
      group_by: ["date", "billing_cycle"],
      metrics: ["cpa", "approvals_by_initial_date", "revenue_by_initial_date", "cb_amount_by_initial_date", "refund_amount_by_initial_date"],
    });
  });

  it("list the grid's metrics in catalog order, as every request lists its metrics", () => {
    const wanted = new Set<string>(COHORT_GRID_METRICS);
    expect(COHORT_GRID_METRICS).toEqual(metricsFor("cohort").map((m) => m.name).filter((m) => wanted.has(m)));
  });

  it("describe filters for people", () => {
    expect(describeFilters({ card_brand: ["MASTERCARD", "VISA"], product_id: [903] })).toBe("Card brand: MASTERCARD or VISA; Product ID: 903");
    expect(describeFilters({})).toBe("none");
  });
});

describe("sign-in return paths", () => {
  it("keep the report's query", async () => {
    const { pathWithQuery } = await import("./encoding");
    expect(pathWithQuery("/explore", {})).toBe("/explore");
    expect(pathWithQuery("/explore", { op: "orders", by: "date,bin", x: undefined, f: ["a", "b"] })).toBe("/explore?op=orders&by=date%2Cbin&f=a&f=b");
  });
});
