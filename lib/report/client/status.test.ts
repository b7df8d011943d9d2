import { describe, expect, it } from "vitest";
import { RequestError } from "@/lib/core/api-client/fetch";
import { pollDelay, type JobResult } from "./api";
import { describeStatus } from "./status";

const result = (over: Partial<JobResult>): JobResult => ({
  source: "upstream",
  fetched_at: "2025-07-31T12:00:00.000Z",
  upstream_calls: 3,
  total: 1234,
  data: [],
  ...over,
});

const one = { call: 1, calls: 1, calls_exact: true } as const;

describe("the status line", () => {
  it("says where a queued report stands and how long to wait", () => {
    const v = describeStatus(
      { kind: "running", progress: { jobId: "j", at: Date.parse("2025-07-31T12:00:00Z"), status: { state: "queued", position: 2, estimated_start: "2025-07-31T12:00:40Z", estimated_done: "2025-07-31T12:00:40Z", ...one } } },
      "UTC",
    );
    expect(v).toMatchObject({ title: "Queued", busy: true });
    expect(v.detail).toBe("Position 3 in the queue; estimated start about 40 s.");
  });
  it("mentions the upstream's rate limit", () => {
    const v = describeStatus(
      {
        kind: "running",
        progress: {
          jobId: "j",
          at: Date.parse("2025-07-31T12:00:00Z"),
          status: { state: "queued", position: 0, estimated_start: "2025-07-31T12:01:30Z", estimated_done: "2025-07-31T12:01:30Z", waiting_for_rate_limit_until: "2025-07-31T12:01:30Z", ...one },
        },
      },
      "UTC",
    );
    expect(v.detail).toContain("Next in line");
    expect(v.detail).toContain("waiting until 2025-07-31 12:01:30 UTC");
  });
  it("counts the report's calls, pages and pieces while fetching", () => {
    const v = describeStatus(
      { kind: "running", progress: { jobId: "j", at: 0, status: { state: "fetching", page: 2, pages: 5, piece: 1, pieces: 2, call: 2, calls: 6, calls_exact: false } } },
      "UTC",
    );
    expect(v.detail).toBe("Fetching part 2 of at least 6 (page 2 of 5, date range part 1 of 2).");
    const single = describeStatus({ kind: "running", progress: { jobId: "j", at: 0, status: { state: "fetching", page: 1, pages: 1, piece: 1, pieces: 1, ...one } } }, "UTC");
    expect(single.detail).toBe("Fetching page 1 of 1.");
  });
  it("says which part of a several-call report waits, and when all of them should be under way", () => {
    const v = describeStatus(
      {
        kind: "running",
        progress: {
          jobId: "j",
          at: Date.parse("2025-07-31T12:00:00Z"),
          status: { state: "queued", position: 0, estimated_start: "2025-07-31T12:00:10Z", estimated_done: "2025-07-31T12:01:10Z", call: 2, calls: 3, calls_exact: true },
        },
      },
      "UTC",
    );
    expect(v.detail).toBe("Next in line; estimated start about 10 s. This is part 2 of 3; all of them should be under way about 70 s.");
  });
  it("tells fresh, cached and derived answers apart, with times in the report zone", () => {
    expect(describeStatus({ kind: "done", result: result({}) }, "UTC").detail).toBe(
      "1,234 rows, fetched 2025-07-31 12:00:00 UTC with 3 calls to the reporting service.",
    );
    expect(describeStatus({ kind: "done", result: result({ source: "cache" }) }, "Europe/Berlin")).toMatchObject({
      title: "From cache",
      detail: "1,234 rows, as of 2025-07-31 14:00:00 Europe/Berlin.",
    });
    const derived = describeStatus(
      {
        kind: "done",
        result: result({ source: "derived", derived_from: { query: { start_date: "2025-07-01", end_date: "2025-07-31" }, fetched_at: "2025-07-31T12:00:00.000Z" } }),
      },
      "UTC",
    );
    expect(derived.title).toBe("Derived from a cached answer");
    expect(derived.detail).toContain("2025-07-01 to 2025-07-31");
  });
  it("gives the reason and what to do on failure", () => {
    const v = describeStatus({ kind: "failed", error: new RequestError(400, "end_date must not be before start_date", "Change the report and run it again.") }, "UTC");
    expect(v).toMatchObject({ tone: "error", detail: "end_date must not be before start_date", action: "Change the report and run it again." });
  });
});

describe("polling", () => {
  it("waits for the estimated start within 1 to 5 seconds, and polls briskly while fetching", () => {
    const now = Date.parse("2025-07-31T12:00:00Z");
    const q = (estimated_start: string) => ({ state: "queued" as const, position: 0, estimated_start, estimated_done: estimated_start, ...one });
    expect(pollDelay(q("2025-07-31T12:00:03Z"), now)).toBe(3000);
    expect(pollDelay(q("2025-07-31T12:00:30Z"), now)).toBe(5000);
    expect(pollDelay(q("2025-07-31T11:00:00Z"), now)).toBe(1000);
    expect(pollDelay({ state: "fetching", page: 1, pages: 2, piece: 1, pieces: 1, ...one }, now)).toBe(750);
  });
});
