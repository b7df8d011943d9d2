import { describe, expect, it } from "vitest";
import { OPERATIONS } from "@/lib/contract";
import { coverageRequest } from "@/lib/report/periods/coverage";
import { comparisonRequest, defaultExploreState, exploreQueryString, exploreRequest, normalizeExplore, parseExplore, exploreLook, defaultColumns } from "./explore";

const TODAY = "2026-11-24";

describe("Explore's look at a URL (what its server render hands the page)", () => {
  it("is the page's parse, its requests and its form parameters, as the page computed them itself", () => {
    for (const qs of [
      "",
      "op=orders&range=last30&by=date,gateway_id&m=attempts,approvals,revenue&kpi=approval_rate",
      "op=orders&range=2025-11-25..2026-11-24&by=date&grain=month&cmp=prev&m=attempts,approvals,revenue&kpi=approval_rate&sort=-revenue&chart=bar",
      "op=cohort&range=last90&by=date&m=revenue_by_initial_date&f.card_brand=VISA",
      "op=orders&range=last30&by=bin&cmp=prev&m=revenue&f.card_brand=VISA",
    ]) {
      const parsed = parseExplore(qs, TODAY);
      const runs = parsed.hasReport && parsed.problems.length === 0;
      const cmp = runs ? comparisonRequest(parsed.state, TODAY) : null;
      const coverage = cmp ? coverageRequest(cmp.op, cmp.request) : null;
      expect(exploreLook(new URLSearchParams(qs), TODAY)).toEqual({
        ...parsed,
        spec: runs ? exploreRequest(parsed.state, TODAY) : null,
        comparison: runs ? comparisonRequest(parsed.state, TODAY) : null,
        coverage: cmp && coverage ? { op: cmp.op, request: coverage } : null,
        key: exploreQueryString(parsed.state),
      });
    }
  });

  it("asks the compared days' attempts by date beside a comparison that cannot say which of its days hold data", () => {
    const byBin = exploreLook("op=orders&range=last30&by=bin&cmp=prev&m=revenue&f.card_brand=VISA", TODAY);
    const cmp = byBin.comparison!.request;
    expect(byBin.coverage).toEqual({
      op: "orders",
      request: { start_date: cmp.start_date, end_date: cmp.end_date, group_by: ["date"], metrics: ["attempts"], filters: cmp.filters },
    });
    // By date with a sales measure, the comparison's own answer says it; uncompared, nothing is asked.
    expect(exploreLook("op=orders&range=last30&by=date&cmp=prev&m=revenue", TODAY).coverage).toBeNull();
    expect(exploreLook("op=orders&range=last30&by=bin&m=revenue", TODAY).coverage).toBeNull();
  });

  it("runs nothing for a URL with a problem, and names the problem", () => {
    const look = exploreLook("op=orders&range=last30&m=no_such_metric", TODAY);
    expect(look.problems.map((p) => p.param)).toEqual(["m"]);
    expect(look.spec).toBeNull();
    expect(look.comparison).toBeNull();
  });

  it("each report's default columns are its own catalog metrics and KPIs", () => {
    for (const op of OPERATIONS) {
      const d = defaultExploreState(op);
      expect(normalizeExplore(d)).toEqual(d);
      expect({ metrics: d.metrics, kpis: d.kpis }).toEqual(defaultColumns(op));
    }
  });
});
