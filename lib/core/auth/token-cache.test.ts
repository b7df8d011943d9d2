import { describe, expect, it, vi } from "vitest";
import { TokenCache } from "./token-cache";

type Payload = { sub: string; exp?: number };

function clock(start = 1_000_000_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe("the decrypted session cache", () => {
  it("decrypts a cookie value once, then answers from memory until its time is up", async () => {
    const c = clock();
    const cache = new TokenCache<Payload>({ maxEntries: 10, ttlMs: 60_000, now: c.now });
    const decrypt = vi.fn(async (raw: string) => ({ sub: raw, exp: c.now() / 1000 + 3600 }));
    expect(await cache.decode("cookie-a", decrypt)).toMatchObject({ sub: "cookie-a" });
    expect(await cache.decode("cookie-a", decrypt)).toMatchObject({ sub: "cookie-a" });
    expect(decrypt).toHaveBeenCalledTimes(1);
    c.advance(60_001); // past the cache's own TTL, well before the token's expiry
    await cache.decode("cookie-a", decrypt);
    expect(decrypt).toHaveBeenCalledTimes(2);
  });

  it("never keeps a payload past its token's expiry (with jose's 15 s of clock tolerance)", async () => {
    const c = clock();
    const cache = new TokenCache<Payload>({ maxEntries: 10, ttlMs: 10 * 60_000, now: c.now });
    const exp = c.now() / 1000 + 30;
    const decrypt = vi.fn(async () => ({ sub: "u", exp }) as Payload | null);
    await cache.decode("short-lived", decrypt);
    c.advance(44_000);
    await cache.decode("short-lived", decrypt);
    expect(decrypt).toHaveBeenCalledTimes(1);
    c.advance(2_000); // 46 s: past exp + 15 s, so decryption (which now refuses it) decides
    decrypt.mockResolvedValueOnce(null);
    expect(await cache.decode("short-lived", decrypt)).toBeNull();
    expect(decrypt).toHaveBeenCalledTimes(2);
    expect(cache.size).toBe(0);
  });

  it("keeps no failure and no token without an expiry", async () => {
    const cache = new TokenCache<Payload>({ maxEntries: 10, ttlMs: 60_000 });
    const bad = vi.fn(async () => null);
    expect(await cache.decode("forged", bad)).toBeNull();
    expect(await cache.decode("forged", bad)).toBeNull();
    expect(bad).toHaveBeenCalledTimes(2);
    const noExp = vi.fn(async () => ({ sub: "u" }));
    await cache.decode("no-exp", noExp);
    await cache.decode("no-exp", noExp);
    expect(noExp).toHaveBeenCalledTimes(2);
    expect(cache.size).toBe(0);
  });

  it("holds at most maxEntries, the least recently used out first", async () => {
    const cache = new TokenCache<Payload>({ maxEntries: 3, ttlMs: 60_000 });
    const decrypt = vi.fn(async (raw: string) => ({ sub: raw, exp: Date.now() / 1000 + 3600 }));
    for (const raw of ["a", "b", "c"]) await cache.decode(raw, decrypt);
    await cache.decode("a", decrypt); // a is now the most recently used
    await cache.decode("d", decrypt); // pushes out b
    expect(cache.size).toBe(3);
    decrypt.mockClear();
    await cache.decode("a", decrypt);
    await cache.decode("c", decrypt);
    await cache.decode("d", decrypt);
    expect(decrypt).not.toHaveBeenCalled();
    await cache.decode("b", decrypt);
    expect(decrypt).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 100; i++) await cache.decode(`x${i}`, decrypt);
    expect(cache.size).toBe(3);
  });

  it("does not keep the cookie values themselves", async () => {
    const cache = new TokenCache<Payload>({ maxEntries: 3, ttlMs: 60_000 });
    await cache.decode("the-secret-cookie-value", async () => ({ sub: "u", exp: Date.now() / 1000 + 60 }));
    const keys = [...(cache as unknown as { entries: Map<string, unknown> }).entries.keys()];
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain("the-secret-cookie-value");
  });
});
