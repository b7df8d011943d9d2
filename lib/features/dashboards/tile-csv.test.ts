/**
 * A tile's CSV is its table as the tile shows it: a pivot's rows, columns and totals in the order on
 * screen, each amount to the cent (summed in cents, so no float drift), under lines naming the
 * dashboard, the tile, its days and what it keeps; a table's changes keep their sign.
 */
import { describe, expect, it } from "vitest";
import type { ReportRecord } from "@/lib/contract/schemas";
import { parseCsv } from "@/lib/core/testing/csv";
import { parseDashboard } from "@/lib/report/state/dashboard";
import { effectiveTile, tileRequests } from "@/lib/features/dashboards/tile-spec";
import { buildTileModel } from "./tiles";
import type { TileAnswer } from "./answer";
import { tileCsv, tileCsvSource } from "./tile-csv";

const TODAY = "2026-06-30";
const FETCHED = "2026-06-30T09:15:00.000Z";

/** A drawn tile of the dashboard `params`, from records made for its requests. */
function drawn(params: string, records: (start: string, end: string) => ReportRecord[], comparison?: (start: string, end: string) => ReportRecord[]): TileAnswer {
  const state = parseDashboard(params, TODAY).state;
  const spec = effectiveTile(state, state.tiles[0]!, TODAY);
  const requests = tileRequests(spec, TODAY)!;
  const main = records(requests.main.request.start_date, requests.main.request.end_date);
  const cmp = requests.comparison?.request;
  const model = buildTileModel(spec, requests, { main, comparison: cmp && comparison ? comparison(cmp.start_date, cmp.end_date) : null }, TODAY);
  return { index: 0, title: "Revenue by month", kind: spec.kind, notes: [], keeps: ["Keeps its own grain: by month"], outcome: { status: "done", model, fetched_at: FETCHED, stale: false } };
}

describe("a pivot tile's CSV", () => {
  const tile = drawn(`range=2026-04-01..2026-05-31&t=${encodeURIComponent("pivot.4.g|op=orders&range=last90&by=date,card_brand&grain=month&m=revenue&table=pivot|Revenue by month")}`, () => [
    // Amounts whose float sum drifts (0.1 + 0.2): the file says what the tile says, to the cent.
    { date: "2026-04-02", card_brand: "VISA", revenue: 0.1 },
    { date: "2026-04-20", card_brand: "VISA", revenue: 0.2 },
    { date: "2026-04-03", card_brand: "AMEX", revenue: 1234.56 },
    { date: "2026-05-07", card_brand: "VISA", revenue: -5.25 },
    { date: "2026-05-08", card_brand: "MASTERCARD", revenue: 10 },
  ]);
  const source = tileCsvSource(tile, { dashboard: "Payments · weekly", timeZone: "Europe/London", filters: "none" })!;

  it("is the table on screen: its header, its rows in order, each cell the shown amount to the cent, then the totals", () => {
    expect(source).not.toBeNull();
    const body = tile.outcome.status === "done" ? tile.outcome.model.body : null;
    if (body?.kind !== "pivot" || "error" in body.pivot) throw new Error("not a pivot");
    const p = body.pivot;
    const rows = parseCsv(tileCsv(source));
    const blank = rows.findIndex((r) => r.length === 1 && r[0] === "");
    const [header, ...lines] = rows.slice(blank + 1).filter((r) => r.length > 1);
    expect(header).toEqual(["Month", ...p.columns.map((c) => `${c.label} (USD)`), "Total (USD)"]);
    const shown = [...p.rows.map((r) => [r.dims[0]!.text, ...r.cells.map((c) => c.text), r.total.text]), ["Totals", ...p.columnTotals.map((c) => c.text), p.grandTotal.text]];
    expect(lines.map((l) => l[0])).toEqual(shown.map((s) => s[0]));
    // "$1,234.56" on screen is 1234.56 in the file; "−$5.25" is -5.25.
    const cents = (text: string) => Math.round(Number(text.replace(/[$,]/g, "").replace("\u2212", "-")) * 100);
    expect(lines.map((l) => l.slice(1).map(cents))).toEqual(shown.map((s) => s.slice(1).map(cents)));
    expect(tileCsv(source).split("\r\n").slice(blank + 1)).toEqual([
      "Month,AMEX (USD),MASTERCARD (USD),VISA (USD),Total (USD)",
      "2026-04,1234.56,0,0.3,1234.86",
      "2026-05,0,10,-5.25,4.75",
      "Totals,1234.56,10,-4.95,1239.61",
      "",
    ]);
  });

  it("says above the table what it is: the dashboard, the tile, its days, zone, filters, what it keeps and when its data is as of", () => {
    const rows = parseCsv(tileCsv(source));
    expect(rows.slice(0, 8)).toEqual([
      ["Dashboard", "Payments · weekly"],
      ["Tile", "Revenue by month"],
      ["Range", "2026-04-01 to 2026-05-31"],
      ["Timezone", "Europe/London"],
      ["Filters", "none"],
      ["Keeps", "Keeps its own grain: by month"],
      ["Periods", expect.stringContaining("month")],
      ["Data as of", "2026-06-30 10:15:00 Europe/London"],
    ]);
    expect(source.fileName).toBe("Payments-weekly_Revenue-by-month_2026-04-01_2026-05-31");
  });

  it("is offered only for a drawn table, pivot or retention tile", () => {
    expect(tileCsvSource({ ...tile, outcome: { status: "failed", message: "x" } }, { dashboard: "d", timeZone: "UTC", filters: "none" })).toBeNull();
    const kpi = drawn(`range=2026-04-01..2026-05-31&t=${encodeURIComponent("kpi.1|op=orders&range=last30&by=date&m=revenue|")}`, () => []);
    expect(tileCsvSource(kpi, { dashboard: "d", timeZone: "UTC", filters: "none" })).toBeNull();
  });
});

describe("a table tile's CSV", () => {
  it("writes a decrease as a signed number, the change the tile shows with its minus sign", () => {
    const tile = drawn(
      `range=2026-06-01..2026-06-10&cmp=prev&t=${encodeURIComponent("table.4|op=orders&range=last30&by=card_brand&m=revenue|")}`,
      () => [{ card_brand: "VISA", revenue: 100.1 }],
      () => [{ card_brand: "VISA", revenue: 105.35 }],
    );
    const body = tile.outcome.status === "done" ? tile.outcome.model.body : null;
    if (body?.kind !== "table") throw new Error("not a table");
    const change = body.table.columns.findIndex((c) => c.label === "Revenue change");
    expect(body.table.rows[0]!.cells[change]!.text.startsWith("\u2212$5.25")).toBe(true);
    const rows = parseCsv(tileCsv(tileCsvSource(tile, { dashboard: "d", timeZone: "UTC", filters: "none" })!));
    const header = rows.find((r) => r[0] === "Card brand")!;
    const visa = rows.find((r) => r[0] === "VISA")!;
    expect(visa[header.indexOf("Revenue change (USD)")]).toBe("-5.25");
  });
});
