import { describe, expect, it } from "vitest";
import { gridToCsv } from "./csv";
import { buildCohortGrid } from "./grid";

const grid = buildCohortGrid({
  records: [
    { date: "2025-06-02", billing_cycle: 0, approvals_by_initial_date: 10 },
    { date: "2025-06-02", billing_cycle: 1, approvals_by_initial_date: 4 },
    { date: "2025-06-16", billing_cycle: 0, approvals_by_initial_date: 5 },
  ],
  range: { start: "2025-06-02", end: "2025-06-16" },
  today: "2025-06-25",
  rows: "week",
  cell: "retention",
  cycles: 1,
  trialDays: 14,
  periodDays: 30,
});

describe("the retention grid as CSV", () => {
  it("data only: header with the unit first, one row per cohort, masked cells empty, no summary", () => {
    expect(gridToCsv(grid, null).split("\r\n")).toEqual([
      "Cohort,Customers,Cycle 0 (%),Cycle 1 (%)",
      "Week of 2025-06-02,10,100,40",
      "Week of 2025-06-09,0,,",
      "Week of 2025-06-16,5,100,",
      "",
    ]);
  });
  it("annotated: meta lines, a blank line, the rows and the summary row", () => {
    const lines = gridToCsv(grid, { lines: [["Range", "2025-06-01 to 2025-07-25"]] }).split("\r\n");
    expect(lines.slice(0, 3)).toEqual(["Range,2025-06-01 to 2025-07-25", "", "Cohort,Customers,Cycle 0,Cycle 1"]);
    // three weeks and the summary row, then the final line end
    expect(lines).toHaveLength(3 + 4 + 1);
  });
});
