import { describe, expect, it } from "vitest";
import { OPERATIONS } from "@/lib/contract";
import { comparisonRequest, defaultExploreState, exploreQueryString, exploreRequest, normalizeExplore, parseExplore, exploreLook, defaultColumns } from "./explore";

const TODAY = "2026-11-24";

describe("Explore's look at a URL (what its server render hands the page)", () => {
  it("is the page's parse, its requests and its form parameters, as the page computed them itself", () => {
    for (const qs of [
      "",
      "op=orders&range=last30&by=date,gateway_id&m=attempts,approvals,revenue&kpi=approval_rate",
      "op=orders&range=2025-11-25..2026-11-24&by=date&grain=month&cmp=prev&m=attempts,approvals,revenue&kpi=approval_rate&sort=-revenue&chart=bar",
      "op=cohort&range=last90&by=date&m=revenue_by_initial_date&f.card_brand=VISA",
    ]) {
      const parsed = parseExplore(qs, TODAY);
      const runs = parsed.hasReport && parsed.problems.length === 0;
      expect(exploreLook(new URLSearchParams(qs), TODAY)).toEqual({
        ...parsed,
        spec: runs ? exploreRequest(parsed.state, TODAY) : null,
        comparison: runs ? comparisonRequest(parsed.state, TODAY) : null,
        key: exploreQueryString(parsed.state),
      });
    }
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
