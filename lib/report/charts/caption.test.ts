import { describe, expect, it } from "vitest";
import type { ReportRecord } from "@/lib/contract";
import { measureFor } from "@/lib/report/metrics/kpis";
import type { CompareSelection } from "@/lib/report/periods/compare";
import type { DayRange } from "@/lib/report/periods/grain";
import { buildReportView } from "@/lib/report/periods/view";
import { describeChart } from "./caption";
import { buildChartData, chooseChart } from "./shape";

const revenue = measureFor("revenue", "orders")!;
const day = (date: string): ReportRecord => ({ date, revenue: 10, approvals: 1, attempts: 2 });

function captionOf(range: DayRange, compare: CompareSelection, cmp: DayRange): string {
  const view = buildReportView({
    op: "orders",
    groupBy: ["date"],
    metrics: ["attempts", "approvals", "revenue"],
    grain: "day",
    range,
    records: [day(range.start)],
    comparison: { compare, range: cmp, records: [day(cmp.start)] },
  });
  const plan = chooseChart(["date"], "auto");
  if (plan.type === "none") throw new Error("no chart");
  const c = describeChart(buildChartData(view, plan, revenue));
  return [c.title, ...c.notes].join(" ");
}

const times = (text: string, part: string) => text.split(part).length - 1;

describe("a chart caption", () => {
  it("names a calendar comparison in words and gives its dates once", () => {
    const text = captionOf({ start: "2026-10-01", end: "2026-10-31" }, { kind: "calendar" }, { start: "2026-09-01", end: "2026-09-30" });
    expect(text).toContain("Dashed: Revenue in the previous month (2026-09-01 to 2026-09-30)");
    expect(times(text, "2026-09-01 to 2026-09-30")).toBe(1);
  });

  it("gives a custom comparison's range once", () => {
    const cmp = { start: "2026-08-03", end: "2026-08-09" };
    const text = captionOf({ start: "2026-10-01", end: "2026-10-07" }, { kind: "custom", ...cmp }, cmp);
    expect(text).toContain("Dashed: Revenue in the comparison range 2026-08-03 to 2026-08-09");
    expect(times(text, "2026-08-03 to 2026-08-09")).toBe(1);
  });

  it("says the previous period's dates once", () => {
    const text = captionOf({ start: "2026-10-01", end: "2026-10-07" }, { kind: "previous" }, { start: "2026-09-24", end: "2026-09-30" });
    expect(times(text, "2026-09-24 to 2026-09-30")).toBe(1);
  });
});
