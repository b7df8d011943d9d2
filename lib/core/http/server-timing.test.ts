import { describe, expect, it } from "vitest";
import { measure, parseServerTiming, ServerTiming, withTiming } from "./server-timing";

describe("Server-Timing", () => {
  it("times sync and async steps of the current request, summing a step measured twice", async () => {
    const timing = new ServerTiming();
    await withTiming(timing, async () => {
      expect(measure("parse", () => 41 + 1)).toBe(42);
      expect(await measure("session", () => new Promise((r) => setTimeout(() => r("u"), 20)))).toBe("u");
      await measure("session", async () => undefined);
      await expect(measure("cache", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
      expect(() => measure("serialize", () => { throw new Error("sync boom"); })).toThrow("sync boom");
    });
    const header = timing.header();
    expect(header).toMatch(/^parse;dur=\d+\.\d{3}, session;dur=\d+\.\d{3}, cache;dur=\d+\.\d{3}, serialize;dur=\d+\.\d{3}, total;dur=\d+\.\d{3}$/);
    const parsed = parseServerTiming(header);
    expect(parsed.session).toBeGreaterThanOrEqual(15);
    expect(parsed.total).toBeGreaterThanOrEqual(parsed.session!);
  });

  it("is a plain call outside a timed request", async () => {
    expect(measure("parse", () => "x")).toBe("x");
    expect(await measure("parse", async () => "y")).toBe("y");
  });

  it("takes only fixed metric names, so no request value can reach the header", () => {
    const timing = new ServerTiming();
    for (const bad of ["", "Session", "a b", "a;dur=1", "a,b", "x".repeat(40), "tok=secret"]) expect(() => timing.add(bad, 1)).toThrow();
    timing.add("session-store", 1.23456);
    expect(timing.header()).toMatch(/^session-store;dur=1\.235, total;dur=\d+\.\d{3}$/);
  });

  it("parses what browsers and the bench read", () => {
    expect(parseServerTiming("session;dur=1.5, cache;desc=\"x\";dur=0.25, miss")).toEqual({ session: 1.5, cache: 0.25, miss: 0 });
    expect(parseServerTiming(null)).toEqual({});
  });
});
