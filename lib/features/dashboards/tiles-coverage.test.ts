/**
 * A KPI tile compared with a period the data covers only in part (a year to date against last year,
 * on data that starts late in last year): the compared value says on how many of its days there is
 * data, and the change is not called better or worse; covered whole, it is judged as ever.
 */
import { describe, expect, it } from "vitest";
import { addDays } from "@/lib/contract/dates";
import type { ReportRecord } from "@/lib/contract/schemas";
import { effectiveTile, parseDashboard, tileRequests } from "@/lib/report/state/dashboard";
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
