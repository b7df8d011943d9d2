import { describe, expect, it } from "vitest";
import { fitGrain } from "./grain-fit";

describe("a range shorter than the grain", () => {
  it("keeps the grain when the range holds one whole period of it", () => {
    expect(fitGrain({ start: "2026-11-01", end: "2026-11-30" }, "month")).toEqual({ grain: "month", note: null });
    expect(fitGrain({ start: "2026-02-01", end: "2026-02-28" }, "month")).toEqual({ grain: "month", note: null });
    expect(fitGrain({ start: "2026-11-18", end: "2026-11-24" }, "week")).toEqual({ grain: "week", note: null });
    expect(fitGrain({ start: "2026-01-01", end: "2026-03-31" }, "quarter")).toEqual({ grain: "quarter", note: null });
  });

  it("falls back to the coarsest finer grain that fits, and says why", () => {
    const week = fitGrain({ start: "2026-11-18", end: "2026-11-24" }, "month");
    expect(week).toEqual({ grain: "week", note: "By week, not by month: the range's 7 days are shorter than a month, so every month shown would be partial." });
    expect(fitGrain({ start: "2026-11-20", end: "2026-11-24" }, "month").grain).toBe("day");
    expect(fitGrain({ start: "2026-10-01", end: "2026-11-24" }, "quarter").grain).toBe("month");
    expect(fitGrain({ start: "2026-10-01", end: "2026-11-24" }, "year").grain).toBe("month");
    expect(fitGrain({ start: "2026-11-24", end: "2026-11-24" }, "week").note).toBe("By day, not by week: the range's 1 day is shorter than a week, so every week shown would be partial.");
  });

  it("never changes a day grain", () => {
    expect(fitGrain({ start: "2026-11-24", end: "2026-11-24" }, "day")).toEqual({ grain: "day", note: null });
  });
});
