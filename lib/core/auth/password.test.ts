import { describe, expect, it } from "vitest";
import { generatePassword, hashPassword, needsRehash, verifyPassword } from "./password";

describe("password hashing", () => {
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
