// The same store over PostgreSQL. Runs only when TEST_DATABASE_URL names a scratch database, e.g.
// TEST_DATABASE_URL=postgres://postgres@localhost:55432/dash npx vitest run lib/store/postgres.test.ts
import { afterAll, describe, expect, it } from "vitest";
import { authenticate } from "../auth/authenticate";
import { hashPassword } from "../auth/password";
import { openStore } from "./open";
import type { Store } from "./sql";
import { UserExistsError, usersRepo } from "./users";

const url = process.env.TEST_DATABASE_URL;
const opened: Store[] = [];

afterAll(async () => {
  if (opened[0]) await opened[0].exec("DROP TABLE IF EXISTS users, login_attempts, schema_migrations");
  await Promise.all(opened.map((s) => s.close()));
});

describe.runIf(url)("store on PostgreSQL", () => {
  it("migrates once even when two processes start together, and behaves like PGlite", async () => {
    const config = { kind: "postgres" as const, url: url! };
    const [a, b] = await Promise.all([openStore(config, { owner: "a" }), openStore(config, { owner: "b" })]);
    opened.push(a, b);
    expect((await a.query<{ version: number }>("SELECT version FROM schema_migrations")).map((r) => r.version)).toEqual([1]);

    const users = usersRepo(a);
    await users.create({ email: "PG@example.com", role: "admin", passwordHash: await hashPassword("pw-123456") });
    await expect(usersRepo(b).create({ email: "pg@EXAMPLE.com", role: "viewer", passwordHash: "h" })).rejects.toBeInstanceOf(UserExistsError);
    await expect(
      b.transaction(async (tx) => {
        await usersRepo(tx).create({ email: "tx@example.com", role: "viewer", passwordHash: "h" });
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await users.findByEmail("tx@example.com")).toBeNull();
    expect(await authenticate(b, { email: "pg@example.com", password: "pw-123456", address: "10.9.9.9" })).toMatchObject({ ok: true });
    expect(await authenticate(b, { email: "pg@example.com", password: "nope", address: "10.9.9.9" })).toEqual({ ok: false, reason: "invalid" });
    expect((await users.list()).map((u) => u.lastLoginAt instanceof Date)).toEqual([true]);
  });
});
