import { describe, expect, it } from "vitest";
import type { ReportRecord } from "@/lib/contract";
import { buildReportView } from "@/lib/report/periods/view";
import { headlineFigures } from "./headline";
import { buildViewTable, tableColumns } from "./table";

const MINUS = "\u2212";
const METRICS = ["attempts", "approvals", "revenue"];
const rec = (date: string, revenue: number, approvals: number, attempts: number): ReportRecord => ({ date, revenue, approvals, attempts });

describe("headlineFigures", () => {
  it("gives each measure asked for its total and its changes, as the totals row words them", () => {
    const view = buildReportView({
      op: "orders",
      groupBy: ["date"],
      metrics: METRICS,
      grain: "day",
      range: { start: "2025-07-08", end: "2025-07-09" },
      records: [rec("2025-07-08", 1000, 8, 10), rec("2025-07-09", 500.5, 4, 10)],
      comparison: { compare: { kind: "previous" }, range: { start: "2025-07-06", end: "2025-07-07" }, records: [rec("2025-07-06", 2000, 9, 10), rec("2025-07-07", 1000, 9, 10)] },
    });
    const table = buildViewTable({ op: "orders", groupBy: ["date"], measures: ["revenue", "approval_rate"] }, view);
    const figures = headlineFigures(table);
    expect(figures.map((f) => f.id)).toEqual(["revenue", "approval_rate"]);
    const [revenue, rate] = figures;
    expect(revenue!.value.text).toBe("$1,500.50");
    expect(revenue!.compared?.text).toBe("$3,000.00");
    expect(revenue!.changes.map((c) => c.text)).toEqual([`${MINUS}$1,499.50 (worse)`, `${MINUS}49.98% (worse)`]);
    expect(revenue!.changes[0]!.tone).toBe("bad");
    expect(rate!.value.text).toBe("60.00%");
    expect(rate!.changes.map((c) => c.text)).toEqual([`${MINUS}30.00 pp (worse)`]);
  });

  it("without a comparison: the totals alone", () => {
    const view = buildReportView({ op: "orders", groupBy: ["date"], metrics: METRICS, grain: "day", range: { start: "2025-07-08", end: "2025-07-08" }, records: [rec("2025-07-08", 10, 1, 2)], comparison: null });
    const table = buildViewTable({ op: "orders", groupBy: ["date"], measures: ["attempts"] }, view);
    expect(tableColumns({ op: "orders", groupBy: ["date"], measures: ["attempts"] }).length).toBe(2);
    expect(headlineFigures(table)).toEqual([{ id: "attempts", label: "Attempts", value: { text: "2" }, compared: null, changes: [] }]);
  });
});
