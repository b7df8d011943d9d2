// User management over a real PGlite store: what the admin page's API does, and what it refuses.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticate, revalidateSession, type SessionUser } from "@/lib/core/auth/authenticate";
import { hashPassword } from "@/lib/core/auth/password";
import { ApiError } from "@/lib/contract/errors";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { auditRepo } from "@/lib/core/audit/store";
import { usersRepo } from "@/lib/core/auth/users";
import { createUser, listUsers, NewUserInput, resetPassword, updateUser, UserPatch } from "./admin";

let dir: string;
let store: Store;
let admin: SessionUser;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "user-admin-"));
  store = await openTestPglite(dir, "user admin test");
  const u = await usersRepo(store).create({ email: "boss@test.local", role: "admin", passwordHash: await hashPassword("boss-password-1") });
  admin = { id: u.id, email: u.email, role: "admin" };
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const signIn = (email: string, password: string) => authenticate(store, { email, password, address: "10.1.2.3" });
async function rejection(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

describe("user administration", () => {
  it("creates a user whose generated password signs in, and lists users without secrets", async () => {
    const { user, password } = await createUser(store, admin, NewUserInput.parse({ email: "ana@test.local", role: "analyst" }), null);
    expect(user).toMatchObject({ email: "ana@test.local", role: "analyst", disabled: false, last_login_at: null });
    expect(password.length).toBeGreaterThanOrEqual(20);
    expect(await signIn("ana@test.local", password)).toMatchObject({ ok: true, user: { role: "analyst" } });

    const listed = await listUsers(store, null);
    expect(listed.map((u) => u.email)).toEqual(["ana@test.local", "boss@test.local"]);
    expect(JSON.stringify(listed)).not.toMatch(/scrypt|password/i);
    expect(listed.find((u) => u.email === "ana@test.local")?.last_login_at).not.toBeNull();

    const dup = await rejection(createUser(store, admin, { email: "ana@test.local", role: "viewer" }, null));
    expect(dup.status).toBe(400);
    expect(dup.message).toContain("already exists");
  });

  it("validates input: an e-mail address, a known role, known fields, something to change", () => {
    expect(NewUserInput.safeParse({ email: "not-an-address", role: "analyst" }).success).toBe(false);
    expect(NewUserInput.safeParse({ email: "x@test.local", role: "owner" }).success).toBe(false);
    expect(NewUserInput.safeParse({ email: "x@test.local", role: "viewer", password: "mine" }).success).toBe(false);
    expect(UserPatch.safeParse({}).success).toBe(false);
    expect(UserPatch.safeParse({ role: "viewer", email: "x@test.local" }).success).toBe(false);
    expect(UserPatch.safeParse({ disabled: "yes" }).success).toBe(false);
  });

  it("changes a role at once for live sessions, and disabling ends them", async () => {
    const { user, password } = await createUser(store, admin, { email: "vic@test.local", role: "viewer" }, null);
    expect(await signIn("vic@test.local", password)).toMatchObject({ ok: true });
    const signedInAt = Date.now() - 1000;

    expect(await updateUser(store, admin, user.id, { role: "analyst" }, null)).toMatchObject({ role: "analyst", disabled: false });
    expect(await revalidateSession(store, user.id, signedInAt)).toMatchObject({ role: "analyst" });

    expect(await updateUser(store, admin, user.id, { disabled: true, role: "viewer" }, null)).toMatchObject({ role: "viewer", disabled: true });
    expect(await revalidateSession(store, user.id, signedInAt)).toBeNull();
    expect(await signIn("vic@test.local", password)).toMatchObject({ ok: false });

    expect(await updateUser(store, admin, user.id, { disabled: false }, null)).toMatchObject({ disabled: false });
    expect(await signIn("vic@test.local", password)).toMatchObject({ ok: true });
  });

  it("grants and withdraws the routing permission, audited as a role change, and refuses it on the admin's own account", async () => {
    const { user } = await createUser(store, admin, { email: "route@test.local", role: "analyst" }, null);
    expect(user.routing).toBe(false);
    expect(await updateUser(store, admin, user.id, { routing: true }, null)).toMatchObject({ role: "analyst", routing: true });
    expect((await usersRepo(store).findById(user.id))?.routing).toBe(true);
    expect((await listUsers(store, null)).find((u) => u.id === user.id)?.routing).toBe(true);
    expect(await updateUser(store, admin, user.id, { routing: false }, null)).toMatchObject({ routing: false });
    const entries = (await auditRepo(store).list({ actions: ["user.role_changed"], subject: "route@test.local" })).entries;
    expect(entries.map((e) => e.detail)).toEqual([
      { role: "analyst", from_routing: true, routing: false },
      { role: "analyst", from_routing: false, routing: true },
    ]);
    expect(UserPatch.safeParse({ routing: "yes" }).success).toBe(false);
    const own = await rejection(updateUser(store, admin, admin.id, { routing: true }, null));
    expect(own.status).toBe(403);
    expect(own.message).toContain("routing permission");
  });

  it("voids a session signed in within the very millisecond the account was disabled, even once it is enabled again", async () => {
    const { user } = await createUser(store, admin, { email: "milli@test.local", role: "analyst" }, null);
    const at = Date.now();
    await usersRepo(store).disable("milli@test.local", new Date(at));
    await usersRepo(store).enable("milli@test.local");
    expect(await revalidateSession(store, user.id, at)).toBeNull();
    expect(await revalidateSession(store, user.id, at + 1)).toMatchObject({ role: "analyst" });
  });

  it("resets a password: the new one signs in, the old one and old sessions do not", async () => {
    const { user, password: old } = await createUser(store, admin, { email: "rita@test.local", role: "analyst" }, null);
    const signedInAt = Date.now() - 1000;
    const { password } = await resetPassword(store, admin, user.id, null);
    expect(password).not.toBe(old);
    expect(await signIn("rita@test.local", old)).toMatchObject({ ok: false });
    expect(await signIn("rita@test.local", password)).toMatchObject({ ok: true });
    expect(await revalidateSession(store, user.id, signedInAt)).toBeNull();
  });

  it("refuses changes to the admin's own account and to unknown users, changing nothing", async () => {
    for (const p of [updateUser(store, admin, admin.id, { role: "viewer" }, null), updateUser(store, admin, admin.id, { disabled: true }, null), resetPassword(store, admin, admin.id, null)]) {
      expect((await rejection(p)).status).toBe(403);
    }
    expect(await usersRepo(store).findById(admin.id)).toMatchObject({ role: "admin", disabled: false, sessionsValidAfter: null });
    expect(await signIn("boss@test.local", "boss-password-1")).toMatchObject({ ok: true });
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      expect((await rejection(updateUser(store, admin, id, { disabled: true }, null))).status).toBe(404);
      expect((await rejection(resetPassword(store, admin, id, null))).status).toBe(404);
    }
  });
});
