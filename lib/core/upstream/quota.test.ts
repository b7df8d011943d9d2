/**
 * The quota queue on its own, on fake time: background calls (the cache warmer's) start only when
 * nobody else waits and only while a slot of the window stays free; people never wait behind one
 * that has not started, and their positions and estimates never count one.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BACKGROUND_OWNER, CancelledError, QuotaQueue, type QueueHold, type QueueTicket } from "./quota";

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

/**
 * Reports of several calls on fake time, as the fetcher makes them: one call at a time, each
 * queued when the one before has answered, joining the place the report holds.
 */
function reports(limit: number) {
  const q = new QuotaQueue(limit, W, 0);
  const started: [string, number][] = [];
  /** Every position each report was told while a call of it waited. */
  const told = new Map<string, number[]>();
  const holds = new Map<string, QueueHold>();
  const tickets = new Map<string, QueueTicket>();
  const owners = new Map<string, string>();
  const done = new Set<string>();
  const look = () => {
    for (const [name, t] of tickets) {
      const p = t.position();
      if (p >= 0) told.get(name)!.push(p);
    }
  };
  /** A report `name` of `calls` calls for `owner`, each answered `answerMs` after it starts; it says `known` calls until its first answer. */
  const report = (name: string, owner: string, calls: number, answerMs = 50, known = calls) => {
    told.set(name, []);
    owners.set(name, owner);
    const call = (i: number) => {
      const p = q.run(
        () => {
          started.push([`${name}${i}`, Date.now() - BASE]);
          tickets.delete(name);
          return new Promise<void>((r) => setTimeout(r, answerMs));
        },
        (t) => {
          tickets.set(name, t);
          // Like the fetcher: what it says at first, and the exact count once its first answer is in.
          const later = Math.max(0, i === 0 ? known - 1 : calls - i - 1);
          const h = holds.get(name);
          if (h) {
            t.join(h);
            h.keep(later);
          } else holds.set(name, t.hold(later));
        },
        owners.get(name)!,
      );
      void p.then(() => {
        if (i + 1 < calls) call(i + 1);
        else {
          holds.get(name)!.release();
          done.add(name);
        }
        look();
      });
    };
    call(0);
    look();
  };
  const at = async (ms: number) => {
    // In small steps, looking at every position on the way (and letting each answer queue the next call).
    while (Date.now() < BASE + ms) {
      await vi.advanceTimersByTimeAsync(Math.min(7, BASE + ms - Date.now()));
      look();
    }
  };
  const takeOver = (name: string, owner: string) => {
    owners.set(name, owner);
    holds.get(name)!.moveTo(owner);
    look();
  };
  return { q, started, told, holds, report, at, done, takeOver, tickets };
}

const neverRises = (xs: number[]) => xs.every((x, i) => i === 0 || x <= xs[i - 1]!);

describe("reports in the quota queue", async () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(BASE);
  });
  afterEach(() => vi.useRealTimers());

  it("keep their place between calls: a report's later calls go before those who came after it", async () => {
    const { report, at, started } = reports(2);
    report("a", "u1", 4);
    report("b", "u2", 1);
    await at(5 * W);
    // a0 and b0 fill the first window (b0 does not wait for a1, which is not asked yet); then a's rest.
    expect(started.map(([n]) => n)).toEqual(["a0", "b0", "a1", "a2", "a3"]);
  });

  it("never tell anyone a higher position than before: newcomers, more reports of one owner, background work and a takeover", async () => {
    const { report, at, told, takeOver, done } = reports(5);
    report("dash1", "share", 6);
    report("dash2", "share", 3);
    report("warm1", BACKGROUND_OWNER, 4);
    report("dash3", "share", 2);
    await at(300);
    report("alice", "alice", 5);
    report("bob", "bob", 1);
    await at(900);
    report("dash4", "share", 4);
    report("warm2", BACKGROUND_OWNER, 2);
    await at(1_500);
    takeOver("warm1", "carol");
    report("bob2", "bob", 2);
    await at(30 * W);
    expect([...done].sort()).toEqual(["alice", "bob", "bob2", "dash1", "dash2", "dash3", "dash4", "warm1", "warm2"]);
    // People's reports: never a higher position than the one they were told before.
    for (const name of ["dash1", "dash2", "dash3", "dash4", "alice", "bob", "bob2"]) expect(told.get(name), name).toSatisfy(neverRises);
    // They did wait, and were told where: the checks above were not of empty lists.
    for (const name of ["dash4", "alice", "bob2"]) expect(Math.max(...told.get(name)!), name).toBeGreaterThan(0);
  });

  it("that need more calls than they said go behind those waiting, and hold more only while nobody is behind", async () => {
    const { report, at, started, told } = reports(1);
    // a says 1 call, then learns it needs 3; nobody waits behind it: it keeps them at its place.
    report("a", "u1", 3, 50, 1);
    await at(4 * W);
    expect(started.map(([n]) => n)).toEqual(["a0", "a1", "a2"]);
    // c says 1 and needs 2, with d queued behind it: c's second call goes after d's.
    report("c", "u1", 2, 50, 1);
    report("d", "u2", 1);
    await at(8 * W);
    expect(started.slice(3).map(([n]) => n)).toEqual(["c0", "d0", "c1"]);
    expect(told.get("d")).toSatisfy(neverRises);
  });

  it("keep a call in the window from its answer: the upstream counts it when it arrives, after it left here", async () => {
    const { report, at, started } = reports(1);
    report("slow", "u1", 1, 300);
    report("next", "u2", 1);
    await at(3 * W);
    expect(started.map(([n]) => n)).toEqual(["slow0", "next0"]);
    // A window after slow0's answer (300 ms after its start), not after its start.
    expect(started[1]![1]).toBeGreaterThanOrEqual(W + 300);
  });

  it("estimate from how long calls take: a slot frees a window after the answer", async () => {
    const { report, holds, started, at } = reports(2);
    report("warmup", "u0", 2, 200);
    await at(3 * W); // the queue has seen two calls take 200 ms
    report("r", "u1", 4, 200);
    const estimate = holds.get("r")!.estimatedLast();
    // 2 calls now, 2 a window after their answers.
    expect(estimate - Date.now()).toBeGreaterThanOrEqual(W + 200);
    const from = Date.now() - BASE;
    await at(8 * W);
    const last = started.find(([n]) => n === "r3")!;
    expect(Math.abs(last[1] - (estimate - BASE))).toBeLessThanOrEqual(0.2 * (estimate - BASE - from));
  });

  it("keep the place reserved for a report whose first call has not queued yet, and tell the reserved report's calls to those behind", async () => {
    const { q, report, at, told, started } = reports(1);
    const reserved = q.reserve("u1", 2);
    expect([reserved.position(), reserved.lastPosition()]).toEqual([0, 1]);
    report("first", "u2", 1); // a place kept for a call not queued yet does not keep the slot idle
    report("behind", "u3", 1);
    expect(told.get("behind")).toEqual([2]);
    await at(W / 2);
    // The reserved report's first call queues now, after "behind", and takes its place ahead of it.
    let position = -2;
    const p = q.run(
      () => {
        started.push(["reserved0", Date.now() - BASE]);
        return Promise.resolve();
      },
      (t) => {
        t.join(reserved);
        reserved.keep(0);
        position = t.position();
      },
      "u1",
    );
    expect(position).toBe(0);
    await at(4 * W);
    await p;
    expect(started.map(([n]) => n)).toEqual(["first0", "reserved0", "behind0"]);
    expect(told.get("behind")).toSatisfy(neverRises);
  });

  it("estimate the start of a report's last call from its place and the calls it holds, as the queue then starts them", async () => {
    const { report, holds, started, at, q } = reports(5);
    report("other", "u0", 3);
    report("ytd", "u1", 12);
    const hold = holds.get("ytd")!;
    expect(hold.count).toBe(11);
    // 15 calls: 5 at once, 5 once the first window ends, 5 after the second.
    const estimate = hold.estimatedLast();
    expect(estimate).toBe(BASE + 2 * W);
    expect(q.status().queueLength).toBe(11 + 2); // the calls ytd and other hold; their first calls have started
    await at(4 * W);
    const last = started.find(([n]) => n === "ytd11")!;
    expect(last[1]).toBeGreaterThanOrEqual(estimate - BASE);
    expect(last[1] - (estimate - BASE)).toBeLessThanOrEqual(0.2 * 2 * W);
  });
});
