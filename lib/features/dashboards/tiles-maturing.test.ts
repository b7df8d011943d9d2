/**
 * A KPI tile of a maturing rate: "maturing" beside its value with the reason, and a change without
 * better or worse while either side is maturing; judged normally once both sides have matured.
 */
import { describe, expect, it } from "vitest";
import { addDays } from "@/lib/contract/dates";
import type { ReportRecord } from "@/lib/contract/schemas";
import { parseDashboard } from "@/lib/report/state/dashboard";
import { effectiveTile, tileRequests } from "@/lib/features/dashboards/tile-spec";
import { buildTileModel, type KpiModel } from "./tiles";

const TODAY = "2026-06-30";

/** Daily records over a request's days: `cb` attempt-dated chargebacks per 100 approvals a day. */
function days(start: string, end: string, cb: number): ReportRecord[] {
  const out: ReportRecord[] = [];
  for (let d = start; d <= end; d = addDays(d, 1)) out.push({ date: d, approvals: 100, cb_count: cb });
  return out;
}

function kpiTile(range: string): KpiModel {
  const tile = "kpi.1|op=orders&range=last30&kpi=cb_rate_count&cm=cb_rate_count|";
  const state = parseDashboard(`range=${range}&cmp=prev&t=${encodeURIComponent(tile)}`, TODAY).state;
  const spec = effectiveTile(state, state.tiles[0]!, TODAY);
  const requests = tileRequests(spec, TODAY)!;
  expect(requests.comparison, "the tile compares").not.toBeNull();
  const main = days(requests.main.request.start_date, requests.main.request.end_date, 1);
  const cmp = requests.comparison!.request;
  const model = buildTileModel(spec, requests, { main, comparison: days(cmp.start_date, cmp.end_date, 2) }, TODAY);
  if (model.body.kind !== "kpi") throw new Error(model.body.kind);
  return model.body;
}

describe("a KPI tile of a maturing rate", () => {
  it("over the last 30 days says maturing beside its value, and its change keeps its sign without a verdict", () => {
    const body = kpiTile("last30");
    expect(body.maturing).toMatch(/^Chargebacks on sales this recent are still arriving/);
    expect(body.value.text).toBe("1.00% (maturing)");
    expect(body.change?.text).toBe("\u22121.00 pp (maturing)");
    expect(body.change?.tone).toBeUndefined();
  });

  it("over days that have matured on both sides is judged as any other", () => {
    const end = addDays(TODAY, -200);
    const body = kpiTile(`${addDays(end, -29)}..${end}`);
    expect(body.maturing).toBeNull();
    expect(body.value.text).toBe("1.00%");
    expect(body.change?.text).toBe("\u22121.00 pp (better)");
    expect(body.change?.tone).toBe("good");
  });
});
