/**
 * Kept session checks against a real PGlite store: a live session's answer is read from the store
 * once, and every write that could change it (whatever made it) has the next check read the store
 * again, including writes made while a check's read is in flight; without in-process notifications
 * (PostgreSQL) the store is read every time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { sessionsRepo } from "./sessions-store";
import type { Store } from "@/lib/core/store/sql";
import { usersRepo } from "./users";
import { revalidateSession } from "./authenticate";
import { SessionChecks, type Revalidate } from "./session-checks";

let store: Store;
let dir: string;
const ids: Record<string, string> = {};
const EMAILS = ["a@example.com", "b@example.com", "c@example.com", "d@example.com", "e@example.com", "f@example.com", "g@example.com"];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dashboard-session-checks-"));
  store = await openTestPglite(dir, "session checks test");
  for (const email of EMAILS) ids[email] = (await usersRepo(store).create({ email, role: "analyst", passwordHash: "not-a-real-hash" })).id;
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The real store read, counted. */
function counted(): { reads: () => number; revalidate: Revalidate } {
  let n = 0;
  return { reads: () => n, revalidate: (...args) => (n++, revalidateSession(...args)) };
}

const signedIn = () => Date.now() - 1000;

describe("kept session checks (PGlite)", () => {
  it("reads a live session's user from the store once", async () => {
    const { reads, revalidate } = counted();
    const checks = new SessionChecks(revalidate, 100);
    const at = signedIn();
    for (let i = 0; i < 5; i++) expect(await checks.check(store, ids["a@example.com"]!, at, "sid-a")).toEqual({ id: ids["a@example.com"], email: "a@example.com", role: "analyst", company: false });
    expect(reads()).toBe(1);
    // Another session of the same user is its own answer (signed out on its own).
    await checks.check(store, ids["a@example.com"]!, at, "sid-a2");
    expect(reads()).toBe(2);
  });

  it("answers a session that is over from the store every time", async () => {
    const { reads, revalidate } = counted();
    const checks = new SessionChecks(revalidate, 100);
    for (let i = 0; i < 3; i++) expect(await checks.check(store, "00000000-0000-0000-0000-000000000000", signedIn(), "sid")).toBeNull();
    expect(reads()).toBe(3);
  });

  it("takes each change into account on the next check: disable, enable, role, password, sign-out", async () => {
    const { reads, revalidate } = counted();
    const checks = new SessionChecks(revalidate, 100);
    const users = usersRepo(store);
    const b = ids["b@example.com"]!;
    const at = signedIn();
    expect((await checks.check(store, b, at, "sid-b"))?.role).toBe("analyst");

    await users.setRole(b, "viewer");
    expect((await checks.check(store, b, at, "sid-b"))?.role).toBe("viewer");
    expect(await checks.check(store, b, at, "sid-b")).not.toBeNull();

    await sessionsRepo(store).revoke("sid-b", new Date(Date.now() + 3600_000));
    expect(await checks.check(store, b, at, "sid-b")).toBeNull();

    const later = signedIn();
    expect(await checks.check(store, b, later, "sid-b-2")).not.toBeNull();
    await users.setPassword("b@example.com", "another-hash");
    expect(await checks.check(store, b, later, "sid-b-2")).toBeNull();

    const c = ids["c@example.com"]!;
    const atC = signedIn();
    expect(await checks.check(store, c, atC, "sid-c")).not.toBeNull();
    await users.disable("c@example.com");
    expect(await checks.check(store, c, atC, "sid-c")).toBeNull();
    await users.enable("c@example.com");
    expect(await checks.check(store, c, atC, "sid-c")).toBeNull(); // disabling voided it for good
    const afterEnable = signedIn() + 1000;
    expect(await checks.check(store, c, afterEnable, "sid-c-2")).not.toBeNull();
    expect(reads()).toBe(9);
  });

  it("sees a write made by any statement, not only through the repositories", async () => {
    const checks = new SessionChecks(revalidateSession, 100);
    const d = ids["d@example.com"]!;
    const at = signedIn();
    expect(await checks.check(store, d, at, "sid-d")).not.toBeNull();
    await store.query("UPDATE users SET disabled = true WHERE id = $1", [d]);
    expect(await checks.check(store, d, at, "sid-d")).toBeNull();
    await store.query("UPDATE users SET disabled = false WHERE id = $1", [d]);
    expect(await checks.check(store, d, at, "sid-d")).not.toBeNull();
    await store.transaction(async (tx) => {
      await tx.query("UPDATE users SET role = 'viewer' WHERE id = $1", [d]);
    });
    expect((await checks.check(store, d, at, "sid-d"))?.role).toBe("viewer");
  });

  it("does not keep an answer read while a write was being made", async () => {
    const e = ids["e@example.com"]!;
    const at = signedIn();
    let reads = 0;
    // The first read answers what the store held before a disable that completes before the read returns.
    const racing: Revalidate = async (...args) => {
      reads++;
      const before = await revalidateSession(...args);
      if (reads === 1) await usersRepo(store).disable("e@example.com");
      return before;
    };
    const checks = new SessionChecks(racing, 100);
    expect(await checks.check(store, e, at, "sid-e")).not.toBeNull(); // the check that overlapped the write
    expect(await checks.check(store, e, at, "sid-e")).toBeNull(); // the next one reads the store again
    expect(reads).toBe(2);
    expect(checks.size(store)).toBe(0);
  });

  it("under concurrent checks, every check that starts after a disable has resolved refuses the session", async () => {
    const checks = new SessionChecks(revalidateSession, 100);
    const f = ids["f@example.com"]!;
    const at = signedIn();
    expect(await checks.check(store, f, at, "sid-f")).not.toBeNull();
    const during: Promise<unknown>[] = [];
    for (let i = 0; i < 50; i++) during.push(checks.check(store, f, at, "sid-f"));
    const after: Promise<unknown>[] = [];
    const disabled = usersRepo(store).disable("f@example.com").then(() => {
      // Started the moment the writer learns it is done, with no turn of the event loop between.
      for (let i = 0; i < 50; i++) after.push(checks.check(store, f, at, "sid-f"));
    });
    for (let i = 0; i < 50; i++) during.push(checks.check(store, f, at, "sid-f"));
    await Promise.all([...during, disabled]);
    expect(await Promise.all(after)).toEqual(Array(50).fill(null));
    expect(await checks.check(store, f, at, "sid-f")).toBeNull();
  });

  it("keeps at most maxEntries answers, the least recently used out first", async () => {
    const { reads, revalidate } = counted();
    const checks = new SessionChecks(revalidate, 2);
    const g = ids["g@example.com"]!;
    const at = signedIn();
    await checks.check(store, g, at, "s1");
    await checks.check(store, g, at, "s2");
    await checks.check(store, g, at, "s1"); // s1 used last: s2 goes next
    await checks.check(store, g, at, "s3");
    expect(checks.size(store)).toBe(2);
    expect(reads()).toBe(3);
    await checks.check(store, g, at, "s1");
    expect(reads()).toBe(3);
    await checks.check(store, g, at, "s2");
    expect(reads()).toBe(4);
  });
});

describe("without in-process notifications", () => {
  it("reads the store on every check (PostgreSQL)", async () => {
    const { reads, revalidate } = counted();
    const checks = new SessionChecks(revalidate, 100);
    const postgresLike: Store = { ...store, kind: "postgres", listenInProcess: undefined };
    for (let i = 0; i < 3; i++) expect(await checks.check(postgresLike, ids["a@example.com"]!, signedIn(), "sid-pg")).not.toBeNull();
    expect(reads()).toBe(3);
  });

  it("reads the store on every check when listening fails, and says so in the log", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { reads, revalidate } = counted();
    const checks = new SessionChecks(revalidate, 100);
    const broken: Store = { ...store, listenInProcess: () => Promise.reject(new Error("no LISTEN here")) };
    for (let i = 0; i < 3; i++) expect(await checks.check(broken, ids["a@example.com"]!, signedIn(), "sid-broken")).not.toBeNull();
    expect(reads()).toBe(3);
    expect(errors).toHaveBeenCalledTimes(1);
    errors.mockRestore();
  });
});
