// Share links' labels and token tails (migration 10) on both stores the dashboard runs on: PGlite, and
// a real PostgreSQL server (a throwaway cluster, or TEST_DATABASE_URL's scratch database) when one
// is installed. The database's own checks hold even for a writer that skipped the API's.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hashToken, newShareToken } from "./tokens";
import { tokenTail, TOKEN_TAIL_LENGTH } from "./link-input";
import { openStore } from "@/lib/core/store/open";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import { shareLinksRepo } from "./links-store";
import type { Store } from "@/lib/core/store/sql";
import { postgresBinDir, startTestPostgres, type TestPostgres } from "@/lib/core/store/testing/postgres";
import { usersRepo } from "@/lib/core/auth/users";

const external = process.env.TEST_DATABASE_URL;
const hasPostgres = external !== undefined || postgresBinDir() !== null;
if (!hasPostgres) console.warn("lib/features/sharing/links-store.test.ts: no PostgreSQL server installed (apt-get install postgresql); its PostgreSQL half skipped");

const cleanup: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const f of cleanup.reverse()) await f();
});

async function pglite(): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), "share-labels-"));
  const store = await openTestPglite(dir, "share labels test");
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }), () => store.close());
  return store;
}

async function postgres(): Promise<Store> {
  let url = external;
  if (!url) {
    const server: TestPostgres = await startTestPostgres();
    cleanup.push(() => server.stop());
    url = server.url;
  }
  const store = await openStore({ kind: "postgres", url }, { owner: "share labels test" });
  cleanup.push(() => store.close());
  return store;
}

async function exercise(store: Store) {
  const owner = await usersRepo(store).create({ email: `labels-${Date.now()}@example.com`, role: "analyst", passwordHash: "h" });
  const report = await savedReportsRepo(store).create({ ownerId: owner.id, name: "Labels", page: "explore", params: "range=last7", sharedWithTeam: false });
  const links = shareLinksRepo(store);
  const base = { reportId: report.id, createdBy: owner.id, expiresAt: new Date(Date.now() + 3_600_000), passwordHash: null, mode: "live" as const, allowedPresets: [], snapshot: null };

  const token = newShareToken();
  const link = await links.create({ ...base, tokenHash: hashToken(token), tokenTail: tokenTail(token), label: "For the bank manager" });
  expect(link).toMatchObject({ label: "For the bank manager", tokenTail: token.slice(-TOKEN_TAIL_LENGTH) });
  // The row holds the hash and the tail, never the token.
  const raw = await store.query<Record<string, unknown>>("SELECT * FROM share_links WHERE id = $1", [link.id]);
  expect(JSON.stringify(raw)).not.toContain(token);

  // A link made without them (as before the migration, or by code that gives none) has neither.
  const bare = await links.create({ ...base, tokenHash: hashToken(newShareToken()) });
  expect(bare).toMatchObject({ label: null, tokenTail: null });

  const rotated = newShareToken();
  await links.rotate(link.id, hashToken(rotated), tokenTail(rotated));
  expect((await links.get(link.id))?.tokenTail).toBe(rotated.slice(-TOKEN_TAIL_LENGTH));

  await expect(links.create({ ...base, tokenHash: hashToken(newShareToken()), label: "x".repeat(81) })).rejects.toThrow(/check constraint/);
  await expect(links.create({ ...base, tokenHash: hashToken(newShareToken()), label: "" })).rejects.toThrow(/check constraint/);
  await expect(links.create({ ...base, tokenHash: hashToken(newShareToken()), tokenTail: "a whole token, perhaps" })).rejects.toThrow(/check constraint/);
}

describe("share link labels and token tails", () => {
  it("are kept and checked on PGlite", async () => {
    await exercise(await pglite());
  });
  it.runIf(hasPostgres)("are kept and checked on PostgreSQL", async () => {
    await exercise(await postgres());
  });
});
