/**
 * The API's session check against a real store and real next-auth cookies: a cookie's payload is
 * decrypted once, but what ends a session (signing out, disabling, a password change, 12 hours) and a
 * role change are read from the store on every check, so they take effect on the next request.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { encode, type JWT } from "next-auth/jwt";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { sessionsRepo } from "./sessions-store";
import { usersRepo } from "./users";

const SECRET = "a-test-secret-of-at-least-32-characters";
let store: Store;
let dir: string;

vi.mock("@/lib/core/env/env", () => ({ serverEnv: () => ({ NEXTAUTH_URL: "http://localhost:3000", NEXTAUTH_SECRET: SECRET, TRUSTED_PROXY_HOPS: 1 }) }));
vi.mock("@/lib/core/store", () => ({ getStore: async () => store }));
const decodes = vi.hoisted(() => ({ count: 0 }));
vi.mock("next-auth/jwt", async (original) => {
  const real = await original<typeof import("next-auth/jwt")>();
  return { ...real, decode: (params: Parameters<typeof real.decode>[0]) => (decodes.count++, real.decode(params)) };
});

const { sessionUserFrom, sessionTokenFrom, sessionCookieName } = await import("./session-token");

const NAME = "next-auth.session-token";
const jar = (value: string, name = NAME) => ({ getAll: () => [{ name: "next-auth.csrf-token", value: "x" }, { name, value }] });

/** A session cookie as next-auth's sign-in writes it (the jwt callback's sign-in branch). */
async function signIn(email: string, fields: Partial<JWT> = {}): Promise<string> {
  const user = (await usersRepo(store).findByEmail(email))!;
  return encode({ token: { sub: user.id, email: user.email, role: user.role, signedInAt: Date.now(), sid: crypto.randomUUID(), ...fields }, secret: SECRET, maxAge: 12 * 3600 });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dashboard-session-"));
  store = await openTestPglite(dir, "session test");
  const users = usersRepo(store);
  for (const email of ["a@example.com", "b@example.com", "c@example.com", "d@example.com", "e@example.com"]) {
    await users.create({ email, role: "analyst", passwordHash: "not-a-real-hash" });
  }
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  decodes.count = 0;
});

describe("the session check", () => {
  it("answers the cookie's user, decrypting a cookie value only once", async () => {
    const cookie = await signIn("a@example.com");
    const a = (await usersRepo(store).findByEmail("a@example.com"))!;
    for (let i = 0; i < 5; i++) expect(await sessionUserFrom(jar(cookie))).toEqual({ id: a.id, email: "a@example.com", role: "analyst" });
    expect(decodes.count).toBe(1);
  });

  it("answers null without a cookie, for a cookie of another secret, and for junk", async () => {
    expect(await sessionUserFrom({ getAll: () => [] })).toBeNull();
    const other = await encode({ token: { sub: "x", sid: "y", signedInAt: Date.now() }, secret: "another-secret-of-at-least-32-characters" });
    expect(await sessionUserFrom(jar(other))).toBeNull();
    expect(await sessionUserFrom(jar("not.a.jwe.at.all"))).toBeNull();
    // The https name is the only one read when the dashboard is served over https, and vice versa.
    expect(sessionCookieName("https://dash.example.com")).toBe("__Secure-next-auth.session-token");
    expect(await sessionUserFrom(jar(await signIn("a@example.com"), "__Secure-next-auth.session-token"))).toBeNull();
  });

  it("refuses a disabled user's session on the next check, though its cookie was decrypted before", async () => {
    const cookie = await signIn("b@example.com");
    expect(await sessionUserFrom(jar(cookie))).not.toBeNull();
    await usersRepo(store).disable("b@example.com");
    expect(await sessionUserFrom(jar(cookie))).toBeNull();
    // Enabling the account again does not revive a session that disabling voided.
    await usersRepo(store).enable("b@example.com");
    expect(await sessionUserFrom(jar(cookie))).toBeNull();
    expect(decodes.count).toBe(1);
  });

  it("follows a role change on the next check", async () => {
    const cookie = await signIn("c@example.com");
    const c = (await usersRepo(store).findByEmail("c@example.com"))!;
    expect((await sessionUserFrom(jar(cookie)))?.role).toBe("analyst");
    await usersRepo(store).setRole(c.id, "viewer");
    expect((await sessionUserFrom(jar(cookie)))?.role).toBe("viewer");
  });

  it("ends a signed-out session, sessions from before a password change, and sessions older than 12 hours", async () => {
    const sid = crypto.randomUUID();
    const out = await signIn("d@example.com", { sid });
    expect(await sessionUserFrom(jar(out))).not.toBeNull();
    await sessionsRepo(store).revoke(sid, new Date(Date.now() + 3600_000));
    expect(await sessionUserFrom(jar(out))).toBeNull();

    const before = await signIn("e@example.com", { signedInAt: Date.now() - 1000 });
    expect(await sessionUserFrom(jar(before))).not.toBeNull();
    await usersRepo(store).setPassword("e@example.com", "another-hash");
    expect(await sessionUserFrom(jar(before))).toBeNull();

    const old = await signIn("a@example.com", { signedInAt: Date.now() - 12 * 3600_000 - 1000 });
    expect(await sessionUserFrom(jar(old))).toBeNull();
  });

  it("joins a long cookie's chunks exactly as next-auth writes them", async () => {
    const cookie = await signIn("a@example.com", { padding: "p".repeat(6000) });
    // next-auth's own writer, which its package does not export.
    const require = createRequire(import.meta.url);
    const { SessionStore } = require(join(dirname(require.resolve("next-auth/jwt")), "../core/lib/cookie.js")) as {
      SessionStore: new (o: object, r: object, l: object) => { chunk(v: string, o: object): { name: string; value: string }[] };
    };
    const chunks = new SessionStore({ name: NAME, options: {} }, { cookies: {} }, { debug() {} }).chunk(cookie, {});
    expect(chunks.length).toBeGreaterThan(1);
    const shuffled = [...chunks].reverse();
    expect(sessionTokenFrom({ getAll: () => shuffled }, NAME)).toBe(cookie);
    expect((await sessionUserFrom({ getAll: () => shuffled }))?.email).toBe("a@example.com");
  });
});
