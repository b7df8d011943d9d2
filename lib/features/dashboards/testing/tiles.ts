/**
 * A six-tile dashboard drawn from made-up records (tables, pivots, a retention grid; a long title,
 * two tiles of one title, a formula-looking title and dimension value), for the workbook's tests and
 * bench/xlsx.ts.
 */
import type { ReportRecord } from "@/lib/contract/schemas";
import type { ReportRequestSpec } from "@/lib/report/state/request";
import { parseDashboard } from "@/lib/report/state/dashboard";
import { effectiveTile, tileRequests } from "@/lib/features/dashboards/tile-spec";
import { buildTileModel } from "@/lib/features/dashboards/tiles";
import type { TileAnswer } from "@/lib/features/dashboards/answer";

const TODAY = "2026-06-30";
const FETCHED = "2026-06-30T09:15:00.000Z";

const TILES: [string, string][] = [
  ["table.2", "op=orders&range=last30&by=card_brand&m=revenue,attempts&kpi=approval_rate&sort=-revenue|Revenue / brand: top [EU]"],
  ["table.2", "op=orders&range=last30&by=date&m=revenue,approvals&kpi=cb_rate_count|Daily revenue and chargebacks"],
  ["pivot.4", "op=orders&range=last90&by=date,card_brand&grain=month&m=revenue&table=pivot|Revenue by month"],
  ["pivot.4", "op=orders&range=last90&by=date,card_brand&grain=month&kpi=approval_rate&table=pivot|Revenue by month"],
  ["cohort.4", "range=last90|A retention grid whose title is far longer than thirty-one characters"],
  ["table.2", "op=orders&range=last30&by=gateway_alias&m=revenue&f.card_brand=VISA|=SUM(A1:A9)"],
];

function day(start: string, plus: number): string {
  return new Date(Date.parse(`${start}T00:00:00Z`) + plus * 86_400_000).toISOString().slice(0, 10);
}

/** Records for a request: a few days of its range, two values per grouped dimension, a formula-looking one among them. */
function recordsFor({ op, request }: ReportRequestSpec): ReportRecord[] {
  const { start_date: start, group_by: by = [] } = request;
  const out: ReportRecord[] = [];
  for (let d = 0; d < 40; d += 6) {
    const date = day(start, d);
    if (date > request.end_date) break;
    if (op === "cohort") {
      for (let cycle = 0; cycle < 3; cycle++) out.push({ date, billing_cycle: cycle, approvals_by_initial_date: 20 - cycle * 5 - (d % 4), revenue_by_initial_date: 400.5 - cycle * 90 });
      continue;
    }
    for (const [i, v] of ["VISA", "=HYPERLINK(\"x\")"].entries()) {
      const r: ReportRecord = { date, attempts: 30 + d + i, approvals: 20 + (d % 7) - i, revenue: 1234.56 + d * 10.1 - i * 99.99, cb_count: i, cb_amount: i * 25, refund_amount: 0 };
      for (const dim of by) if (dim !== "date") r[dim] = v;
      out.push(r);
    }
  }
  return out;
}

export function drawnTiles(): TileAnswer[] {
  const params = new URLSearchParams([["range", "2026-04-01..2026-05-31"], ...TILES.map(([k, s]) => ["t", `${k}|${s}`] as [string, string])]).toString();
  const state = parseDashboard(params, TODAY).state;
  return state.tiles.map((tile, index) => {
    const spec = effectiveTile(state, tile, TODAY);
    const requests = tileRequests(spec, TODAY)!;
    const cmp = requests.comparison;
    const model = buildTileModel(spec, requests, { main: recordsFor(requests.main), comparison: cmp ? recordsFor(cmp) : null }, TODAY);
    return { index, title: tile.title ?? `Tile ${index + 1}`, kind: spec.kind, notes: [], keeps: [], outcome: { status: "done", model, fetched_at: FETCHED, stale: false } };
  });
}

