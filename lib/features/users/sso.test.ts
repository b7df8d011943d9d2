/**
 * Company sign-in's decision against the real store (PGlite, and PostgreSQL where one is installed):
 * just-in-time accounts, the group mapping at every sign-in, linking to password accounts only when
 * the deployment allows it and the e-mail is verified (and only once when two sign-ins race for it),
 * refusals counted in the failed sign-ins' tally, what an account in no mapped group keeps, the
 * password of a linked account, and the two-person rule's view of the person.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticate, revalidateSession } from "@/lib/core/auth/authenticate";
import { hashPassword } from "@/lib/core/auth/password";
import type { SsoIdentity } from "@/lib/core/auth/sso-settings";
import { parseRoleMap } from "@/lib/core/env/sso";
import { usersRepo } from "@/lib/core/auth/users";
import { approvalRefusal } from "@/lib/features/routing/approval";
import { alertsRepo } from "@/lib/features/notifications/alerts-store";
import { pauseStopped } from "@/lib/features/notifications/rights";
import { auditRepo } from "@/lib/core/audit/store";
import { openStore } from "@/lib/core/store/open";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import { postgresBinDir, startTestPostgres, type TestPostgres } from "@/lib/core/store/testing/postgres";
import type { Sql, Store } from "@/lib/core/store/sql";
import { listUsers, type RightsChange } from "./admin";
import { ssoSignIn } from "./sso";

const ISSUER = "https://idp.corp.example";
const roleMap = parseRoleMap(JSON.stringify({ admins: "admin", analysts: "analyst", viewers: "viewer", routers: "routing" }));
const settings = { roleClaim: "groups", roleMap, linkByEmail: false };
const PASSWORD = "a-password-of-the-password-account";
/** Company sign-in configured, passwords not turned off (OIDC_SSO_ONLY=false), no break-glass account. */
const CONFIGURED = { ssoOnly: false, breakGlass: [] as string[] };

let dir: string;
let store: Store;

function identity(subject: string, email: string | null, groups: unknown, extra: Partial<SsoIdentity> = {}): SsoIdentity {
  return { issuer: ISSUER, subject, email, emailVerified: true, claims: { sub: subject, email, groups }, ...extra };
}

const auditRows = async () => Number((await store.query<{ n: string | number }>("SELECT count(*) AS n FROM audit_log"))[0]?.n ?? 0);

async function entries(action: string, label?: string) {
  const page = await auditRepo(store).list({ actions: [action] }, { limit: 200 });
  return page.entries.filter((e) => label === undefined || e.subjectLabel === label || e.actorEmail === label);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dashboard-sso-"));
  store = await openTestPglite(dir, "sso test");
  const hash = await hashPassword(PASSWORD);
  await usersRepo(store).create({ email: "pw@corp.example", role: "viewer", passwordHash: hash });
  await usersRepo(store).create({ email: "linkme@corp.example", role: "viewer", passwordHash: hash });
  await usersRepo(store).create({ email: "off@corp.example", role: "viewer", passwordHash: hash });
  await usersRepo(store).disable("off@corp.example");
});

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("ssoSignIn", () => {
  it("creates the account at the first sign-in, with the mapped role, no password and an audit entry", async () => {
    const out = await ssoSignIn(store, identity("s-new", "New@Corp.example", ["analysts", "routers", "unmapped"]), settings);
    expect(out).toEqual({ ok: true, user: { id: expect.any(String), email: "new@corp.example", role: "analyst" }, created: true, linked: false });
    const account = await usersRepo(store).findByEmail("new@corp.example");
    expect(account).toMatchObject({ role: "analyst", routing: true, passwordSetBy: null });
    expect(await usersRepo(store).identityOf(account!.id)).toEqual({ issuer: ISSUER, subject: "s-new" });
    // No password signs it in, not even an empty one or the placeholder itself.
    for (const password of [PASSWORD, "!no-password", "x"]) expect((await authenticate(store, { email: "new@corp.example", password })).ok).toBe(false);
    const [created] = await entries("user.created", "new@corp.example");
    expect(created).toMatchObject({ actorId: account!.id, detail: { method: "sso", role: "analyst", routing: true, issuer: ISSUER } });
    expect(await entries("sign_in.succeeded", "new@corp.example")).toHaveLength(1);
  });

  it("finds the account by issuer and subject afterwards, whatever e-mail the IdP now sends", async () => {
    const first = await ssoSignIn(store, identity("s-stable", "stable@corp.example", ["viewers"]), settings);
    const renamed = await ssoSignIn(store, identity("s-stable", "renamed@corp.example", ["viewers"]), settings);
    expect(first.ok && renamed.ok && renamed.user.id === first.user.id).toBe(true);
    // Another subject with that e-mail is someone else, and the account is taken.
    expect(await ssoSignIn(store, identity("s-other", "stable@corp.example", ["viewers"]), settings)).toEqual({ ok: false, reason: "email_taken" });
  });

  it("applies the mapping at every sign-in, audits each change and hands it on as an admin's change is", async () => {
    const seen: { id: string; change: RightsChange }[] = [];
    const after = async (_tx: unknown, id: string, change: RightsChange) => void seen.push({ id, change });
    const a = await ssoSignIn(store, identity("s-move", "move@corp.example", ["viewers"]), settings, { afterRightsChange: after });
    expect(a.ok && a.user.role).toBe("viewer");
    expect(seen).toHaveLength(0);
    const before = (await usersRepo(store).findByEmail("move@corp.example"))!;

    const b = await ssoSignIn(store, identity("s-move", "move@corp.example", ["admins", "routers"]), settings, { afterRightsChange: after });
    expect(b.ok && b.user.role).toBe("admin");
    const now = (await usersRepo(store).findByEmail("move@corp.example"))!;
    expect(now).toMatchObject({ role: "admin", routing: true });
    expect(now.standingSince.getTime()).toBeGreaterThan(before.standingSince.getTime());
    expect(seen).toHaveLength(1);
    expect(seen[0]!.id).toBe(now.id);
    expect(seen[0]!.change.before).toMatchObject({ role: "viewer", routing: false });
    expect(seen[0]!.change.what).toMatch(/^role changed from viewer to admin, routing permission granted/);
    const changes = await entries("user.role_changed", "move@corp.example");
    expect(changes.map((e) => e.detail)).toEqual(
      expect.arrayContaining([
        { method: "sso", from_role: "viewer", role: "admin" },
        { method: "sso", role: "admin", from_routing: false, routing: true },
      ]),
    );

    // The same groups again: nothing changes, nothing is handed on.
    await ssoSignIn(store, identity("s-move", "move@corp.example", ["admins", "routers"]), settings, { afterRightsChange: after });
    expect(seen).toHaveLength(1);
  });

  it("refuses a person in no mapped group (or with only the routing permission) without making an account, and counts every refusal in one tally", async () => {
    const address = "192.0.2.40";
    await auditRepo(store).list();
    const before = await auditRows();
    for (const groups of [[], ["unmapped"], ["routers"], "unmapped", undefined, 42]) {
      expect(await ssoSignIn(store, identity("s-none", "none@corp.example", groups), settings, { address })).toEqual({ ok: false, reason: "no_group" });
    }
    // The same person trying again and again: counted, not an entry each.
    for (let i = 0; i < 30; i++) await ssoSignIn(store, identity("s-none", "none@corp.example", []), settings, { address });
    expect(await usersRepo(store).findByEmail("none@corp.example")).toBeNull();
    expect(await auditRows()).toBe(before);
    const tallied = (await entries("sign_in.failed")).filter((e) => e.actorAddress === address);
    expect(await auditRows()).toBe(before + 1);
    expect(tallied).toHaveLength(1);
    expect(tallied[0]).toMatchObject({ actorKind: "anonymous", actorEmail: "none@corp.example", detail: { failures: 36, sso_no_group: 36, wrong_password: 0, emails: ["none@corp.example"] } });
    expect(tallied[0]!.detail).not.toHaveProperty("sso_email_taken");
  });

  it("ends the sessions of a known person who is no longer in any mapped group and takes their role's reach away as an admin's demotion does, and lets them back when they are", async () => {
    const seen: { id: string; change: RightsChange }[] = [];
    // The path the auth route hands in, as far as this store has it: their alert rules pause.
    const after = async (tx: Sql, id: string, change: RightsChange) => {
      seen.push({ id, change });
      await pauseStopped(tx, id);
    };
    const a = await ssoSignIn(store, identity("s-gone", "gone@corp.example", ["analysts", "routers"]), settings, { afterRightsChange: after });
    if (!a.ok) throw new Error("expected a sign-in");
    const rule = await alertsRepo(store).create({ ownerId: a.user.id, name: "Gone's rule", definition: {}, schedule: { every: "hour" }, recipients: { users: [], emails: [] }, cooldownMinutes: 60, paused: false });
    const signedInAt = Date.now() - 1000;
    expect(await revalidateSession(store, a.user.id, signedInAt)).not.toBeNull();

    expect(await ssoSignIn(store, identity("s-gone", "gone@corp.example", []), settings, { afterRightsChange: after })).toEqual({ ok: false, reason: "no_group" });
    expect(await revalidateSession(store, a.user.id, signedInAt)).toBeNull();
    expect(await usersRepo(store).findById(a.user.id)).toMatchObject({ role: "viewer", routing: false, disabled: false });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.id).toBe(a.user.id);
    expect(seen[0]!.change.before).toMatchObject({ role: "analyst", routing: true });
    expect(seen[0]!.change.what).toBe("role changed from analyst to viewer, routing permission withdrawn (now viewer, in no group at the identity provider that OIDC_ROLE_MAP grants a role)");
    expect(await alertsRepo(store).get(rule.id)).toMatchObject({ paused: true, pausedReason: "owner_role" });
    expect((await entries("user.role_changed", "gone@corp.example")).map((e) => e.detail)).toEqual(
      expect.arrayContaining([
        { method: "sso", from_role: "analyst", role: "viewer", refusal: "no_group" },
        { method: "sso", role: "viewer", from_routing: true, routing: false, refusal: "no_group" },
      ]),
    );
    // Refused again: nothing is left to take, nothing is handed on.
    await ssoSignIn(store, identity("s-gone", "gone@corp.example", ["unmapped"]), settings, { afterRightsChange: after });
    expect(seen).toHaveLength(1);

    const back = await ssoSignIn(store, identity("s-gone", "gone@corp.example", ["analysts"]), settings, { afterRightsChange: after });
    expect(back.ok && back.user).toEqual({ id: a.user.id, email: "gone@corp.example", role: "analyst" });
  });

  it("leaves a break-glass account its role when it is in no mapped group; its sessions still end", async () => {
    const a = await ssoSignIn(store, identity("s-root", "root@corp.example", ["admins"]), settings);
    if (!a.ok) throw new Error("expected a sign-in");
    const signedInAt = Date.now() - 1000;
    const glass = { ...settings, breakGlass: ["root@corp.example"] };
    expect(await ssoSignIn(store, identity("s-root", "root@corp.example", []), glass)).toEqual({ ok: false, reason: "no_group" });
    expect(await usersRepo(store).findById(a.user.id)).toMatchObject({ role: "admin" });
    expect(await revalidateSession(store, a.user.id, signedInAt)).toBeNull();
    // Off the list, the same refusal takes the role away.
    await ssoSignIn(store, identity("s-root", "root@corp.example", []), settings);
    expect(await usersRepo(store).findById(a.user.id)).toMatchObject({ role: "viewer" });
  });

  it("refuses without an e-mail, and a first sign-in whose e-mail the IdP says is unverified", async () => {
    expect(await ssoSignIn(store, identity("s-mail", null, ["viewers"]), settings)).toEqual({ ok: false, reason: "no_email" });
    expect(await ssoSignIn(store, identity("s-unv", "unv@corp.example", ["viewers"], { emailVerified: false }), settings)).toEqual({ ok: false, reason: "email_unverified" });
    // An IdP that does not say (no email_verified claim) may create an account: it is keyed by the subject, not the e-mail.
    expect((await ssoSignIn(store, identity("s-quiet", "quiet@corp.example", ["viewers"], { emailVerified: null }), settings)).ok).toBe(true);
  });

  it("never takes over a password account with the same e-mail unless OIDC_LINK_BY_EMAIL, and then only with a verified e-mail", async () => {
    expect(await ssoSignIn(store, identity("s-pw", "pw@corp.example", ["admins"]), settings)).toEqual({ ok: false, reason: "email_taken" });
    const linking = { ...settings, linkByEmail: true };
    expect(await ssoSignIn(store, identity("s-pw", "pw@corp.example", ["admins"], { emailVerified: null }), linking)).toEqual({ ok: false, reason: "email_unverified" });
    expect(await ssoSignIn(store, identity("s-pw", "pw@corp.example", ["admins"], { emailVerified: false }), linking)).toEqual({ ok: false, reason: "email_unverified" });
    const untouched = (await usersRepo(store).findByEmail("pw@corp.example"))!;
    expect(untouched.role).toBe("viewer");
    expect(await usersRepo(store).identityOf(untouched.id)).toBeNull();
    // A password account that is not linked keeps signing in with its password.
    expect((await authenticate(store, { email: "pw@corp.example", password: PASSWORD })).ok).toBe(true);
    expect((await authenticate(store, { email: "pw@corp.example", password: PASSWORD }, { sso: CONFIGURED })).ok).toBe(true);
  });

  it("links a password account when allowed: one account, one person, signing in through the IdP only (but a break-glass one), the link audited", async () => {
    const linking = { ...settings, linkByEmail: true };
    const before = (await usersRepo(store).findByEmail("linkme@corp.example"))!;
    const out = await ssoSignIn(store, identity("s-link", "linkme@corp.example", ["analysts"]), linking);
    expect(out).toEqual({ ok: true, user: { id: before.id, email: "linkme@corp.example", role: "analyst" }, created: false, linked: true });
    expect(await usersRepo(store).identityOf(before.id)).toEqual({ issuer: ISSUER, subject: "s-link" });
    expect(await entries("user.sso_linked", "linkme@corp.example")).toHaveLength(1);
    // Linked, it signs in only through the IdP, so removal there removes access: its password, right
    // or wrong, gets the wrong password's answer, and the audit log counts why.
    const address = "192.0.2.41";
    expect(await authenticate(store, { email: "linkme@corp.example", password: PASSWORD, address }, { sso: CONFIGURED })).toEqual({ ok: false, reason: "invalid" });
    expect(await authenticate(store, { email: "linkme@corp.example", password: "not-the-password", address }, { sso: CONFIGURED })).toEqual({ ok: false, reason: "invalid" });
    const counted = (await entries("sign_in.failed")).find((e) => e.actorAddress === address);
    expect(counted?.detail).toMatchObject({ failures: 2, company_account: 1, wrong_password: 1, emails: ["linkme@corp.example"] });
    // A break-glass account may still use its password, and it is the same account either way:
    // the two-person rule sees one person.
    const byPassword = await authenticate(store, { email: "linkme@corp.example", password: PASSWORD }, { sso: { ...CONFIGURED, breakGlass: ["linkme@corp.example"] } });
    expect(byPassword.ok && byPassword.user.id).toBe(before.id);
    const account = (await usersRepo(store).findById(before.id))!;
    expect(approvalRefusal({ proposed_at: new Date(Date.now() + 60_000).toISOString(), proposed_by: { id: before.id, email: account.email } }, account, account)).toMatch(/You proposed this change/);
    // A second identity cannot take the now linked account, even with linking on.
    expect(await ssoSignIn(store, identity("s-link-2", "linkme@corp.example", ["admins"]), linking)).toEqual({ ok: false, reason: "email_taken" });
  });

  it("of two first sign-ins at once with the same verified e-mail, one links the password account and the other is refused", async () => {
    await usersRepo(store).create({ email: "race@corp.example", role: "viewer", passwordHash: await hashPassword(PASSWORD) });
    await raceToLink(store, "race@corp.example");
  });

  it("refuses a disabled account, linked or not", async () => {
    expect(await ssoSignIn(store, identity("s-off", "off@corp.example", ["viewers"]), { ...settings, linkByEmail: true })).toEqual({ ok: false, reason: "disabled" });
    const a = await ssoSignIn(store, identity("s-off2", "off2@corp.example", ["viewers"]), settings);
    expect(a.ok).toBe(true);
    await usersRepo(store).disable("off2@corp.example");
    expect(await ssoSignIn(store, identity("s-off2", "off2@corp.example", ["admins"]), settings)).toEqual({ ok: false, reason: "disabled" });
    expect((await usersRepo(store).findByEmail("off2@corp.example"))!.role).toBe("viewer");
  });

  it("tells the admin's user list how each account can sign in under the settings, by the rule sign-in applies", async () => {
    const signIn = async (sso: Parameters<typeof listUsers>[1]) => new Map((await listUsers(store, sso)).map((u) => [u.email, u.sign_in]));
    // Company sign-in configured: a linked account's password is refused, so it signs in by company sign-in only.
    const configured = await signIn(CONFIGURED);
    expect(configured.get("pw@corp.example")).toBe("local");
    expect(configured.get("new@corp.example")).toBe("company");
    expect(configured.get("linkme@corp.example")).toBe("company");
    // A break-glass account keeps its password beside company sign-in.
    expect((await signIn({ ...CONFIGURED, breakGlass: ["linkme@corp.example"] })).get("linkme@corp.example")).toBe("company and local");
    // SSO only: a local account's password is refused too, unless it is break-glass.
    const ssoOnly = await signIn({ ssoOnly: true, breakGlass: ["linkme@corp.example"] });
    expect(ssoOnly.get("pw@corp.example")).toBe("password refused");
    expect(ssoOnly.get("linkme@corp.example")).toBe("company and local");
    // Without company sign-in every password counts.
    expect((await signIn(null)).get("linkme@corp.example")).toBe("company and local");
  });
});

/** Two different subjects' first sign-ins at once, both with `email`'s password account to link. */
async function raceToLink(db: Store, email: string, meanwhile?: () => Promise<void>) {
  const linking = { ...settings, linkByEmail: true };
  const subjects = [`race-1-${email}`, `race-2-${email}`];
  const both = Promise.all(subjects.map((s) => ssoSignIn(db, identity(s, email, ["analysts"]), linking)));
  await meanwhile?.();
  const outs = await both;
  const account = (await usersRepo(db).findByEmail(email))!;
  const winner = outs.findIndex((o) => o.ok);
  expect(outs[winner]).toEqual({ ok: true, user: { id: account.id, email, role: "analyst" }, created: false, linked: true });
  expect(outs[1 - winner]).toEqual({ ok: false, reason: "email_taken" });
  expect(await usersRepo(db).identityOf(account.id)).toEqual({ issuer: ISSUER, subject: subjects[winner] });
}

const external = process.env.TEST_DATABASE_URL;

describe.runIf(external !== undefined || postgresBinDir() !== null)("on PostgreSQL", () => {
  let server: TestPostgres | null = null;
  let pg: Store;
  beforeAll(async () => {
    let url = external;
    if (!url) {
      server = await startTestPostgres();
      url = server.url;
    }
    pg = await openStore({ kind: "postgres", url }, { owner: "sso test" });
  });
  afterAll(async () => {
    await pg?.close();
    await server?.stop();
  });

  it("of two first sign-ins that both read the password account unlinked, the second to link is refused, not signed in as the first's account", async () => {
    const email = `race-${randomUUID()}@corp.example`;
    await usersRepo(pg).create({ email, role: "viewer", passwordHash: await hashPassword(PASSWORD) });
    // The account's row is held, so both sign-ins read it unlinked and then wait at the link, both.
    let locked!: () => void;
    let release!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const released = new Promise<void>((r) => (release = r));
    const holder = pg.transaction(async (tx) => {
      await tx.query("SELECT id FROM users WHERE email = $1 FOR UPDATE", [email]);
      locked();
      await released;
    });
    await isLocked;
    await raceToLink(pg, email, async () => {
      const waiting = async () => Number((await pg.query<{ n: string | number }>("SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"))[0]?.n ?? 0);
      while ((await waiting()) < 2) await new Promise((r) => setTimeout(r, 20));
      release();
      await holder;
    });
  });
});
