import { describe, expect, it } from "vitest";
import { cohortQueryString, parseCohort, cohortLook, cohortRequest } from "./cohort";

const TODAY = "2026-11-24";

describe("Cohorts' look at a URL (what its server render hands the page)", () => {
  it("is the page's parse, its request and its form parameters, as the page computed them itself", () => {
    for (const qs of ["", "range=last90", "range=2026-06-01..2026-09-30&f.card_brand=VISA&rows=month&cell=ltv&cycles=6&trial=7&period=30"]) {
      const parsed = parseCohort(qs, TODAY);
      expect(cohortLook(new URLSearchParams(qs), TODAY)).toEqual({
        ...parsed,
        spec: parsed.hasReport && parsed.problems.length === 0 ? cohortRequest(parsed.state, TODAY) : null,
        key: cohortQueryString(parsed.state),
      });
    }
  });

  it("runs nothing for a URL with a problem, and names the problem", () => {
    const look = cohortLook("range=last90&rows=fortnight", TODAY);
    expect(look.problems.map((p) => p.param)).toEqual(["rows"]);
    expect(look.spec).toBeNull();
  });
});
