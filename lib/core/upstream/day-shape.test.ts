/** Shapes and when their days settle (./day-shape.ts): pure, on an injected instant. */
import { describe, expect, it } from "vitest";
import { addDays } from "@/lib/contract";
import { COHORT_SETTLE_DAYS, RECENT_SETTLE_DAYS, dayGrain, freshUntil, missingRuns, settleDays, type Freshness } from "./day-shape";
import { fetchRanges } from "./range-pieces";

const END = "2025-07-31";
const NOON = Date.parse(`${END}T12:00:00Z`);
const CONFIG: Freshness = { timeZone: "UTC", ttlTodaySeconds: 300, ttlPastSeconds: 86_400 };

describe("settle windows, freshness and runs", () => {
  it("settles attempts after two days, sale-dated chargebacks after their maturity window, cohorts after a year", () => {
    expect(settleDays("orders", { group_by: ["date"], metrics: ["revenue", "attempts"] })).toBe(RECENT_SETTLE_DAYS);
    expect(settleDays("orders", { group_by: ["date"], metrics: ["revenue", "cb_count"] })).toBe(120 + RECENT_SETTLE_DAYS);
    expect(settleDays("orders", { group_by: ["date"], metrics: ["cb_count_by_cb_date"] })).toBe(RECENT_SETTLE_DAYS);
    expect(settleDays("cohort", { group_by: ["date"], metrics: ["initial_attempt"] })).toBe(COHORT_SETTLE_DAYS);
    // No metrics named: all of them, chargebacks among them.
    expect(settleDays("orders", { group_by: ["date"] })).toBe(120 + RECENT_SETTLE_DAYS);
  });

  it("keeps a settled day for ever, today's for minutes and a recent day's until the next day's look", () => {
    const at = NOON;
    expect(freshUntil(addDays(END, -2), at, 2, CONFIG)).toBe(Number.POSITIVE_INFINITY);
    expect(freshUntil(addDays(END, -1), at, 2, CONFIG)).toBe(at + 86_400_000);
    expect(freshUntil(END, at, 2, CONFIG)).toBe(at + 300_000);
    // Fetched before its own day was over, a day is current only for minutes even once it is past.
    expect(freshUntil(END, Date.parse(`${END}T23:59:00Z`), 2, CONFIG)).toBe(Date.parse(`${END}T23:59:00Z`) + 300_000);
  });

  it("finds runs of missing days and fetches a span whole when its runs would take more pieces", () => {
    const kept = new Set(["2025-07-03", "2025-07-04", "2025-07-08"]);
    expect(missingRuns("2025-07-01", "2025-07-09", (d) => kept.has(d))).toEqual([
      { start_date: "2025-07-01", end_date: "2025-07-02" },
      { start_date: "2025-07-05", end_date: "2025-07-07" },
      { start_date: "2025-07-09", end_date: "2025-07-09" },
    ]);
    // Three runs would be three calls; the span from the first to the last is one piece.
    expect(fetchRanges(missingRuns("2025-07-01", "2025-07-09", (d) => kept.has(d)))).toEqual([{ start_date: "2025-07-01", end_date: "2025-07-09" }]);
    // Two runs 200 days apart: two pieces either way, and the runs fetch fewer days.
    const far = [
      { start_date: "2025-01-01", end_date: "2025-01-05" },
      { start_date: "2025-07-20", end_date: "2025-07-31" },
    ];
    expect(fetchRanges(far)).toEqual(far);
  });

  it("asks a question per day when that costs no call more, and says when it cannot", () => {
    const q = (group_by?: string[]) => ({ start_date: "2025-01-01", end_date: "2025-06-30", ...(group_by ? { group_by } : {}), metrics: ["revenue"] });
    expect(dayGrain("orders", q(["date", "gateway_id"]))?.group_by).toEqual(["date", "gateway_id"]);
    expect(dayGrain("orders", q())?.group_by).toBeUndefined(); // the finest grain is dated already
    expect(dayGrain("orders", q([]))?.group_by).toEqual(["date"]);
    // Four card types a day: 4 × 101 rows fit one page; an unknown number of gateways might not.
    expect(dayGrain("orders", q(["card_type"]), () => 4)?.group_by).toEqual(["date", "card_type"]);
    expect(dayGrain("orders", q(["gateway_id"]))).toBeNull();
    expect(dayGrain("orders", q(["bin"]), () => 5000)).toBeNull();
    expect(dayGrain("orders", q(["campaign_id", "product_id", "gateway_id", "bin", "affid", "sub_affid"]), () => 1)).toBeNull();
  });
});
