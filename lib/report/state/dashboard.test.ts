import { describe, expect, it } from "vitest";
import { MAX_TILES, addTile, dashboardLook, encodeTile, moveTile, newTile, parseDashboard, parseTile, removeTile, serializeDashboard, shownDashboard, starterDashboard, starterQuery, updateTile, type DashboardState } from "./dashboard";

const TODAY = "2026-11-24";

describe("dashboard URL", () => {
  it("round-trips the starter dashboard exactly", () => {
    const s = starterDashboard();
    const qs = serializeDashboard(s);
    const parsed = parseDashboard(qs, TODAY);
    expect(parsed.problems).toEqual([]);
    expect(parsed.state).toEqual(s);
    expect(serializeDashboard(parsed.state)).toBe(qs);
  });

  it("keeps tile order, widths, pins and titles (with | in the title)", () => {
    const s: DashboardState = { ...starterDashboard(), tiles: [] };
    const a = { ...newTile("chart"), width: 3 as const, pins: { range: true, grain: false, compare: false, filters: true }, title: "Revenue | approvals" };
    const b = newTile("kpi");
    const parsed = parseDashboard(serializeDashboard({ ...s, tiles: [a, b] }), TODAY);
    expect(parsed.problems).toEqual([]);
    expect(parsed.state.tiles).toEqual([a, b]);
    expect(encodeTile(a)).toMatch(/^chart\.3\.rf\|/);
  });

  it("names every problem instead of dropping or repairing it", () => {
    const qs = new URLSearchParams([
      ["range", "last30"],
      ["grain", "fortnight"],
      ["cmp", "lastyear"],
      ["f.attempt_col", "1"],
      ["t", "gauge.1|op=orders&range=last30&m=revenue|"],
      ["t", "kpi.5|op=orders&range=last30&m=revenue|"],
      ["t", "kpi.1.x|op=orders&range=last30&m=revenue|"],
      ["t", "pivot.2|op=orders&range=last30&by=date&m=revenue|"],
      ["t", "table.2|op=orders&range=last30&by=nope&m=revenue|"],
      ["t", "no pipes"],
      ["zoom", "2"],
    ]).toString();
    const parsed = parseDashboard(qs, TODAY);
    const params = parsed.problems.map((p) => p.param);
    expect(params).toEqual(expect.arrayContaining(["grain", "cmp", "f.attempt_col", "t1", "t2", "t3", "t4.by", "t5.by", "t6", "zoom"]));
    // Only the tiles that parse are kept; the page runs nothing while problems remain.
    expect(parsed.state.tiles.length).toBe(2);
  });

  it("refuses more than the most tiles a dashboard holds", () => {
    const s = starterDashboard();
    const many = { ...s, tiles: Array.from({ length: MAX_TILES + 1 }, () => newTile("kpi")) };
    const parsed = parseDashboard(serializeDashboard(many), TODAY);
    expect(parsed.problems.some((p) => p.param === "t" && /at most 12/.test(p.message))).toBe(true);
  });

  it("a URL without a range is no dashboard yet (the page opens the saved one or the starter)", () => {
    expect(parseDashboard("", TODAY).hasReport).toBe(false);
  });

  it("refuses a title longer than the limit", () => {
    expect(parseTile(`kpi.1|op=orders&range=last30&m=revenue|${"x".repeat(81)}`, 0).problems[0]?.message).toMatch(/80 characters/);
  });
});

describe("editing", () => {
  const s = starterDashboard();
  it("moves, resizes, removes and adds tiles without touching the others", () => {
    const moved = moveTile(s, 0, 2);
    expect(moved.tiles[2]).toEqual(s.tiles[0]);
    expect(moved.tiles[0]).toEqual(s.tiles[1]);
    expect(moveTile(s, 0, -1)).toBe(s);
    expect(updateTile(s, 1, { width: 3 }).tiles[1]!.width).toBe(3);
    expect(removeTile(s, 0).tiles).toEqual(s.tiles.slice(1));
    expect(addTile(s, newTile("table")).tiles.length).toBe(s.tiles.length + 1);
    const full = { ...s, tiles: Array.from({ length: MAX_TILES }, () => newTile("kpi")) };
    expect(addTile(full, newTile("kpi"))).toBe(full);
  });
});

describe("the look the server hands the dashboard page", () => {
  it("is the page's parse of its URL", () => {
    const qs = `${serializeDashboard(starterDashboard())}&f.card_brand=VISA`;
    const search = new URLSearchParams(qs);
    const look = dashboardLook(search, TODAY, null);
    const parsed = parseDashboard(search, TODAY);
    expect(look).toEqual({ ...parsed, ...shownDashboard(parsed, null), settingsKey: serializeDashboard({ ...parsed.state, tiles: [] }) });
    expect(starterQuery(look)).toBeNull();
  });

  it("names a URL's problems, and runs nothing, as the page would; such a URL is not redirected", () => {
    const look = dashboardLook(new URLSearchParams("range=last30&grain=fortnight"), TODAY, null);
    expect(look.problems.map((p) => p.param)).toEqual(["grain"]);
    expect(look.params).toBeNull();
    expect(starterQuery(look)).toBeNull();
  });

  it("redirects a URL naming no dashboard to the saved one's settings, or the starter's, which the page then shows as they are", () => {
    const saved = serializeDashboard({ ...starterDashboard(), tiles: starterDashboard().tiles.slice(0, 2) });
    for (const savedParams of [null, saved]) {
      const bare = dashboardLook(new URLSearchParams(""), TODAY, savedParams);
      expect(bare.hasReport).toBe(false);
      const query = starterQuery(bare);
      expect(query).toBe(savedParams ?? serializeDashboard(starterDashboard()));
      expect(dashboardLook(new URLSearchParams(query!), TODAY, savedParams)).toMatchObject({ hasReport: true, problems: [], state: bare.state, params: bare.params, settingsKey: bare.settingsKey });
    }
  });
});

