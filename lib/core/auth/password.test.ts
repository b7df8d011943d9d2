import { beforeAll, describe, expect, it, vi } from "vitest";
import { DEFAULT_SCRYPT, generatePassword, hashPassword, needsRehash, setPasswordCost, verifyPassword } from "./password";

// The other test files hash at a lower cost (test/setup.ts); this one hashes as production does.
beforeAll(() => setPasswordCost(DEFAULT_SCRYPT));

describe("password hashing", () => {
  it("costs N = 2^15, r = 8, p = 1 in production, and takes no cost out of scrypt's accepted range", async () => {
    expect(DEFAULT_SCRYPT).toEqual({ ln: 15, r: 8, p: 1 });
    // The module as the application loads it, where nothing has set a cost.
    vi.resetModules();
    const fresh = await import("./password");
    const hash = await fresh.hashPassword("pw");
    expect(hash).toMatch(/^scrypt\$ln=15,r=8,p=1\$[\w-]+\$[\w-]+$/);
    expect(fresh.needsRehash(hash)).toBe(false);
    for (const bad of [{ ln: 9, r: 8, p: 1 }, { ln: 21, r: 8, p: 1 }, { ln: 12, r: 0, p: 1 }, { ln: 12, r: 8, p: 17 }, { ln: 12.5, r: 8, p: 1 }]) {
      expect(() => setPasswordCost(bad), JSON.stringify(bad)).toThrow(RangeError);
    }
  });

  it("verifies the right password, rejects a wrong one, salts each hash", async () => {
    const a = await hashPassword("correct horse battery staple");
    const b = await hashPassword("correct horse battery staple");
    expect(a).toMatch(/^scrypt\$ln=15,r=8,p=1\$[\w-]+\$[\w-]+$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword("correct horse battery staple", a)).toBe(true);
    expect(await verifyPassword("correct horse battery stapl", a)).toBe(false);
    expect(await verifyPassword("", a)).toBe(false);
  });

  it("reads the parameters from the stored string", async () => {
    const cheap = await hashPassword("pw", { ln: 10, r: 8, p: 1 });
    expect(await verifyPassword("pw", cheap)).toBe(true);
    expect(needsRehash(cheap)).toBe(true);
    expect(needsRehash(await hashPassword("pw"))).toBe(false);
  });

  it("treats malformed or out-of-range hashes as a mismatch", async () => {
    expect(await verifyPassword("pw", "")).toBe(false);
    expect(await verifyPassword("pw", "plaintext")).toBe(false);
    expect(await verifyPassword("pw", "scrypt$ln=30,r=8,p=1$c2FsdA$aGFzaGhhc2hoYXNoaGFzaA")).toBe(false);
  });

  it("generates long random passwords", () => {
    const p = generatePassword();
    expect(p).toMatch(/^[\w-]{24}$/);
    expect(generatePassword()).not.toBe(p);
  });
});
