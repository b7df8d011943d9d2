/**
 * The calendar presets (quarter to date, last quarter, year to date, last year): their days for any
 * today, where they are offered, and their URLs with the previous calendar period.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addDays, fromEpochDay, toEpochDay } from "@/lib/contract/dates";
import { parseDashboard } from "./dashboard";
import { comparisonRange, wholeMonths } from "@/lib/report/periods/compare";
import { COHORT_PRESETS, EXPLORE_PRESETS, MAX_RANGE_DAYS, RANGE_PRESETS, presetLabel, rangeDays, resolveRange } from "./range";
import { decodeCompare, encodeCompare, parseExplore, serializeExplore } from "./explore";

const CALENDAR_PRESETS = ["qtd", "lastquarter", "ytd", "lastyear"] as const;

/** Any day from 1999 to 2041. */
const anyDay = fc.integer({ min: toEpochDay("1999-01-01"), max: toEpochDay("2041-12-31") }).map(fromEpochDay);

/** The quarter (1–4) of a date, computed from its month number. */
const quarterOf = (d: string) => Math.ceil(Number(d.slice(5, 7)) / 3);

describe("calendar presets", () => {
  it("resolve to calendar quarters and years around a given today", () => {
    const cases: [string, Record<(typeof CALENDAR_PRESETS)[number], [string, string]>][] = [
      ["2026-11-23", { qtd: ["2026-10-01", "2026-11-23"], lastquarter: ["2026-07-01", "2026-09-30"], ytd: ["2026-01-01", "2026-11-23"], lastyear: ["2025-01-01", "2025-12-31"] }],
      // The first day of a quarter and of a year: to-date is that one day; last quarter is across the year.
      ["2026-01-01", { qtd: ["2026-01-01", "2026-01-01"], lastquarter: ["2025-10-01", "2025-12-31"], ytd: ["2026-01-01", "2026-01-01"], lastyear: ["2025-01-01", "2025-12-31"] }],
      // A leap year's quarter and year.
      ["2024-05-15", { qtd: ["2024-04-01", "2024-05-15"], lastquarter: ["2024-01-01", "2024-03-31"], ytd: ["2024-01-01", "2024-05-15"], lastyear: ["2023-01-01", "2023-12-31"] }],
      ["2025-03-31", { qtd: ["2025-01-01", "2025-03-31"], lastquarter: ["2024-10-01", "2024-12-31"], ytd: ["2025-01-01", "2025-03-31"], lastyear: ["2024-01-01", "2024-12-31"] }],
    ];
    for (const [today, expected] of cases) {
      for (const p of CALENDAR_PRESETS) expect(resolveRange({ preset: p }, today), `${p} on ${today}`).toEqual({ start: expected[p][0], end: expected[p][1] });
    }
  });

  it("hold today (to date) or the whole period before today's (last), for any today (property)", () => {
    fc.assert(
      fc.property(anyDay, (today) => {
        const qtd = resolveRange({ preset: "qtd" }, today);
        const ytd = resolveRange({ preset: "ytd" }, today);
        const lq = resolveRange({ preset: "lastquarter" }, today);
        const ly = resolveRange({ preset: "lastyear" }, today);
        expect(qtd.end).toBe(today);
        expect(ytd.end).toBe(today);
        // To date: from the period's first day, which is in today's quarter (year), and the day before is not.
        expect(quarterOf(qtd.start)).toBe(quarterOf(today));
        expect(qtd.start.slice(0, 4)).toBe(today.slice(0, 4));
        expect(quarterOf(addDays(qtd.start, -1)) === quarterOf(today) && addDays(qtd.start, -1).slice(0, 4) === today.slice(0, 4)).toBe(false);
        expect(ytd.start).toBe(`${today.slice(0, 4)}-01-01`);
        // Last quarter: one whole quarter ending the day before this quarter starts.
        expect(wholeMonths(lq)).toEqual({ months: 3, unit: "quarter", count: 1 });
        expect(addDays(lq.end, 1)).toBe(qtd.start);
        expect([90, 91, 92]).toContain(rangeDays(lq));
        // Last year: the whole calendar year before, 365 or 366 days (within the dashboard's cap).
        expect(wholeMonths(ly)).toEqual({ months: 12, unit: "year", count: 1 });
        expect(Number(ly.start.slice(0, 4))).toBe(Number(today.slice(0, 4)) - 1);
        expect([365, 366]).toContain(rangeDays(ly));
        expect(rangeDays(ly)).toBeLessThanOrEqual(MAX_RANGE_DAYS);
        // Their previous calendar period: the quarter (year) before, whole.
        expect(addDays(comparisonRange(lq, { kind: "calendar" })!.end, 1)).toBe(lq.start);
        expect(comparisonRange(ly, { kind: "calendar" })!.start.slice(0, 4)).toBe(String(Number(ly.start.slice(0, 4)) - 1).padStart(4, "0"));
      }),
      { numRuns: 3000 },
    );
  });

  it("are labelled, and offered by Explore, Cohorts, dashboards and share links", () => {
    expect(CALENDAR_PRESETS.map(presetLabel)).toEqual(["Quarter to date", "Last quarter", "Year to date", "Last year"]);
    for (const p of CALENDAR_PRESETS) {
      expect(RANGE_PRESETS.map((x) => x.id)).toContain(p);
      expect(EXPLORE_PRESETS).toContain(p);
      expect(COHORT_PRESETS).toContain(p);
    }
  });
});

describe("cmp in the URL", () => {
  const today = "2026-11-23";

  it("writes and reads prevcal, and still reads old links", () => {
    expect(encodeCompare({ kind: "calendar" })).toBe("prevcal");
    expect(decodeCompare("prevcal")).toEqual({ kind: "calendar" });
    expect(decodeCompare("prev")).toEqual({ kind: "previous" });
    expect(decodeCompare("yoy")).toEqual({ kind: "year" });
    expect(decodeCompare("2026-06-01..2026-06-30")).toEqual({ kind: "custom", start: "2026-06-01", end: "2026-06-30" });
    const parsed = parseExplore("op=orders&range=lastquarter&by=date&grain=month&cmp=prevcal&m=revenue", today);
    expect(parsed.problems).toEqual([]);
    expect(parsed.state.compare).toEqual({ kind: "calendar" });
    expect(serializeExplore(parsed.state)).toBe("op=orders&range=lastquarter&by=date&grain=month&cmp=prevcal&m=revenue");
    for (const old of ["cmp=prev", "cmp=yoy", "cmp=2026-06-01..2026-06-23"]) expect(parseExplore(`op=orders&range=2026-11-01..2026-11-23&${old}`, today).problems).toEqual([]);
  });

  it("refuses the previous calendar period of a range that is not whole months, with the reason", () => {
    const parsed = parseExplore("op=orders&range=2026-10-05..2026-10-31&cmp=prevcal", today);
    expect(parsed.problems).toEqual([
      { param: "cmp", message: "2026-10-05..2026-10-31 is not whole calendar months, so it has no previous calendar period: choose whole months, quarters or years, or another comparison." },
    ]);
    // The nearest valid report compares with nothing (so opening it runs, rather than refusing again).
    expect(parsed.state.compare).toEqual({ kind: "none" });
    expect(parseDashboard("range=last30&cmp=prevcal", today).state.compare).toEqual({ kind: "none" });
    // A preset whose days make whole months today and not another day is checked against today.
    expect(parseExplore("op=orders&range=mtd&cmp=prevcal", "2026-10-31").problems).toEqual([]);
    expect(parseExplore("op=orders&range=mtd&cmp=prevcal", "2026-10-30").problems.map((p) => p.param)).toEqual(["cmp"]);
    expect(parseDashboard("range=last30&cmp=prevcal", today).problems.map((p) => p.message)).toEqual([
      "2026-10-25..2026-11-23 is not whole calendar months, so it has no previous calendar period: choose whole months, quarters or years, or another comparison.",
    ]);
    expect(parseDashboard("range=lastyear&cmp=prevcal", today).problems).toEqual([]);
  });

  it("refuses a custom comparison that overlaps the report", () => {
    const parsed = parseExplore("op=orders&range=2026-11-01..2026-11-23&cmp=2026-10-20..2026-11-11", today);
    expect(parsed.problems.map((p) => p.message)).toEqual([
      "The comparison 2026-10-20..2026-11-11 overlaps the report's 2026-11-01..2026-11-23 (11 days in both): a comparison must not share days with the report.",
    ]);
  });
});
