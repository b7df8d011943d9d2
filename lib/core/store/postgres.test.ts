// The store over a real PostgreSQL server: a throwaway cluster this file starts (lib/core/store/testing/
// postgres.ts), or the scratch database TEST_DATABASE_URL names. It is skipped only on a machine
// without PostgreSQL, which .ci/run installs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticate } from "@/lib/core/auth/authenticate";
import { hashPassword } from "@/lib/core/auth/password";
import { hashToken, newShareToken } from "@/lib/features/sharing/tokens";
import { MIGRATIONS } from "./migrations";
import { openStore } from "./open";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import { shareLinksRepo } from "@/lib/features/sharing/links-store";
import type { Store } from "./sql";
import { postgresBinDir, startTestPostgres, type TestPostgres } from "./testing/postgres";
import { UserExistsError, usersRepo } from "@/lib/core/auth/users";

const external = process.env.TEST_DATABASE_URL;
const available = external !== undefined || postgresBinDir() !== null;
if (!available) console.warn("lib/core/store/postgres.test.ts: no PostgreSQL server installed (apt-get install postgresql); skipped");

let server: TestPostgres | null = null;
let url: string;
const opened: Store[] = [];

beforeAll(async () => {
  if (!available) return;
  if (external) url = external;
  else {
    server = await startTestPostgres();
    url = server.url;
  }
});

afterAll(async () => {
  // A scratch database named from outside is left as it was found.
  if (external && opened[0]) {
    await opened[0].exec("DROP TABLE IF EXISTS share_views, share_links, saved_reports, login_attempts, users, schema_migrations CASCADE");
  }
  await Promise.all(opened.map((s) => s.close()));
  await server?.stop();
});

describe.runIf(available)("store on PostgreSQL", () => {
  it("migrates once even when two processes start together, and behaves like PGlite", async () => {
    const config = { kind: "postgres" as const, url };
    const [a, b] = await Promise.all([openStore(config, { owner: "a" }), openStore(config, { owner: "b" })]);
    opened.push(a, b);
    expect((await a.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version")).map((r) => r.version)).toEqual(
      MIGRATIONS.map((m) => m.version),
    );

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

  it("keeps saved reports and share links: lookup by token hash, views, rotation, revocation, cascade on delete", async () => {
    const store = opened[0]!;
    const owner = (await usersRepo(store).findByEmail("pg@example.com"))!;
    const reports = savedReportsRepo(store);
    const links = shareLinksRepo(store);
    const report = await reports.create({ ownerId: owner.id, name: "Rebills by gateway", page: "explore", params: "g=date", sharedWithTeam: true });
    expect(await reports.listVisible({ id: owner.id, role: "admin" })).toEqual([report]);

    const token = newShareToken();
    const link = await links.create({
      reportId: report.id, tokenHash: hashToken(token), createdBy: owner.id, expiresAt: new Date(Date.now() + 86_400_000),
      passwordHash: null, mode: "snapshot", allowedPresets: ["last_7_days", "last_30_days"],
      snapshot: { fetched_at: "2026-11-22T05:00:00Z", start_date: "2026-11-01", end_date: "2026-11-21", data: [{ date: "2026-11-01", revenue: 12.34 }] },
    });
    expect(link).toMatchObject({ reportId: report.id, mode: "snapshot", allowedPresets: ["last_7_days", "last_30_days"], viewCount: 0, revokedAt: null });
    expect((await links.findByTokenHash(hashToken(token)))?.snapshot?.data).toEqual([{ date: "2026-11-01", revenue: 12.34 }]);

    await links.recordView(link.id, "address-hash");
    await links.recordView(link.id, "address-hash");
    expect((await links.get(link.id))?.viewCount).toBe(2);

    const rotated = newShareToken();
    await links.rotate(link.id, hashToken(rotated));
    expect(await links.findByTokenHash(hashToken(token))).toBeNull();
    expect((await links.findByTokenHash(hashToken(rotated)))?.id).toBe(link.id);

    await links.revoke(link.id);
    const revokedAt = (await links.get(link.id))?.revokedAt;
    expect(revokedAt).not.toBeNull();
    await links.revoke(link.id); // a second revocation keeps the first time
    expect((await links.get(link.id))?.revokedAt).toBe(revokedAt);

    expect(await reports.remove(report.id)).toBe(true);
    expect(await links.listForReport(report.id)).toEqual([]);
  });
});
