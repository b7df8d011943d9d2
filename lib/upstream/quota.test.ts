/**
 * The quota queue on its own, on fake time: background calls (the cache warmer's) start only when
 * nobody else waits and only while a slot of the window stays free; people never wait behind one
 * that has not started, and their positions and estimates never count one.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BACKGROUND_OWNER, CancelledError, QuotaQueue, type QueueTicket } from "./quota";

const BASE = 1_000_000;
const W = 1000;

/** A queue with no margin on a W ms window, and a record of when each named call started. */
function setup(limit: number) {
  const q = new QuotaQueue(limit, W, 0);
  const started: [string, number][] = [];
  const tickets = new Map<string, QueueTicket>();
  const results = new Map<string, Promise<unknown>>();
  const add = (name: string, owner: string) => {
    const p = q.run(
      () => {
        started.push([name, Date.now() - BASE]);
        return new Promise<never>(() => {}); // calls never end: only starts matter to the window
      },
      (t) => tickets.set(name, t),
      owner,
    );
    p.catch(() => undefined);
    results.set(name, p);
  };
  const at = (ms: number) => vi.advanceTimersByTime(BASE + ms - Date.now());
  const ticket = (name: string) => tickets.get(name)!;
  return { q, started, add, at, ticket, results };
}

describe("background calls in the quota queue", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(BASE);
  });
  afterEach(() => vi.useRealTimers());

  it("start only when no other owner has a call waiting, after every call that was waiting", () => {
    const { started, add, at, q } = setup(2);
    add("a0", "a");
    add("a1", "a");
    add("bg0", BACKGROUND_OWNER); // queued first...
    add("a2", "a");
    add("c0", "c"); // ...but these go before it
    expect(q.status()).toMatchObject({ queueLength: 2, backgroundQueueLength: 1 });
    at(W + 10);
    expect(started.map(([n]) => n)).toEqual(["a0", "a1", "a2", "c0"]);
    // The window is full again; once it empties, the background call may take one slot of two.
    at(2 * W + 10);
    expect(started.map(([n]) => n)).toEqual(["a0", "a1", "a2", "c0", "bg0"]);
    expect(started.at(-1)![1]).toBeGreaterThanOrEqual(2 * W);
  });

  it("leave a slot of the window free for people: limit - 1 at most, and a person still starts at once", () => {
    const { started, add, at, q } = setup(3);
    for (const n of ["bg0", "bg1", "bg2"]) add(n, BACKGROUND_OWNER);
    expect(started.map(([n]) => n)).toEqual(["bg0", "bg1"]);
    expect(q.status()).toMatchObject({ callsInWindow: 2, queueLength: 0, backgroundQueueLength: 1 });
    add("u0", "u");
    expect(started.map(([n]) => n)).toEqual(["bg0", "bg1", "u0"]);
    at(W + 10);
    expect(started.map(([n]) => n)).toEqual(["bg0", "bg1", "u0", "bg2"]);
    expect(q.status().callsInWindow).toBe(1);
  });

  it("with a limit of 1, take the single slot only when the window is empty", () => {
    const { started, add, at } = setup(1);
    add("bg0", BACKGROUND_OWNER);
    expect(started).toEqual([["bg0", 0]]); // empty window: it may run
    at(100);
    add("u0", "u"); // waits for bg0 to leave the window: at most one window
    add("bg1", BACKGROUND_OWNER);
    at(W + 10);
    expect(started.map(([n]) => n)).toEqual(["bg0", "u0"]);
    at(2 * W + 10);
    expect(started.map(([n]) => n)).toEqual(["bg0", "u0", "bg1"]);
  });

  it("are not counted in people's positions or estimates; theirs count everything", () => {
    const { add, ticket, at, started } = setup(2);
    add("a0", "a");
    add("a1", "a");
    add("bg0", BACKGROUND_OWNER);
    add("bg1", BACKGROUND_OWNER);
    add("c0", "c");
    add("d0", "d");
    expect(ticket("c0").position()).toBe(0);
    expect(ticket("d0").position()).toBe(1);
    expect(ticket("bg0").position()).toBe(2);
    expect(ticket("bg1").position()).toBe(3);
    expect(ticket("c0").estimatedStart()).toBe(BASE + W);
    expect(ticket("d0").estimatedStart()).toBe(BASE + W);
    // c0 and d0 fill the window at W; background needs it down to one call: c0 and d0 leave at 2W,
    // bg0 starts; bg1 waits for bg0 to leave, at 3W. A later call of bg0's owner goes after bg1.
    expect(ticket("bg0").estimatedStart()).toBe(BASE + 2 * W);
    expect(ticket("bg1").estimatedStart()).toBe(BASE + 3 * W);
    expect(ticket("bg0").estimatedStart(2)).toBe(BASE + 4 * W);
    // The estimates hold, to the millisecond the timer adds after each slot frees.
    at(4 * W);
    expect(started.slice(2).map(([n]) => n)).toEqual(["c0", "d0", "bg0", "bg1"]);
    for (const [[, t], want] of started.slice(2).map((s, i) => [s, [W, W, 2 * W, 3 * W][i]!] as const)) {
      expect(t - want).toBeGreaterThanOrEqual(0);
      expect(t - want).toBeLessThanOrEqual(5);
    }
  });

  it("do not delay a person's call: the timer set for background work is brought forward", () => {
    const { add, at, started } = setup(2);
    add("a0", "a");
    at(500);
    add("a1", "a"); // the window is full until a0 leaves at W
    at(600);
    add("bg0", BACKGROUND_OWNER); // would wait for a1 to leave, at 1.5 W
    at(700);
    add("a2", "a"); // must start when a0 leaves, not when bg0 could
    at(W + 10);
    expect(started.map(([n]) => n)).toEqual(["a0", "a1", "a2"]);
    at(3 * W);
    // After a2 (started at W + 1 ms) left the window.
    expect(started.at(-1)).toEqual(["bg0", 2 * W + 2]);
  });

  it("can be cancelled while waiting", async () => {
    const { add, ticket, q, results } = setup(1);
    add("u0", "u");
    add("bg0", BACKGROUND_OWNER);
    ticket("bg0").cancel();
    await expect(results.get("bg0")).rejects.toBeInstanceOf(CancelledError);
    expect(q.status().backgroundQueueLength).toBe(0);
  });

  it("move to a person's queue when they take the job over, and then wait as theirs", () => {
    const { add, ticket, at, started, q } = setup(2);
    add("a0", "a");
    add("a1", "a");
    add("bg0", BACKGROUND_OWNER);
    add("bg1", BACKGROUND_OWNER);
    add("c0", "c");
    ticket("bg1").moveTo("u");
    expect(q.status()).toMatchObject({ queueLength: 2, backgroundQueueLength: 1 });
    expect(ticket("bg1").position()).toBe(1); // c0, then u's turn
    expect(ticket("bg0").position()).toBe(2);
    at(W + 10);
    expect(started.map(([n]) => n)).toEqual(["a0", "a1", "c0", "bg1"]);
  });
});
