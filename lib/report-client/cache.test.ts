import { describe, expect, it } from "vitest";
import { AnswerCache, EMPTY, cacheKey, type Fetcher } from "./cache";

/** A fetch the test settles by hand, counting its calls and seeing its signal. */
function manual<T>() {
  const calls: { signal: AbortSignal; resolve: (v: T) => void; reject: (e: unknown) => void; progress: (p: string) => void }[] = [];
  const fetcher: Fetcher<T, string> = (signal, progress) =>
    new Promise<T>((resolve, reject) => {
      calls.push({ signal, resolve, reject, progress });
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  return { fetcher, calls };
}

describe("cacheKey", () => {
  it("is the same for the same request whatever its properties' order", () => {
    expect(cacheKey(["report", "orders", { start_date: "a", end_date: "b", filters: { x: [1], a: [2] } }])).toBe(
      cacheKey(["report", "orders", { filters: { a: [2], x: [1] }, end_date: "b", start_date: "a" }]),
    );
    expect(cacheKey(["report", { group_by: ["a", "b"] }])).not.toBe(cacheKey(["report", { group_by: ["b", "a"] }]));
  });
});

describe("AnswerCache", () => {
  it("fetches an entry once for identical requests in flight, and tells its watchers", async () => {
    const cache = new AnswerCache();
    const { fetcher, calls } = manual<number>();
    let changes = 0;
    const stop = cache.subscribe("k", () => changes++);
    const a = cache.fetch("k", fetcher);
    const b = cache.fetch("k", fetcher);
    expect(a).toBe(b);
    expect(calls).toHaveLength(1);
    expect(cache.peek("k").fetching).toBe(true);
    calls[0]!.progress("half");
    expect(cache.peek("k").progress).toBe("half");
    calls[0]!.resolve(42);
    await a;
    const s = cache.peek<number, string>("k");
    expect(s).toMatchObject({ data: 42, error: null, fetching: false, progress: "half" });
    expect(s.updatedAt).toBeGreaterThan(0);
    expect(changes).toBeGreaterThanOrEqual(3);
    // Settled: the next fetch is a new one.
    void cache.fetch("k", fetcher);
    expect(calls).toHaveLength(2);
    stop();
  });

  it("keeps an error, and the data it had, when a fetch fails", async () => {
    const cache = new AnswerCache();
    const { fetcher, calls } = manual<number>();
    const stop = cache.subscribe("k", () => undefined);
    const first = cache.fetch("k", fetcher);
    calls[0]!.resolve(1);
    await first;
    const second = cache.fetch("k", fetcher);
    calls[1]!.reject(new Error("boom"));
    await second;
    expect(cache.peek("k")).toMatchObject({ data: 1, fetching: false });
    expect(cache.peek("k").error?.message).toBe("boom");
    stop();
  });

  it("cancels: aborts the fetch's signal and reverts the entry, keeping the progress", async () => {
    const cache = new AnswerCache();
    const { fetcher, calls } = manual<number>();
    const stop = cache.subscribe("k", () => undefined);
    const run = cache.fetch("k", fetcher);
    calls[0]!.progress("cancelled");
    cache.cancel("k");
    expect(calls[0]!.signal.aborted).toBe(true);
    await run;
    expect(cache.peek("k")).toMatchObject({ data: undefined, error: null, fetching: false, updatedAt: 0, progress: "cancelled" });
    stop();
  });

  it("cancels a fetch when its last watcher leaves, not before", async () => {
    const cache = new AnswerCache();
    const { fetcher, calls } = manual<number>();
    const one = cache.subscribe("k", () => undefined);
    const two = cache.subscribe("k", () => undefined);
    const run = cache.fetch("k", fetcher);
    one();
    expect(calls[0]!.signal.aborted).toBe(false);
    calls[0]!.progress("cancelled");
    two();
    expect(calls[0]!.signal.aborted).toBe(true);
    await run;
    // As if never asked: a screen showing it again starts afresh (no "cancelled" left behind).
    expect(cache.peek("k")).toMatchObject({ data: undefined, error: null, fetching: false, progress: null });
  });

  it("restarts: a newer fetch supersedes the one running, whose late answer is ignored", async () => {
    const cache = new AnswerCache();
    const calls: ((v: number) => void)[] = [];
    const signals: AbortSignal[] = [];
    // A fetcher that ignores its signal: the cache must still not take its answer.
    const fetcher: Fetcher<number, never> = (signal) =>
      new Promise<number>((resolve) => {
        signals.push(signal);
        calls.push(resolve);
      });
    const stop = cache.subscribe("k", () => undefined);
    const first = cache.fetch("k", fetcher);
    const second = cache.fetch("k", fetcher, { restart: true });
    expect(signals[0]!.aborted).toBe(true);
    calls[1]!(2);
    await second;
    calls[0]!(1);
    await first;
    expect(cache.peek("k")).toMatchObject({ data: 2, fetching: false });
    stop();
  });

  it("keeps at most maxEntries, dropping the least recently used that nobody watches or fetches", async () => {
    const cache = new AnswerCache(3);
    for (const k of ["a", "b", "c"]) cache.seed(k, k);
    const watching = cache.subscribe("a", () => undefined);
    const { fetcher, calls } = manual<string>();
    const running = cache.fetch("b", fetcher);
    cache.seed("d", "d");
    cache.seed("e", "e");
    // "a" is watched and "b" is fetching: "c" and then "d" go.
    expect(cache.size).toBe(3);
    expect(cache.peek("a").data).toBe("a");
    expect(cache.peek("c")).toBe(EMPTY);
    expect(cache.peek("d")).toBe(EMPTY);
    expect(cache.peek("e").data).toBe("e");
    calls[0]!.resolve("b");
    await running;
    expect(cache.peek("b").data).toBe("b");
    watching();
    // Nobody watches "a" now: the next entry pushes it out (it is the least recently used).
    cache.seed("f", "f");
    expect(cache.peek("a")).toBe(EMPTY);
    expect(cache.size).toBe(3);
  });

  it("holds 100 fetches at once of 20 reports to one call each, and to its bound once they settle", async () => {
    const cache = new AnswerCache(8);
    const { fetcher, calls } = manual<number>();
    const keys = Array.from({ length: 100 }, (_, i) => `k${i % 20}`);
    const runs = keys.map((k) => cache.fetch(k, fetcher));
    expect(calls).toHaveLength(20);
    // Entries being fetched are never dropped, so all 20 are held while they run.
    expect(cache.size).toBe(20);
    calls.forEach((c, i) => c.resolve(i));
    await Promise.all(runs);
    expect(cache.size).toBe(8);
    // The eight kept are the last to settle, each with its own answer.
    for (let i = 12; i < 20; i++) expect(cache.peek(`k${i}`).data).toBe(i);
  });

  it("moves an entry to the back when it is used again", () => {
    const cache = new AnswerCache(2);
    cache.seed("a", 1);
    cache.seed("b", 2);
    cache.seed("a", 3);
    cache.seed("c", 4);
    expect(cache.peek("a").data).toBe(3);
    expect(cache.peek("b")).toBe(EMPTY);
  });

  it("seeds the server's answer without telling the entry's watchers, and tells them of what follows", async () => {
    const cache = new AnswerCache();
    let told = 0;
    cache.subscribe("k", () => told++);
    cache.seed("k", "from the server");
    expect(cache.peek("k")).toMatchObject({ data: "from the server", error: null, fetching: false });
    expect(told).toBe(0);
    await cache.fetch("k", async () => "fresh");
    expect(cache.peek("k").data).toBe("fresh");
    expect(told).toBeGreaterThan(0);
  });
});
