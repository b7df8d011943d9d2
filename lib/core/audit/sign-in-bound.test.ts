/**
 * Anonymous traffic cannot grow the audit log: failed, malformed and throttled sign-ins are counted
 * per address and window, one entry per tally, while every successful sign-in stays an entry of its
 * own. Against a real PGlite store, and a real PostgreSQL server (two dashboard instances on one
 * database) where one is installed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticate, LOGIN_THROTTLE } from "@/lib/core/auth/authenticate";
import { hashPassword } from "@/lib/core/auth/password";
import { usersRepo } from "@/lib/core/auth/users";
import { auditRepo, TALLY_ADDRESSES } from "@/lib/core/audit/store";
import { openStore } from "@/lib/core/store/open";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { postgresBinDir, startTestPostgres, type TestPostgres } from "@/lib/core/store/testing/postgres";

const PASSWORD = "Correct-Horse-42";
const rowCount = async (store: Store) => Number((await store.query<{ n: string | number }>("SELECT count(*) AS n FROM audit_log"))[0]?.n ?? 0);

/**
 * 300 anonymous sign-ins from one address: malformed ones (empty password, some without an e-mail)
 * and every `wrongEvery`-th a wrong password for a made-up account.
 */
async function flood(store: Store, address: string | null, tag: string, wrongEvery = 3): Promise<void> {
  const jobs: Promise<unknown>[] = [];
  for (let i = 0; i < 300; i++) {
    const credentials =
      i % wrongEvery === wrongEvery - 1
        ? { email: `made-up-${tag}-${i}@bound.test`, password: "guess", address }
        : { email: i % 2 === 0 ? "" : `x${i}@bound.test`, password: "", address };
    jobs.push(authenticate(store, credentials));
    // A few at a time, as a client flooding over one connection would.
    if (jobs.length === 10) await Promise.all(jobs.splice(0));
  }
  await Promise.all(jobs);
}

describe("on PGlite", () => {
  let dir: string;
  let store: Store;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "audit-bound-"));
    store = await openTestPglite(dir, "audit bound test");
    await usersRepo(store).create({ email: "real@bound.test", role: "viewer", passwordHash: await hashPassword(PASSWORD) });
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("300 anonymous malformed and failed sign-ins from one address add one entry that counts them", async () => {
    const before = await rowCount(store);
    await flood(store, "203.0.113.7", "one");
    // Counted, not yet written: the tally is still open.
    expect(await rowCount(store)).toBe(before);
    const { entries } = await auditRepo(store).list({ actions: ["sign_in.failed"] });
    expect(await rowCount(store)).toBe(before + 1);
    expect(entries).toHaveLength(1);
    const e = entries[0]!;
    expect(e).toMatchObject({ actorKind: "anonymous", actorEmail: null, actorAddress: "203.0.113.7" });
    expect(e.detail.failures).toBe(300);
    expect(e.detail.malformed).toBe(200);
    expect(Number(e.detail.wrong_password) + Number(e.detail.unknown_account) + Number(e.detail.throttled)).toBe(100);
    expect(Number(e.detail.throttled)).toBeGreaterThanOrEqual(100 - LOGIN_THROTTLE.maxPerAddress);
    expect(String(e.detail.summary)).toMatch(/^300 failed sign-ins for \d+\+? e-mail addresses from 203\.0\.113\.7 between \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC and /);
  });

  it("300 malformed sign-ins from 300 addresses add at most one entry per address up to 100, then one for the rest", async () => {
    const before = await rowCount(store);
    for (let i = 0; i < 300; i++) await authenticate(store, { email: "", password: "", address: `198.51.${i >> 8}.${i & 255}` });
    await auditRepo(store).list();
    expect(await rowCount(store) - before).toBe(TALLY_ADDRESSES + 1);
    const rest = (await auditRepo(store).list({ actions: ["sign_in.failed"] }, { limit: 500 })).entries.find((e) => e.actorAddress === null);
    expect(rest?.detail.failures).toBe(300 - TALLY_ADDRESSES);
    expect(String(rest?.detail.summary)).toContain("from further addresses");
  });

  it("with no known address (no trusted proxy) every failure shares one tally", async () => {
    const before = await rowCount(store);
    // Without an address only the per-account limit applies: each wrong password is checked, so few.
    await flood(store, null, "none", 30);
    await auditRepo(store).list();
    expect(await rowCount(store)).toBe(before + 1);
  });

  it("a tally's window closes after the throttle window: the next failure writes the old one", async () => {
    const t0 = new Date("2031-03-01T10:00:00Z");
    const before = await rowCount(store);
    await authenticate(store, { email: "w1@bound.test", password: "", address: "192.0.2.55" }, { now: t0 });
    await authenticate(store, { email: "w1@bound.test", password: "", address: "192.0.2.55" }, { now: new Date(t0.getTime() + 60_000) });
    expect(await rowCount(store)).toBe(before);
    await authenticate(store, { email: "w2@bound.test", password: "", address: "192.0.2.55" }, { now: new Date(t0.getTime() + LOGIN_THROTTLE.windowSeconds * 1000 + 1000) });
    expect(await rowCount(store)).toBe(before + 1);
    const closed = (await store.query<{ actor_email: string; detail: unknown }>("SELECT actor_email, detail FROM audit_log ORDER BY id DESC LIMIT 1"))[0]!;
    expect(closed.actor_email).toBe("w1@bound.test");
    expect(JSON.stringify(closed.detail)).toContain("2 failed sign-ins for 1 e-mail address from 192.0.2.55 between 2031-03-01 10:00:00 UTC and 2031-03-01 10:01:00 UTC");
  });

  it("every successful sign-in stays an entry of its own", async () => {
    const before = await rowCount(store);
    for (let i = 0; i < 3; i++) expect((await authenticate(store, { email: "real@bound.test", password: PASSWORD, address: "192.0.2.1" })).ok).toBe(true);
    expect(await rowCount(store)).toBe(before + 3);
  });
});

const external = process.env.TEST_DATABASE_URL;
const pgAvailable = external !== undefined || postgresBinDir() !== null;

describe.runIf(pgAvailable)("on PostgreSQL, two dashboard instances on one database", () => {
  let server: TestPostgres | null = null;
  const stores: Store[] = [];
  beforeAll(async () => {
    let url = external;
    if (!url) {
      server = await startTestPostgres();
      url = server.url;
    }
    stores.push(await openStore({ kind: "postgres", url }, { owner: "instance a" }));
    stores.push(await openStore({ kind: "postgres", url }, { owner: "instance b" }));
  });
  afterAll(async () => {
    if (external && stores[0]) await stores[0].exec("DROP TABLE IF EXISTS audit_failure_tallies; DELETE FROM login_attempts");
    await Promise.all(stores.map((s) => s.close()));
    await server?.stop();
  });

  it("300 sign-ins spread over both instances from one address add one entry", async () => {
    const [a, b] = stores as [Store, Store];
    const before = await rowCount(a);
    await Promise.all([flood(a, "203.0.113.8", "pg-a"), flood(b, "203.0.113.8", "pg-b")]);
    await Promise.all([auditRepo(a).list(), auditRepo(b).list()]);
    expect(await rowCount(a)).toBe(before + 1);
    const e = (await auditRepo(b).list({ actions: ["sign_in.failed"] })).entries[0]!;
    expect(e.detail.failures).toBe(600);
  });
});
