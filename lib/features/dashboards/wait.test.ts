import { describe, expect, it } from "vitest";
import type { PlanStep, QueryState } from "./answer";
import { dashboardWait, replannedWords } from "./wait";

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
    expect(w).toEqual({ running: 3, callsToGo: 10, readyAt: "2025-02-01T00:03:00.000Z", nextStart: "2025-02-01T00:00:30.000Z", replanned: 0 });
  });

  it("says nothing of a wait when every query is answered", () => {
    expect(dashboardWait({ plan: [step({ state: "done", fetched_at: "2025-01-31T00:00:00.000Z" })] })).toEqual({ running: 0, callsToGo: null, readyAt: null, nextStart: null, replanned: 0 });
  });

  it("says by how many calls the waiting queries differ from their plan once the service has counted, and why", () => {
    const queued = (position: number): QueryState => ({ state: "queued", position, estimated_start: "2025-02-01T00:01:00.000Z", estimated_done: "2025-02-01T00:02:00.000Z", last_position: null });
    const w = dashboardWait({
      plan: [
        // Counted by the service: 4 calls where 2 were planned, and 1 where 2 were.
        { ...step(queued(1)), calls: 4, callsKnown: true, plannedCalls: 2 },
        { ...step(queued(2)), calls: 1, callsKnown: true, plannedCalls: 2 },
        { ...step(queued(3)), calls: 5, callsKnown: true, plannedCalls: 2 },
        // Still the planner's estimate, and an answer already in: neither counts.
        { ...step(queued(4)), calls: 7, callsKnown: false, plannedCalls: 2 },
        { ...step({ state: "done", fetched_at: "2025-01-31T00:00:00.000Z" }), calls: 9, callsKnown: true, plannedCalls: 2 },
      ],
    });
    expect(w.replanned).toBe(4);
    expect(replannedWords(w.replanned)).toBe("4 calls more than planned: the reporting service said how many records each part holds");
    expect(replannedWords(-1)).toBe("1 call fewer than planned: the reporting service said how many records each part holds");
    expect(replannedWords(0)).toBeNull();
  });
});
