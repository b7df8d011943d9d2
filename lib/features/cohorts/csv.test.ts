import { describe, expect, it } from "vitest";
import type { ReportRecord } from "@/lib/contract/schemas";
import { gridToCsv } from "./csv";
import { buildCohortGrid, type CohortGridInput } from "./grid";

const gridOf = (range: { start: string; end: string }, rows: CohortGridInput["rows"], records: ReportRecord[], today: string) =>
  buildCohortGrid({ records, range, today, rows, cell: "retention", cycles: 1, trialDays: 14, periodDays: 30 });

const grid = gridOf(
  { start: "2025-06-02", end: "2025-06-16" },
  "week",
  [
    { date: "2025-06-02", billing_cycle: 0, approvals_by_initial_date: 10 },
    { date: "2025-06-02", billing_cycle: 1, approvals_by_initial_date: 4 },
    { date: "2025-06-16", billing_cycle: 0, approvals_by_initial_date: 5 },
  ],
  "2025-06-25",
);

const META = { lines: [["Range", "2025-06-01 to 2025-07-25"]] as const };
/** The annotated file's lines above the blank line that ends its meta lines. */
const metaLines = (csv: string) => csv.split("\r\n").slice(0, csv.split("\r\n").indexOf(""));

describe("the retention grid as CSV", () => {
  it("data only: header with the unit first, one row per cohort, masked cells empty, no summary", () => {
    expect(gridToCsv(grid, null).split("\r\n")).toEqual([
      "Cohort,Customers,Cycle 0 (%),Cycle 1 (%)",
      "Week of 2025-06-02,10,100,40",
      "Week of 2025-06-09,0,,",
      "Week of 2025-06-16 (partial),5,100,",
      "",
    ]);
  });
  it("annotated: meta lines, the partial rows' days, a blank line, the rows and the summary row", () => {
    const lines = gridToCsv(grid, META).split("\r\n");
    expect(lines.slice(0, 4)).toEqual([
      "Range,2025-06-01 to 2025-07-25",
      "Note,Week of 2025-06-16 (partial): Only 2025-06-16 to 2025-06-16 of 2025-06-16 to 2025-06-22 is in the range.",
      "",
      "Cohort,Customers,Cycle 0,Cycle 1",
    ]);
    // three weeks and the summary row, then the final line end
    expect(lines).toHaveLength(4 + 4 + 1);
    expect(lines.at(-2)).toBe("All cohorts,15,100,40");
  });
});

describe("partial cohorts in the CSV: named as shown, the columns unchanged", () => {
  const header = "Cohort,Customers,Cycle 0 (%),Cycle 1 (%)";

  it("a range that cuts both ends marks both months, and the annotated file names their days", () => {
    const g = gridOf({ start: "2026-10-15", end: "2026-11-20" }, "month", [{ date: "2026-10-20", billing_cycle: 0, approvals_by_initial_date: 8 }], "2027-01-31");
    expect(gridToCsv(g, null).split("\r\n")).toEqual([header, "2026-10 (partial),8,100,0", "2026-11 (partial),0,,", ""]);
    expect(metaLines(gridToCsv(g, META))).toEqual([
      "Range,2025-06-01 to 2025-07-25",
      "Note,2026-10 (partial): Only 2026-10-15 to 2026-10-31 of 2026-10-01 to 2026-10-31 is in the range.",
      "Note,2026-11 (partial): Only 2026-11-01 to 2026-11-20 of 2026-11-01 to 2026-11-30 is in the range.",
    ]);
  });

  it("whole months: no row marked, no note", () => {
    const g = gridOf({ start: "2026-09-01", end: "2026-10-31" }, "month", [], "2027-01-31");
    expect(gridToCsv(g, null).split("\r\n")).toEqual([header, "2026-09,0,,", "2026-10,0,,", ""]);
    expect(metaLines(gridToCsv(g, META))).toEqual(["Range,2025-06-01 to 2025-07-25"]);
  });

  it("ISO weeks across a year end: the week of Monday 2020-12-28 ends on 2021-01-03", () => {
    const g = gridOf({ start: "2021-01-01", end: "2021-01-10" }, "week", [{ date: "2021-01-02", billing_cycle: 0, approvals_by_initial_date: 3 }], "2021-06-30");
    expect(gridToCsv(g, null).split("\r\n")).toEqual([header, "Week of 2020-12-28 (partial),3,100,0", "Week of 2021-01-04,0,,", ""]);
    expect(metaLines(gridToCsv(g, META))[1]).toBe("Note,Week of 2020-12-28 (partial): Only 2021-01-01 to 2021-01-03 of 2020-12-28 to 2021-01-03 is in the range.");
  });

  it("days are never partial", () => {
    const g = gridOf({ start: "2026-10-31", end: "2026-11-01" }, "day", [], "2027-01-31");
    expect(gridToCsv(g, null).split("\r\n")).toEqual([header, "2026-10-31,0,,", "2026-11-01,0,,", ""]);
    expect(metaLines(gridToCsv(g, META))).toEqual(["Range,2025-06-01 to 2025-07-25"]);
  });
});
