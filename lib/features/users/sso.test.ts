/**
 * Company sign-in's decision against the real store (PGlite): just-in-time accounts, the group
 * mapping at every sign-in, linking to password accounts only when the deployment allows it and the
 * e-mail is verified, refusals, the audit log, and the two-person rule's view of the person.
 */
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
import { auditRepo } from "@/lib/core/audit/store";
import { openTestPglite } from "@/lib/core/store/testing/pglite";
import type { Store } from "@/lib/core/store/sql";
import { listUsers, type RightsChange } from "./admin";
import { ssoSignIn } from "./sso";

const ISSUER = "https://idp.corp.example";
const roleMap = parseRoleMap(JSON.stringify({ admins: "admin", analysts: "analyst", viewers: "viewer", routers: "routing" }));
const settings = { roleClaim: "groups", roleMap, linkByEmail: false };
const PASSWORD = "a-password-of-the-password-account";

let dir: string;
let store: Store;

function identity(subject: string, email: string | null, groups: unknown, extra: Partial<SsoIdentity> = {}): SsoIdentity {
  return { issuer: ISSUER, subject, email, emailVerified: true, claims: { sub: subject, email, groups }, ...extra };
}

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

  it("refuses a person in no mapped group (or with only the routing permission) without making an account", async () => {
    for (const groups of [[], ["unmapped"], ["routers"], "unmapped", undefined, 42]) {
      expect(await ssoSignIn(store, identity("s-none", "none@corp.example", groups), settings)).toEqual({ ok: false, reason: "no_group" });
    }
    expect(await usersRepo(store).findByEmail("none@corp.example")).toBeNull();
    const refused = await entries("sign_in.refused", "none@corp.example");
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toMatchObject({ actorKind: "anonymous", detail: { method: "sso", refusal: "no_group" } });
  });

  it("ends the sessions of a known person who is no longer in any mapped group, and lets them back when they are", async () => {
    const a = await ssoSignIn(store, identity("s-gone", "gone@corp.example", ["analysts"]), settings);
    if (!a.ok) throw new Error("expected a sign-in");
    const signedInAt = Date.now() - 1000;
    expect(await revalidateSession(store, a.user.id, signedInAt)).not.toBeNull();
    expect(await ssoSignIn(store, identity("s-gone", "gone@corp.example", []), settings)).toEqual({ ok: false, reason: "no_group" });
    expect(await revalidateSession(store, a.user.id, signedInAt)).toBeNull();
    const back = await ssoSignIn(store, identity("s-gone", "gone@corp.example", ["viewers"]), settings);
    expect(back.ok && back.user).toEqual({ id: a.user.id, email: "gone@corp.example", role: "viewer" });
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
    expect((await authenticate(store, { email: "pw@corp.example", password: PASSWORD })).ok).toBe(true);
  });

  it("links a password account when allowed: one account, one person, the password kept, the link audited", async () => {
    const linking = { ...settings, linkByEmail: true };
    const before = (await usersRepo(store).findByEmail("linkme@corp.example"))!;
    const out = await ssoSignIn(store, identity("s-link", "linkme@corp.example", ["analysts"]), linking);
    expect(out).toEqual({ ok: true, user: { id: before.id, email: "linkme@corp.example", role: "analyst" }, created: false, linked: true });
    expect(await usersRepo(store).identityOf(before.id)).toEqual({ issuer: ISSUER, subject: "s-link" });
    expect(await entries("user.sso_linked", "linkme@corp.example")).toHaveLength(1);
    // The same person by password is the same account: the two-person rule sees one person.
    const byPassword = await authenticate(store, { email: "linkme@corp.example", password: PASSWORD });
    expect(byPassword.ok && byPassword.user.id).toBe(before.id);
    const account = (await usersRepo(store).findById(before.id))!;
    expect(approvalRefusal({ proposed_at: new Date(Date.now() + 60_000).toISOString(), proposed_by: { id: before.id, email: account.email } }, account, account)).toMatch(/You proposed this change/);
    // A second identity cannot take the now linked account, even with linking on.
    expect(await ssoSignIn(store, identity("s-link-2", "linkme@corp.example", ["admins"]), linking)).toEqual({ ok: false, reason: "email_taken" });
  });

  it("refuses a disabled account, linked or not", async () => {
    expect(await ssoSignIn(store, identity("s-off", "off@corp.example", ["viewers"]), { ...settings, linkByEmail: true })).toEqual({ ok: false, reason: "disabled" });
    const a = await ssoSignIn(store, identity("s-off2", "off2@corp.example", ["viewers"]), settings);
    expect(a.ok).toBe(true);
    await usersRepo(store).disable("off2@corp.example");
    expect(await ssoSignIn(store, identity("s-off2", "off2@corp.example", ["admins"]), settings)).toEqual({ ok: false, reason: "disabled" });
    expect((await usersRepo(store).findByEmail("off2@corp.example"))!.role).toBe("viewer");
  });

  it("tells the admin's user list how each account signs in: locally, by company sign-in, or both once linked", async () => {
    const signIn = new Map((await listUsers(store)).map((u) => [u.email, u.sign_in]));
    expect(signIn.get("pw@corp.example")).toBe("local");
    expect(signIn.get("new@corp.example")).toBe("company");
    expect(signIn.get("linkme@corp.example")).toBe("company and local");
  });
});
