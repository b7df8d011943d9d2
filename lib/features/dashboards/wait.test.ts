import { describe, expect, it } from "vitest";
import type { PlanStep, QueryState } from "./answer";
import { dashboardWait } from "./wait";

const step = (status: QueryState): PlanStep => ({
  op: "orders",
  query: { start_date: "2025-01-01", end_date: "2025-01-31" },
  calls: 1,
  callsKnown: false,
  plannedCalls: 1,
  tiles: [],
  status,
});

describe("a dashboard's wait", () => {
  it("counts the calls before its last one and takes the latest estimate of its queries", () => {
    const w = dashboardWait({
      plan: [
        step({ state: "cached", fetched_at: "2025-01-31T00:00:00.000Z" }),
        step({ state: "fetching", estimated_done: "2025-02-01T00:01:00.000Z", last_position: 3 }),
        step({ state: "queued", position: 4, estimated_start: "2025-02-01T00:01:00.000Z", estimated_done: "2025-02-01T00:03:00.000Z", last_position: 9 }),
        step({ state: "queued", position: 2, estimated_start: "2025-02-01T00:00:30.000Z", estimated_done: "2025-02-01T00:00:30.000Z", last_position: null }),
      ],
    });
    expect(w).toEqual({ running: 3, callsToGo: 10, readyAt: "2025-02-01T00:03:00.000Z", nextStart: "2025-02-01T00:00:30.000Z" });
  });

  it("says nothing of a wait when every query is answered", () => {
    expect(dashboardWait({ plan: [step({ state: "done", fetched_at: "2025-01-31T00:00:00.000Z" })] })).toEqual({ running: 0, callsToGo: null, readyAt: null, nextStart: null });
  });
});
