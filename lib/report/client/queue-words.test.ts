import { describe, expect, it } from "vitest";
import { queuePosition, queueWords, queueWordsAt } from "./queue-words";
import { describeStatus, describeWaiting, type WaitingStatus } from "./status";

const at = Date.parse("2025-07-31T12:00:00Z");
const one = { call: 1, calls: 1, calls_exact: true } as const;
const queued = (position: number, start: string, done = start): WaitingStatus => ({ state: "queued", position, estimated_start: start, estimated_done: done, ...one });

describe("where a waiting call stands", () => {
  it("says next in line, or its place counting itself, and when it should start", () => {
    expect(queuePosition(0)).toBe("Next in line");
    expect(queuePosition(2)).toBe("Position 3 in the queue");
    expect(queueWords({ position: 0, estimated_start: "2025-07-31T12:00:08Z" }, at)).toBe("Next in line; estimated start about 8 s");
    expect(queueWords({ position: 4, estimated_start: "2025-07-31T12:03:00Z" }, at)).toBe("Position 5 in the queue; estimated start about 3 min");
    expect(queueWords({ position: 1, estimated_start: "2025-07-31T11:59:00Z" }, at)).toBe("Position 2 in the queue; estimated start any moment now");
  });
  it("gives the start as a time of day in the report zone where no 'now' is shared", () => {
    expect(queueWordsAt({ position: 1, estimated_start: "2025-07-31T12:00:40Z" }, "Europe/Berlin")).toBe(
      "Position 2 in the queue; estimated start at 2025-07-31 14:00:40 Europe/Berlin",
    );
  });
  it("are the words of Explore's status line", () => {
    const s = { state: "queued", position: 2, estimated_start: "2025-07-31T12:00:40Z", estimated_done: "2025-07-31T12:00:40Z", ...one } as const;
    const explore = describeStatus({ kind: "running", progress: { jobId: "j", at, status: s } }, "UTC");
    expect(explore.detail).toBe(`${queueWords(s, at)}.`);
    expect(describeWaiting([s], at, "UTC")).toEqual(explore);
  });
});

describe("several reports one screen waits for", () => {
  it("names the one nearest the front, how many are ready, and when all should be under way", () => {
    const v = describeWaiting(
      [{ state: "done" }, queued(3, "2025-07-31T12:00:20Z", "2025-07-31T12:00:20Z"), queued(1, "2025-07-31T12:00:10Z", "2025-07-31T12:00:10Z")],
      at,
      "UTC",
    );
    expect(v).toMatchObject({ tone: "progress", title: "Queued", busy: true });
    expect(v.detail).toBe("Position 2 in the queue; estimated start about 10 s. 1 of 3 reports ready; all of them should be under way about 20 s.");
  });
  it("says when the reporting service asked for a pause", () => {
    const limited: WaitingStatus = { ...(queued(0, "2025-07-31T12:01:30Z") as Extract<WaitingStatus, { state: "queued" }>), waiting_for_rate_limit_until: "2025-07-31T12:01:30Z" };
    expect(describeWaiting([limited, { state: "done" }], at, "UTC").detail).toBe(
      "Next in line; estimated start about 2 min. 1 of 2 reports ready; all of them should be under way about 2 min. The reporting service asked us to slow down; waiting until 2025-07-31 12:01:30 UTC.",
    );
  });
  it("says fetching once none waits in the queue, and finishing once all are in", () => {
    const fetching: WaitingStatus = { state: "fetching", page: 1, pages: 2, piece: 1, pieces: 1, ...one };
    expect(describeWaiting([fetching, { state: "done" }, { state: "done" }], at, "UTC")).toMatchObject({ title: "Fetching", detail: "Fetching from the reporting service; 2 of 3 reports ready." });
    expect(describeWaiting([{ state: "done" }], at, "UTC").title).toBe("Finishing");
  });
});
