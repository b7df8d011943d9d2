import { describe, expect, it } from "vitest";
import { applyToEveryTile, newTile, parseTile, starterDashboard, type DashboardState } from "@/lib/report/state/dashboard";
import { effectiveTile, tileRequests, tileTitle } from "./tile-spec";

const TODAY = "2026-11-24";

describe("tiles under the dashboard's settings", () => {
  const base: DashboardState = {
    range: { preset: "last7" },
    grain: "week",
    compare: { kind: "year" },
    filters: { card_brand: ["VISA"] },
    tiles: [],
  };

  it("take the dashboard's range, grain, comparison and filters unless pinned", () => {
    const tile = parseTile("chart.4|op=orders&range=last90&by=date,gateway_alias&m=revenue&f.sales_type=Rebills|", 0).tile!;
    const spec = effectiveTile(base, tile);
    expect(spec.kind).toBe("chart");
    if (spec.kind === "cohort") throw new Error("unreachable");
    expect(spec.state.range).toEqual({ preset: "last7" });
    expect(spec.state.grain).toBe("week");
    expect(spec.state.compare).toEqual({ kind: "year" });
    expect(spec.state.filters).toEqual({ card_brand: ["VISA"], sales_type: ["Rebills"] });
    const pinned = effectiveTile(base, { ...tile, pins: { range: true, grain: true, compare: true, filters: true } });
    if (pinned.kind === "cohort") throw new Error("unreachable");
    expect(pinned.state.range).toEqual({ preset: "last90" });
    expect(pinned.state.grain).toBe("day");
    expect(pinned.state.compare).toEqual({ kind: "none" });
    expect(pinned.state.filters).toEqual({ sales_type: ["Rebills"] });
  });

  it("intersect filters on the same dimension, and name a conflict rather than run an empty tile", () => {
    const both = effectiveTile(base, parseTile("table.2|op=orders&range=last30&by=gateway_alias&m=revenue&f.card_brand=VISA,MASTERCARD|", 0).tile!);
    if (both.kind === "cohort") throw new Error("unreachable");
    expect(both.state.filters.card_brand).toEqual(["VISA"]);
    const conflict = effectiveTile(base, parseTile("table.2|op=orders&range=last30&by=gateway_alias&m=revenue&f.card_brand=MASTERCARD|", 0).tile!);
    expect(conflict.conflict).toMatch(/no value in common/);
    expect(tileRequests(conflict, TODAY)).toBeNull();
  });

  it("a KPI is fetched by date for its one measure and always compared (the previous period when the dashboard does not say)", () => {
    const kpi = parseTile("kpi.1|op=orders&range=last30&by=gateway_alias&m=attempts,revenue&kpi=approval_rate&cm=approval_rate|", 0).tile!;
    const spec = effectiveTile({ ...base, compare: { kind: "none" }, filters: {} }, kpi);
    const req = tileRequests(spec, TODAY)!;
    expect(req.main.request.group_by).toEqual(["date"]);
    expect(req.main.request.metrics).toEqual(["attempts", "approvals"]); // catalog order
    expect(req.comparison?.request).toMatchObject({ start_date: "2026-11-11", end_date: "2026-11-17" });
    expect(tileTitle(kpi, spec)).toBe("Approval rate");
  });

  it("apply to every tile: every tile takes the new settings except what it pins, and a pinning tile names what it keeps", () => {
    const start = starterDashboard();
    const next = applyToEveryTile(start, { range: { preset: "last7" }, grain: "week", compare: { kind: "none" }, filters: { card_brand: ["VISA"] } });
    expect(next.tiles).toEqual(start.tiles);
    const specs = next.tiles.map((t) => ({ tile: t, spec: effectiveTile(next, t, TODAY) }));
    for (const { tile, spec } of specs) {
      const range = spec.state.range;
      if (tile.pins.range) expect(range).toEqual({ preset: "last90" });
      else expect(range).toEqual({ preset: "last7" });
      expect(spec.state.filters).toMatchObject({ card_brand: ["VISA"] });
    }
    const pivot = specs.find((s) => s.tile.kind === "pivot")!;
    expect(pivot.spec.state).toMatchObject({ grain: "month", range: { preset: "last90" } });
    expect(pivot.spec.keeps).toEqual(["Keeps its own range: last 90 days", "Keeps its own grain: by month"]);
    const chart = specs.find((s) => s.tile.kind === "chart")!;
    expect(chart.spec.state).toMatchObject({ grain: "week", compare: { kind: "none" } });
    expect(chart.spec.keeps).toEqual([]);
    // The dashboard compares with nothing; a KPI still compares, and its badge says so.
    for (const kpi of specs.filter((s) => s.tile.kind === "kpi")) {
      expect(kpi.spec.state).toMatchObject({ compare: { kind: "previous" }, range: { preset: "last7" } });
      expect(kpi.spec.keeps).toEqual(["Compares with the previous period: a KPI always compares"]);
    }
    const withCompare = applyToEveryTile(next, { ...next, compare: { kind: "year" } });
    for (const t of withCompare.tiles.filter((t) => t.kind === "kpi")) {
      const spec = effectiveTile(withCompare, t, TODAY);
      expect(spec.state).toMatchObject({ compare: { kind: "year" } });
      expect(spec.keeps).toEqual([]);
    }
  });

  it("every pin is named on its tile with the value it keeps", () => {
    const tile = parseTile("chart.4.rgcf|op=orders&range=last90&by=date&grain=month&m=revenue&cmp=prev&f.card_brand=VISA,MASTERCARD|", 0).tile!;
    expect(effectiveTile(base, tile, TODAY).keeps).toEqual([
      "Keeps its own range: last 90 days",
      "Keeps its own grain: by month",
      "Keeps its own comparison: the previous period",
      "Keeps only its own filters: Card brand MASTERCARD or VISA",
    ]);
    const custom = parseTile("table.2.r|op=orders&range=2026-01-01..2026-03-31&by=gateway_alias&m=revenue|", 0).tile!;
    expect(effectiveTile(base, custom, TODAY).keeps).toEqual(["Keeps its own range: 2026-01-01 to 2026-03-31"]);
    // A grain pin on a tile not grouped by date changes nothing, so it is not claimed.
    const table = parseTile("table.2.g|op=orders&range=last30&by=gateway_alias&m=revenue|", 0).tile!;
    expect(effectiveTile(base, table, TODAY).keeps).toEqual([]);
  });

  it("a range shorter than the grain is read at a finer grain, and the tile says so", () => {
    const chart = parseTile("chart.4|op=orders&range=last30&by=date&m=revenue|", 0).tile!;
    const d: DashboardState = { ...base, range: { preset: "last7" }, grain: "month", compare: { kind: "none" }, filters: {} };
    const spec = effectiveTile(d, chart, TODAY);
    expect(spec.state).toMatchObject({ grain: "week" });
    expect(spec.notes).toEqual(["By week, not by month: the range's 7 days are shorter than a month, so every month shown would be partial."]);
    // A pinned grain is kept as long as the range holds one of its periods.
    const pivot = starterDashboard().tiles.find((t) => t.kind === "pivot")!;
    expect(effectiveTile(d, pivot, TODAY).state).toMatchObject({ grain: "month" });
    expect(effectiveTile({ ...d, range: { preset: "last30" } }, chart, TODAY).notes).toEqual([]);
  });

  it("a cohort tile takes range and filters, and says it has no comparison or grain", () => {
    const spec = effectiveTile(base, newTile("cohort"));
    expect(spec.kind).toBe("cohort");
    expect(spec.notes).toEqual(["A cohort grid has no comparison.", "Cohort rows keep their own grouping (by week)."]);
    const req = tileRequests(spec, TODAY)!;
    expect(req.main.op).toBe("cohort");
    expect(req.main.request.filters).toEqual({ card_brand: ["VISA"] });
    expect(req.comparison).toBeNull();
  });
});

describe("the starter dashboard on Last month", () => {
  it("compares calendar months: October beside September, every tile that follows the dashboard", () => {
    const s = { ...starterDashboard(), range: { preset: "lastmonth" as const } };
    expect(s.compare).toEqual({ kind: "previous" });
    for (const tile of s.tiles) {
      const spec = effectiveTile(s, tile, TODAY);
      const requests = tileRequests(spec, TODAY);
      if (!requests?.comparison || tile.pins.compare || spec.kind === "cohort") continue;
      expect(requests.main.request).toMatchObject({ start_date: "2026-10-01", end_date: "2026-10-31" });
      expect(spec.state.compare).toEqual({ kind: "calendar" });
      expect(requests.comparison.request).toMatchObject({ start_date: "2026-09-01", end_date: "2026-09-30" });
    }
    // The last 30 days stay beside the 30 days before them.
    const last30 = effectiveTile(starterDashboard(), starterDashboard().tiles[0]!, TODAY);
    expect(tileRequests(last30, TODAY)?.comparison?.request).toMatchObject({ start_date: "2026-09-26", end_date: "2026-10-25" });
  });
});
