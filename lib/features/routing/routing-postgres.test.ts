/**
 * The routing protections with two dashboard instances on one PostgreSQL database (the deployment
 * the README recommends for teams): a user's share of the routing bucket is one allowance however
 * their calls are spread over the instances, and an approver's standing written by one instance is
 * what the other reads. The allowance's clock is injected; nothing here is timed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usersRepo } from "@/lib/core/auth/users";
import { ApiError } from "@/lib/contract/errors";
import { openStore } from "@/lib/core/store/open";
import type { Store } from "@/lib/core/store/sql";
import { postgresBinDir, startTestPostgres, type TestPostgres } from "@/lib/core/store/testing/postgres";
import { takeRoutingCall } from "@/lib/core/upstream/routing-allowance";
import { approvalRefusal } from "./approval";

const available = postgresBinDir() !== null;
if (!available) console.warn("lib/features/routing/routing-postgres.test.ts: no PostgreSQL server installed (apt-get install postgresql); skipped");

let server: TestPostgres | null = null;
let a: Store;
let b: Store;

beforeAll(async () => {
  if (!available) return;
  server = await startTestPostgres();
  const config = { kind: "postgres" as const, url: server.url };
  [a, b] = await Promise.all([openStore(config, { owner: "instance a" }), openStore(config, { owner: "instance b" })]);
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await server?.stop();
});

describe.runIf(available)("routing protections on PostgreSQL with two instances", () => {
  it("one user's calls through both instances count against one share; another user's share is untouched", async () => {
    const ana = await usersRepo(a).create({ email: "ana@pg.test", role: "analyst", passwordHash: "not used" });
    const ada = await usersRepo(b).create({ email: "ada@pg.test", role: "admin", passwordHash: "not used" });
    const now = new Date("2026-03-02T10:00:00Z");
    const opts = { perUser: 6, now };
    const outcomes: (number | "ok")[] = [];
    for (let i = 0; i < 10; i++) {
      const store = i % 2 === 0 ? a : b;
      outcomes.push(
        await takeRoutingCall(store, ana.id, { kind: "preview", bins: 500 }, opts).then(
          () => "ok" as const,
          (e: unknown) => (e instanceof ApiError ? e.status : -1),
        ),
      );
    }
    expect(outcomes).toEqual(["ok", "ok", "ok", "ok", "ok", "ok", 429, 429, 429, 429]);
    // Concurrent calls of one user from both instances still pass at most the share.
    const later = { perUser: 6, now: new Date(now.getTime() + 120_000) };
    const racing = await Promise.all(
      Array.from({ length: 12 }, (_, i) => takeRoutingCall(i % 2 === 0 ? a : b, ana.id, { kind: "validate" }, later).then(() => true, () => false)),
    );
    expect(racing.filter(Boolean)).toHaveLength(6);
    await expect(takeRoutingCall(b, ada.id, { kind: "lookup" }, opts)).resolves.toBeUndefined();
  });

  it("a password reset on one instance makes the account's standing newer on the other, with who set it", async () => {
    const pat = await usersRepo(a).create({ email: "pat@pg.test", role: "admin", passwordHash: "not used" });
    const dan = await usersRepo(a).create({ email: "dan@pg.test", role: "admin", passwordHash: "not used" });
    const proposedAt = new Date().toISOString();
    await usersRepo(b).setPassword(pat.email, "another hash", new Date(), dan.id);
    const seen = await usersRepo(a).findById(pat.id);
    expect(seen).toMatchObject({ passwordSetBy: dan.id });
    const proposer = (await usersRepo(a).findById(dan.id))!;
    const refusal = approvalRefusal({ proposed_at: proposedAt, proposed_by: { id: dan.id, email: dan.email } }, proposer, seen!);
    expect(refusal).toContain("changed after this change was proposed");
  });
});
