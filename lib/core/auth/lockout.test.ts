/**
 * No request can lock out someone else: one client's wrong passwords for made-up accounts and
 * unknown share tokens leave another client's correct sign-in and valid share link working, with no
 * proxy trusted (TRUSTED_PROXY_HOPS=0: no address can be told apart) and with one (=1: the address the
 * proxy appended). Against a real PGlite store, with the addresses read from the request headers as
 * the sign-in and share routes read them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientAddress } from "@/lib/core/http/client-address";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { savedReportsRepo } from "@/lib/features/saved-reports/store";
import { shareLinksRepo } from "@/lib/features/sharing/links-store";
import type { Store } from "@/lib/core/store/sql";
import { checkSharePassword, resolveShare } from "@/lib/features/sharing/service";
import { hashToken, newShareToken } from "@/lib/features/sharing/tokens";
import { authenticate } from "./authenticate";
import { hashPassword } from "./password";
import { usersRepo } from "./users";

const SECRET = "lockout-test-secret-lockout-test-secret-0123456789";
const PASSWORD = "the-Right-passw0rd";
let dir: string;
let store: Store;
let openToken: string;
let lockedToken: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lockout-"));
  store = await openTestPglite(dir, "lockout test");
  const hash = await hashPassword(PASSWORD);
  const owner = await usersRepo(store).create({ email: "owner@lockout.test", role: "analyst", passwordHash: hash });
  await usersRepo(store).create({ email: "victim@lockout.test", role: "viewer", passwordHash: hash });
  const report = await savedReportsRepo(store).create({ ownerId: owner.id, name: "Shared", page: "explore", params: "range=last7", sharedWithTeam: false });
  const link = async (passwordHash: string | null) => {
    const token = newShareToken();
    await shareLinksRepo(store).create({
      reportId: report.id,
      tokenHash: hashToken(token),
      createdBy: owner.id,
      expiresAt: new Date(Date.now() + 86_400_000),
      passwordHash,
      mode: "live",
      allowedPresets: [],
      snapshot: null,
    });
    return token;
  };
  openToken = await link(null);
  lockedToken = await link(hash);
});

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

// What each client's request carries: with no proxy, whatever the client sends (the attacker sends
// the victim's address too); behind one proxy, the address that proxy appended last.
const attackerHeaders = (hops: number) => new Headers({ "x-forwarded-for": hops === 0 ? "192.0.2.10" : "192.0.2.10, 198.51.100.66" });
const victimHeaders = (hops: number) => new Headers({ "x-forwarded-for": hops === 0 ? "192.0.2.10" : "198.51.100.77" });

describe.each([0, 1])("with TRUSTED_PROXY_HOPS=%i", (hops) => {
  it("25 wrong passwords for made-up accounts from one client leave another client's correct sign-in working", async () => {
    const attacker = clientAddress(attackerHeaders(hops), hops);
    const victim = clientAddress(victimHeaders(hops), hops);
    const refused = [];
    for (let i = 0; i < 25; i++) {
      refused.push((await authenticate(store, { email: `made-up-${hops}-${i}@lockout.test`, password: "guess", address: attacker })).ok);
    }
    expect(refused.every((ok) => !ok)).toBe(true);
    const r = await authenticate(store, { email: "victim@lockout.test", password: PASSWORD, address: victim });
    expect(r.ok).toBe(true);
  });

  it("25 unknown share tokens from one client leave another client's valid links working", async () => {
    const attacker = clientAddress(attackerHeaders(hops), hops);
    const victim = clientAddress(victimHeaders(hops), hops);
    for (let i = 0; i < 25; i++) {
      const r = await resolveShare(store, newShareToken(), attacker, SECRET, () => undefined);
      expect(["unknown", "throttled"]).toContain(r.kind);
    }
    expect((await resolveShare(store, openToken, victim, SECRET, () => undefined)).kind).toBe("ok");
    const locked = await resolveShare(store, lockedToken, victim, SECRET, () => undefined);
    expect(locked.kind).toBe("locked");
    if (locked.kind !== "locked") return;
    expect(await checkSharePassword(store, locked.link, PASSWORD, victim, SECRET)).toBe("ok");
  });
});

it("behind a proxy, one address's guesses are still throttled (the attacker's own budget)", async () => {
  const attacker = clientAddress(attackerHeaders(1), 1);
  const outcomes = [];
  for (let i = 0; i < 25; i++) outcomes.push((await resolveShare(store, newShareToken(), `${attacker}-own`, SECRET, () => undefined)).kind);
  expect(outcomes.filter((k) => k === "throttled").length).toBeGreaterThan(0);
});
