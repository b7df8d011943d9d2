/**
 * A KPI tile compared with a period the data covers only in part (a year to date against last year,
 * on data that starts late in last year): the compared value says on how many of its days there is
 * data, and the change is not called better or worse; covered whole, it is judged as ever.
 */
import { describe, expect, it } from "vitest";
import { addDays } from "@/lib/contract/dates";
import type { ReportRecord } from "@/lib/contract/schemas";
import { parseDashboard } from "@/lib/report/state/dashboard";
import { effectiveTile, tileRequests } from "@/lib/features/dashboards/tile-spec";
import { buildTileModel, type KpiModel } from "./tiles";

const TODAY = "2026-11-29";

/** Daily revenue records over the days given. */
function days(start: string, end: string, revenue: number): ReportRecord[] {
  const out: ReportRecord[] = [];
  for (let d = start; d <= end; d = addDays(d, 1)) out.push({ date: d, revenue });
  return out;
}

function ytdRevenue(dataFrom: string): KpiModel {
  const tile = "kpi.1|op=orders&range=last30&by=date&m=revenue|";
  const state = parseDashboard(`range=ytd&cmp=yoy&t=${encodeURIComponent(tile)}`, TODAY).state;
  const spec = effectiveTile(state, state.tiles[0]!, TODAY);
  const requests = tileRequests(spec, TODAY)!;
  const cmp = requests.comparison!.request;
  expect(cmp).toMatchObject({ start_date: "2025-01-01", end_date: "2025-11-29" });
  const main = days(requests.main.request.start_date, requests.main.request.end_date, 100);
  const compared = days(dataFrom > cmp.start_date ? dataFrom : cmp.start_date, cmp.end_date, 50);
  const model = buildTileModel(spec, requests, { main, comparison: compared }, TODAY);
  if (model.body.kind !== "kpi") throw new Error(model.body.kind);
  return model.body;
}

describe("a KPI tile over a partly covered comparison", () => {
  it("says the compared period's days with data and gives no verdict", () => {
    // Data from 2025-09-24: 67 of the compared 333 days.
    const body = ytdRevenue("2025-09-24");
    expect(body.compared?.text).toBe("$3,350.00 (data on 67 of 333 days)");
    expect(body.change?.text).toBe("+894.03% (partly covered)");
    expect(body.change?.tone).toBeUndefined();
    expect(body.change?.note).toMatch(/^No better or worse: the compared period has data on 67 of 333 days/);
  });

  it("is judged as ever when the data covers every compared day", () => {
    const body = ytdRevenue("2024-01-01");
    expect(body.compared?.text).toBe("$16,650.00");
    expect(body.change).toMatchObject({ text: "+100.00% (better)", tone: "good" });
    expect(body.change?.coverage).toBeUndefined();
  });
});

function dates(start: string, end: string): string[] {
  const out: string[] = [];
  for (let d = start; d <= end; d = addDays(d, 1)) out.push(d);
  return out;
}

/** A tile of the year to date against last year, its comparison's days with attempts from `dataFrom`. */
function ytdTile(tile: string, dataFrom: string, records: (start: string, end: string) => ReportRecord[]) {
  const state = parseDashboard(`range=ytd&cmp=yoy&t=${encodeURIComponent(tile)}`, TODAY).state;
  const spec = effectiveTile(state, state.tiles[0]!, TODAY);
  const requests = tileRequests(spec, TODAY)!;
  const cmp = requests.comparison!.request;
  const main = records(requests.main.request.start_date, requests.main.request.end_date);
  const compared = records(dataFrom, cmp.end_date);
  const coverage = requests.coverage ? dates(dataFrom, cmp.end_date).map((date) => ({ date, attempts: 10 })) : null;
  return { requests, model: buildTileModel(spec, requests, { main, comparison: compared, coverage }, TODAY) };
}

describe("a tile whose comparison's answer cannot say which days hold data", () => {
  it("a breakdown not by date asks the compared days' attempts by date beside it, and its compared values say how many hold data", () => {
    const byBin = (start: string, end: string): ReportRecord[] => (start <= end ? [{ bin: "411111", revenue: 1000 }, { bin: "522222", revenue: 500 }] : []);
    const { requests, model } = ytdTile("table.2|op=orders&range=last30&by=bin&m=revenue|", "2025-09-24", byBin);
    expect(requests.coverage?.request).toEqual({ start_date: "2025-01-01", end_date: "2025-11-29", group_by: ["date"], metrics: ["attempts"] });
    if (model.body.kind !== "table") throw new Error(model.body.kind);
    const cells = model.body.table.rows.flatMap((r) => r.cells.map((c) => c.text));
    expect(cells.some((t) => t.includes("(data on 67 of 333 days)"))).toBe(true);
    expect(cells.some((t) => t.includes("(better)") || t.includes("(worse)"))).toBe(false);
    expect(model.periods).toMatch(/compared period: data on 67 of 333 days/);
  });

  it("a chargebacks-only KPI asks the same, and gives no verdict over a partly covered comparison", () => {
    const cb = (start: string, end: string): ReportRecord[] => dates(start, end).map((date) => ({ date, cb_count: 2 }));
    const { requests, model } = ytdTile("kpi.1|op=orders&range=last30&by=date&m=cb_count|", "2025-09-24", cb);
    expect(requests.coverage?.request).toMatchObject({ group_by: ["date"], metrics: ["attempts"], start_date: "2025-01-01" });
    if (model.body.kind !== "kpi") throw new Error(model.body.kind);
    expect(model.body.compared?.text).toMatch(/\(data on 67 of 333 days\)$/);
    expect(model.body.change?.tone).toBeUndefined();
  });

  it("a comparison by date with a sales measure asks nothing more", () => {
    const state = parseDashboard(`range=ytd&cmp=yoy&t=${encodeURIComponent("chart.4|op=orders&range=last30&by=date&m=revenue&chart=line|")}`, TODAY).state;
    expect(tileRequests(effectiveTile(state, state.tiles[0]!, TODAY), TODAY)?.coverage).toBeNull();
  });
});
