import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { sessionsRepo } from "./sessions-store";
import { throttleRepo } from "@/lib/core/http/throttle";
import { usersRepo } from "./users";
import { addressNotice, clientAddress } from "@/lib/core/http/client-address";
import { LOGIN_THROTTLE, authenticate, revalidateSession } from "./authenticate";
import { hashPassword } from "./password";

let dir: string;
let store: Store;
const PASSWORD = "s3cret-Passw0rd";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dashboard-auth-"));
  store = await openTestPglite(dir, "auth test");
  const hash = await hashPassword(PASSWORD);
  const users = usersRepo(store);
  for (const [email, role] of [
    ["ok@example.com", "analyst"],
    ["locked@example.com", "viewer"],
    ["off@example.com", "viewer"],
    ["spray@example.com", "viewer"],
    ["rev@example.com", "admin"],
  ] as const) {
    await users.create({ email, role, passwordHash: hash });
  }
  await users.disable("off@example.com");
});

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("authenticate", () => {
  it("signs in with the right password (any case of e-mail) and records the login", async () => {
    const r = await authenticate(store, { email: " OK@example.com", password: PASSWORD, address: "10.0.0.1" });
    expect(r).toEqual({ ok: true, user: { id: expect.any(String), email: "ok@example.com", role: "analyst" } });
    expect((await usersRepo(store).findByEmail("ok@example.com"))?.lastLoginAt).toBeInstanceOf(Date);
  });

  it("gives the same answer for a wrong password, an unknown account, a disabled account and junk", async () => {
    const cases = [
      { email: "ok@example.com", password: "wrong" },
      { email: "nobody@example.com", password: PASSWORD },
      { email: "off@example.com", password: PASSWORD },
      { email: 42, password: ["x"] },
      { email: "ok@example.com", password: "" },
    ];
    for (const c of cases) expect(await authenticate(store, { ...c, address: "10.0.0.2" })).toEqual({ ok: false, reason: "invalid" });
  });

  it("throttles an account from one address after 5 failures, even with the right password, while other addresses still get in", async () => {
    const t0 = new Date("2030-01-01T10:00:00Z");
    const at = (s: number) => ({ now: new Date(t0.getTime() + s * 1000) });
    for (let i = 0; i < LOGIN_THROTTLE.maxPerAccountPerAddress; i++) {
      expect(await authenticate(store, { email: "locked@example.com", password: "nope", address: "10.1.0.1" }, at(i * 60))).toMatchObject({ reason: "invalid" });
    }
    const throttled = await authenticate(store, { email: "LOCKED@example.com", password: PASSWORD, address: "10.1.0.1" }, at(300));
    // The first failure (t0) leaves the window at t0 + 900 s, 600 s after this attempt.
    expect(throttled).toEqual({ ok: false, reason: "throttled", retryAfterSeconds: 600 });
    // Someone guessing the e-mail from one address does not lock its owner out elsewhere.
    expect(await authenticate(store, { email: "locked@example.com", password: PASSWORD, address: "10.9.9.9" }, at(301))).toMatchObject({ ok: true });
    // Unknown accounts are throttled just the same, so throttling reveals nothing.
    for (let i = 0; i < LOGIN_THROTTLE.maxPerAccountPerAddress; i++) {
      await authenticate(store, { email: "ghost@example.com", password: "nope", address: "10.2.0.1" }, at(i));
    }
    expect(await authenticate(store, { email: "ghost@example.com", password: "nope", address: "10.2.0.1" }, at(10))).toMatchObject({ reason: "throttled" });
    expect(await authenticate(store, { email: "locked@example.com", password: PASSWORD, address: "10.1.0.1" }, at(901))).toMatchObject({ ok: true });
  });

  it("stops a guess spread over many addresses at the account's ceiling", async () => {
    const now = new Date("2030-03-01T10:00:00Z");
    for (let i = 0; i < LOGIN_THROTTLE.maxPerAccount; i++) {
      expect(await authenticate(store, { email: "ok@example.com", password: "nope", address: `10.3.${i >> 8}.${i & 255}` }, { now })).toMatchObject({ reason: "invalid" });
    }
    expect(await authenticate(store, { email: "ok@example.com", password: PASSWORD, address: "10.4.0.1" }, { now })).toMatchObject({ reason: "throttled" });
  });

  it("checks at most the limit when wrong guesses arrive all at once", async () => {
    const now = new Date("2030-04-01T10:00:00Z");
    let checked = 0;
    const results = await Promise.all(
      Array.from({ length: 30 }, () => authenticate(store, { email: "spray@example.com", password: "nope", address: "10.5.0.1" }, { now })),
    );
    for (const r of results) if (!r.ok && r.reason === "invalid") checked++;
    expect(checked).toBeLessThanOrEqual(LOGIN_THROTTLE.maxPerAccountPerAddress);
    expect(results.filter((r) => !r.ok && r.reason === "throttled").length).toBeGreaterThanOrEqual(30 - LOGIN_THROTTLE.maxPerAccountPerAddress);
  });

  it("throttles an address after 20 failures across accounts", async () => {
    const now = new Date("2030-02-01T10:00:00Z");
    const t = throttleRepo(store);
    for (let i = 0; i < LOGIN_THROTTLE.maxPerAddress - 1; i++) await t.recordFailure("address:203.0.113.9", new Date(now.getTime() - 60_000));
    // The 20th failure, on another account, trips the limit.
    expect(await authenticate(store, { email: "whoever@example.com", password: "x", address: "203.0.113.9" }, { now })).toMatchObject({ reason: "invalid" });
    expect(await authenticate(store, { email: "spray@example.com", password: PASSWORD, address: "203.0.113.9" }, { now })).toEqual({
      ok: false,
      reason: "throttled",
      retryAfterSeconds: 840,
    });
    // The same account from elsewhere is fine.
    expect(await authenticate(store, { email: "spray@example.com", password: PASSWORD, address: "198.51.100.1" }, { now })).toMatchObject({ ok: true });
  });
});

describe("signed-out sessions", () => {
  it("are remembered until they would have expired, then forgotten", async () => {
    const sessions = sessionsRepo(store);
    const now = new Date();
    await sessions.revoke("sid-1", new Date(now.getTime() + 60_000), now);
    await sessions.revoke("sid-1", new Date(now.getTime() + 60_000), now); // twice is fine
    expect(await sessions.isRevoked("sid-1")).toBe(true);
    expect(await sessions.isRevoked("sid-2")).toBe(false);
    await sessions.revoke("sid-3", now, now);
    await sessions.revoke("sid-4", new Date(now.getTime() + 60_000), new Date(now.getTime() + 120_000));
    expect(await sessions.isRevoked("sid-1")).toBe(false);
  });
});

describe("revalidateSession", () => {
  it("drops sessions of disabled users and sessions from before a password change", async () => {
    const users = usersRepo(store);
    const rev = (await users.findByEmail("rev@example.com"))!;
    const signedIn = Date.now();
    expect(await revalidateSession(store, rev.id, signedIn)).toEqual({ id: rev.id, email: "rev@example.com", role: "admin", company: false });
    await users.setPassword("rev@example.com", rev.passwordHash, new Date(signedIn + 1000));
    expect(await revalidateSession(store, rev.id, signedIn)).toBeNull();
    expect(await revalidateSession(store, rev.id, signedIn + 2000)).not.toBeNull();
    await users.disable("rev@example.com");
    expect(await revalidateSession(store, rev.id, Date.now() + 1000)).toBeNull();
    expect(await revalidateSession(store, "00000000-0000-0000-0000-000000000000", signedIn)).toBeNull();
  });
});

describe("revalidateSession with the session's id", () => {
  it("also drops a signed-out session, in the same read, and otherwise answers as without it", async () => {
    const users = usersRepo(store);
    const ok = (await users.findByEmail("ok@example.com"))!;
    const now = Date.now();
    expect(await revalidateSession(store, ok.id, now, "live-session")).toEqual(await revalidateSession(store, ok.id, now));
    await sessionsRepo(store).revoke("ended-session", new Date(now + 60_000));
    expect(await revalidateSession(store, ok.id, now, "ended-session")).toBeNull();
    expect(await revalidateSession(store, "not-a-uuid", now, "live-session")).toBeNull();
    expect(await revalidateSession(store, "00000000-0000-0000-0000-000000000000", now, "live-session")).toBeNull();
    const off = (await users.findByEmail("off@example.com"))!;
    expect(await revalidateSession(store, off.id, now + 1000, "live-session")).toBeNull();
  });
});

describe("clientAddress", () => {
  it("takes the x-forwarded-for entry the trusted proxies wrote, not what the client sent; then x-real-ip", () => {
    // A client sends "203.0.113.66"; the proxy in front appends the address it saw.
    expect(clientAddress({ "x-forwarded-for": "203.0.113.66, 198.51.100.7" })).toBe("198.51.100.7");
    expect(clientAddress({ "x-forwarded-for": " 203.0.113.66, 198.51.100.7, 10.0.0.1" }, 2)).toBe("198.51.100.7");
    expect(clientAddress({ "x-forwarded-for": "198.51.100.7" }, 3)).toBe("198.51.100.7");
    expect(clientAddress({ "x-forwarded-for": ["203.0.113.66", "198.51.100.7"] })).toBe("198.51.100.7");
    expect(clientAddress({ "x-forwarded-for": " , ", "x-real-ip": "192.0.2.1" })).toBe("192.0.2.1");
    expect(clientAddress(new Headers({ "x-real-ip": "::1" }))).toBe("::1");
    expect(clientAddress({})).toBeNull();
    expect(clientAddress(undefined)).toBeNull();
    // No proxy in front: no header is trusted and no address is known (no key all clients share).
    expect(clientAddress({ "x-forwarded-for": "203.0.113.66" }, 0)).toBeNull();
    expect(addressNotice(0)).toMatch(/TRUSTED_PROXY_HOPS=0: client addresses cannot be seen/);
    expect(addressNotice(1)).toBeNull();
  });
});
