import { beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../contract/errors";

const getServerSession = vi.fn();
vi.mock("next-auth", () => ({ getServerSession: (...args: unknown[]) => getServerSession(...args) }));
vi.mock("next/server", () => ({ connection: async () => undefined }));
vi.mock("./options", () => ({ authOptions: {} }));

const { requireUser, getSessionUser } = await import("./session");

function signedInAs(role: string | null) {
  getServerSession.mockResolvedValue(role ? { user: { id: "u1", email: "a@example.com", role }, expires: "" } : null);
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
  beforeEach(() => getServerSession.mockReset());

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

  it("treats a session without a known role as no session", async () => {
    signedInAs("root");
    expect(await getSessionUser()).toBeNull();
  });
});
