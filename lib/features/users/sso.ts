/**
 * Company sign-in's decision, once the identity provider has vouched for the person (next-auth has
 * checked state, PKCE, nonce, the ID token's issuer, audience and signature): which account they sign
 * in as, with which role, or why they are refused.
 *
 * - One account per identity (issuer and subject), found by it on every later sign-in, never by
 *   e-mail alone: a person's identity is stable across company sign-in and passwords, so one human
 *   cannot hold two accounts through them (the two-person rule, lib/routing/approval.ts).
 * - The role and routing permission come from the role claim through OIDC_ROLE_MAP at every sign-in;
 *   a change is made, audited and followed (alert rules paused, routing changes withdrawn) exactly as
 *   an admin's change on the Users page. A person in no mapped group is refused and their sessions
 *   end; they are never given a default role.
 * - A first sign-in creates the account (just in time, audited). A password account with the same
 *   e-mail is taken over only when OIDC_LINK_BY_EMAIL is true and the IdP says the e-mail is verified;
 *   otherwise the sign-in is refused and the password account stays as it was.
 */
import { appendAudit, type AuditActor } from "@/lib/core/audit/log";
import type { SessionUser } from "@/lib/core/auth/roles";
import { grantFor, type SsoIdentity, type SsoRefusal, type SsoSettings } from "@/lib/core/auth/sso-settings";
import { normalizeEmail, UserExistsError, usersRepo, type User } from "@/lib/core/auth/users";
import type { Sql, Store } from "@/lib/core/store/sql";
import type { AfterRightsChange } from "./admin";

export type SsoOutcome =
  | { ok: true; user: SessionUser; created: boolean; linked: boolean }
  | { ok: false; reason: SsoRefusal };

type Settings = Pick<SsoSettings, "roleClaim" | "roleMap" | "linkByEmail">;

const REFUSAL_WORDS: Record<SsoRefusal, string> = {
  no_group: "in no group that OIDC_ROLE_MAP grants a role",
  no_email: "the identity provider sent no e-mail address",
  email_unverified: "the identity provider says the e-mail address is not verified",
  email_taken: "a password account (or another identity's account) has this e-mail and is not linked",
  disabled: "the account is disabled",
};

function describe(role: string, routing: boolean): string {
  return routing ? `${role} with the routing permission` : role;
}

/**
 * Signs `identity` in: the account and its role as of now, or the refusal. Everything it changes
 * (a new account, a link, a role, the refusal itself) is audited in the same transaction.
 */
export async function ssoSignIn(
  store: Store,
  identity: SsoIdentity,
  settings: Settings,
  options: { now?: Date; address?: string | null; afterRightsChange?: AfterRightsChange } = {},
): Promise<SsoOutcome> {
  const now = options.now ?? new Date();
  const address = options.address;
  const email = identity.email ? normalizeEmail(identity.email) : null;
  const grant = grantFor(identity.claims[settings.roleClaim], settings.roleMap);
  try {
    return await store.transaction(async (tx) => {
      const users = usersRepo(tx);
      const refuse = async (reason: SsoRefusal, account: User | null): Promise<SsoOutcome> => {
        // A person the IdP vouched for (never anonymous traffic: next-auth refused that before), so one entry each.
        await appendAudit(tx, {
          action: "sign_in.refused",
          actor: { kind: "anonymous", id: null, email: account?.email ?? email, ...(address !== undefined ? { address } : {}) },
          ...(account ? { subject: { kind: "user", id: account.id, label: account.email } } : {}),
          detail: { method: "sso", refusal: reason, groups: groupsOf(identity.claims[settings.roleClaim]) },
          reason: REFUSAL_WORDS[reason],
        });
        return { ok: false, reason };
      };

      let account: User | null = await users.findByIdentity(identity.issuer, identity.subject);
      let created = false;
      let linked = false;
      if (!account) {
        if (!email) return refuse("no_email", null);
        const byEmail = await users.findByEmail(email);
        if (byEmail) {
          // Only an account without an identity is ever linked, and only when the deployment says so.
          if (!settings.linkByEmail || (await users.identityOf(byEmail.id))) return refuse("email_taken", null);
          if (identity.emailVerified !== true) return refuse("email_unverified", null);
          if (!grant) return refuse("no_group", byEmail);
          if (byEmail.disabled) return refuse("disabled", byEmail);
          await users.linkIdentity(byEmail.id, identity.issuer, identity.subject);
          await appendAudit(tx, {
            action: "user.sso_linked",
            actor: actorOf(byEmail, address),
            subject: { kind: "user", id: byEmail.id, label: byEmail.email },
            detail: { method: "sso", issuer: identity.issuer },
          });
          account = byEmail;
          linked = true;
        } else {
          if (identity.emailVerified === false) return refuse("email_unverified", null);
          if (!grant) return refuse("no_group", null);
          const made = await users.createForIdentity({ email, role: grant.role, routing: grant.routing, issuer: identity.issuer, subject: identity.subject });
          await appendAudit(tx, {
            action: "user.created",
            actor: actorOf(made, address),
            subject: { kind: "user", id: made.id, label: made.email },
            detail: { method: "sso", role: made.role, routing: made.routing, issuer: identity.issuer },
            reason: "Created at the first company sign-in",
          });
          account = made;
          created = true;
        }
      }

      if (account.disabled) return refuse("disabled", account);
      if (!grant) {
        // Removed from every mapped group: the sessions they still hold end now, not when they expire.
        await users.endSessions(account.id, now);
        return refuse("no_group", account);
      }
      if (!created) await applyGrant(tx, account, grant, address, options.afterRightsChange);
      await users.recordLogin(account.id, now);
      await appendAudit(tx, {
        action: "sign_in.succeeded",
        actor: actorOf(account, address),
        subject: { kind: "user", id: account.id, label: account.email },
        detail: { method: "sso" },
      });
      return { ok: true, user: { id: account.id, email: account.email, role: grant.role }, created, linked };
    });
  } catch (e) {
    // Two first sign-ins of the same e-mail at once: the second finds the first's account next time.
    if (e instanceof UserExistsError) return { ok: false, reason: "email_taken" };
    throw e;
  }
}

function actorOf(user: Pick<User, "id" | "email">, address: string | null | undefined): AuditActor {
  return { kind: "user", id: user.id, email: user.email, ...(address !== undefined ? { address } : {}) };
}

function groupsOf(value: unknown): string[] {
  const list = typeof value === "string" ? [value] : Array.isArray(value) ? value.filter((g): g is string => typeof g === "string") : [];
  return list.slice(0, 20);
}

/** The mapped role and routing permission onto the account, audited and followed as an admin's change is. */
async function applyGrant(
  tx: Sql,
  account: User,
  grant: { role: SessionUser["role"]; routing: boolean },
  address: string | null | undefined,
  afterRightsChange: AfterRightsChange | undefined,
): Promise<void> {
  const users = usersRepo(tx);
  const subject = { kind: "user", id: account.id, label: account.email };
  const words: string[] = [];
  if (grant.role !== account.role) {
    await users.setRole(account.id, grant.role);
    await appendAudit(tx, { action: "user.role_changed", actor: actorOf(account, address), subject, detail: { method: "sso", from_role: account.role, role: grant.role } });
    words.push(`role changed from ${account.role} to ${grant.role}`);
  }
  if (grant.routing !== account.routing) {
    await users.setRouting(account.id, grant.routing);
    await appendAudit(tx, {
      action: "user.role_changed",
      actor: actorOf(account, address),
      subject,
      detail: { method: "sso", role: grant.role, from_routing: account.routing, routing: grant.routing },
    });
    words.push(`routing permission ${grant.routing ? "granted" : "withdrawn"}`);
  }
  if (words.length === 0) return;
  const what = `${words.join(", ")} (now ${describe(grant.role, grant.routing)}, from their groups at the identity provider)`;
  await afterRightsChange?.(tx, account.id, { actor: { id: account.id, email: account.email, role: grant.role, ...(address !== undefined ? { address } : {}) }, before: account, what });
}
