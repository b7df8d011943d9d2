import { beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "@/lib/contract/errors";

// The session check's own parts (cookie → token → the store's user) are tested in
// session-token.test.ts; here the store's answer is what varies.
const currentSessionUser = vi.fn();
vi.mock("./options", () => ({ currentSessionUser: (...args: unknown[]) => currentSessionUser(...args) }));
vi.mock("next-auth/jwt", () => ({ decode: async () => ({ sub: "u1", sid: "s1", signedInAt: Date.now(), exp: Date.now() / 1000 + 60 }) }));
vi.mock("next/headers", () => ({ cookies: async () => ({ getAll: () => [{ name: "next-auth.session-token", value: "a-cookie" }] }) }));
vi.mock("next/server", () => ({ connection: async () => undefined }));
vi.mock("@/lib/core/env/env", () => ({ serverEnv: () => ({ NEXTAUTH_URL: "http://localhost:3000", NEXTAUTH_SECRET: "x".repeat(32) }) }));

const { requireUser, getSessionUser } = await import("./session");

function signedInAs(role: string | null) {
  currentSessionUser.mockResolvedValue(role ? { id: "u1", email: "a@example.com", role } : null);
}

async function statusOf(p: Promise<unknown>): Promise<number | "ok"> {
  try {
    await p;
    return "ok";
  } catch (e) {
    if (e instanceof ApiError) return e.status;
    throw e;
  }
}

describe("requireUser", () => {
  beforeEach(() => currentSessionUser.mockReset());

  it("answers 401 without a session and 403 with too small a role", async () => {
    signedInAs(null);
    expect(await statusOf(requireUser())).toBe(401);
    signedInAs("viewer");
    expect(await statusOf(requireUser("analyst"))).toBe(403);
    const e = await requireUser("analyst").catch((x: unknown) => x);
    expect(e).toMatchObject({ status: 403, type: "ForbiddenError" });
  });

  it("follows admin ⊇ analyst ⊇ viewer", async () => {
    signedInAs("admin");
    expect(await statusOf(requireUser("analyst"))).toBe("ok");
    expect(await statusOf(requireUser("viewer"))).toBe("ok");
    signedInAs("analyst");
    expect(await statusOf(requireUser("analyst"))).toBe("ok");
    expect(await statusOf(requireUser("admin"))).toBe(403);
    expect(await statusOf(requireUser(["viewer"]))).toBe(403);
    signedInAs("viewer");
    expect(await requireUser()).toEqual({ id: "u1", email: "a@example.com", role: "viewer" });
  });

  it("reads a route's session from its request's cookies when the request has them (a NextRequest)", async () => {
    signedInAs("analyst");
    const withCookies = (cookies: { name: string; value: string }[]) => Object.assign(new Request("http://localhost:3000/api/x"), { cookies: { getAll: () => cookies } });
    expect(await requireUser("analyst", withCookies([{ name: "next-auth.session-token", value: "a-cookie" }]))).toMatchObject({ role: "analyst" });
    // next/headers has a session cookie (mocked above); the request's own cookies decide.
    expect(await statusOf(requireUser("analyst", withCookies([{ name: "other", value: "x" }])))).toBe(401);
    expect(await statusOf(requireUser("analyst", withCookies([])))).toBe(401);
    // A plain Request carries no parsed cookies: next/headers' are read, as before.
    expect(await statusOf(requireUser("analyst", new Request("http://localhost:3000/api/x")))).toBe("ok");
  });

  it("treats a session without a known role as no session", async () => {
    signedInAs("root");
    expect(await getSessionUser()).toBeNull();
  });
});
