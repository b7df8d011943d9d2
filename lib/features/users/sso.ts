/**
 * Company sign-in's decision, once the identity provider has vouched for the person (next-auth has
 * checked state, PKCE, nonce, the ID token's issuer, audience and signature): which account they sign
 * in as, with which role, or why they are refused.
 *
 * - One account per identity (issuer and subject), found by it on every later sign-in, never by
 *   e-mail alone: a person's identity is stable across company sign-in and passwords, so one human
 *   cannot hold two accounts through them (the two-person rule, lib/features/routing/approval.ts).
 * - The role and routing permission come from the role claim through OIDC_ROLE_MAP at every sign-in;
 *   a change is made, audited and followed (alert rules paused, routing changes withdrawn) exactly as
 *   an admin's change on the Users page. A person in no mapped group is refused; they are never given
 *   a default role. If they have an account, its sessions end and it loses its role's reach: it
 *   becomes a viewer without the routing permission, through that same path, so nothing runs or
 *   waits for approval with rights the company took away (their alert rules and scheduled reports
 *   pause, routing changes they proposed or could approve are withdrawn). It is not disabled: their
 *   saved reports and dashboards stay for their colleagues, and when the IdP puts them back in a
 *   group their next sign-in gives them that group's role again, as it would anyone's (a disable is
 *   an admin's decision, which no group at the IdP undoes). A break-glass account keeps its role: it
 *   exists for when the IdP cannot be trusted to say who is who. Its password cannot sign it in
 *   anyway unless it is break-glass (lib/core/auth/sso-settings.ts `passwordRefusal`).
 * - A first sign-in creates the account (just in time, audited). A password account with the same
 *   e-mail is taken over only when OIDC_LINK_BY_EMAIL is true and the IdP says the e-mail is verified;
 *   otherwise the sign-in is refused and the password account stays as it was. Of two first
 *   sign-ins at once with the same e-mail, one links or creates the account and the other is refused.
 * - Refusals are counted in the failed sign-ins' tally (lib/core/audit/store.ts), each reason apart,
 *   not an entry each: one person in no group may try as often as they like, and the log stays bounded.
 */
import { appendAudit, type AuditActor } from "@/lib/core/audit/log";
import { auditRepo, type AuditDetailValue, type SignInFailure } from "@/lib/core/audit/store";
import { LOGIN_THROTTLE } from "@/lib/core/auth/authenticate";
import type { SessionUser } from "@/lib/core/auth/roles";
import { grantFor, type SsoIdentity, type SsoRefusal, type SsoSettings } from "@/lib/core/auth/sso-settings";
import { normalizeEmail, UserExistsError, usersRepo, type User } from "@/lib/core/auth/users";
import type { Sql, Store } from "@/lib/core/store/sql";
import type { AfterRightsChange } from "./admin";

export type SsoOutcome =
  | { ok: true; user: SessionUser; created: boolean; linked: boolean }
  | { ok: false; reason: SsoRefusal };

type Settings = Pick<SsoSettings, "roleClaim" | "roleMap" | "linkByEmail"> & Partial<Pick<SsoSettings, "breakGlass">>;

/** Each refusal's count in the failed sign-ins' tally. */
const TALLIED_AS: Record<SsoRefusal, SignInFailure> = {
  no_group: "sso_no_group",
  no_email: "sso_no_email",
  email_unverified: "sso_email_unverified",
  email_taken: "sso_email_taken",
  disabled: "sso_disabled",
};

/** What an account in no mapped group keeps: the least role, no permission. */
const NO_REACH = { role: "viewer", routing: false } as const;

function describe(role: string, routing: boolean): string {
  return routing ? `${role} with the routing permission` : role;
}

/**
 * Signs `identity` in: the account and its role as of now, or the refusal. Everything it changes
 * (a new account, a link, a role) is audited, and a refusal counted, in the same transaction.
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
  const tally = (db: Sql, reason: SsoRefusal, who: string | null) =>
    auditRepo(db).countFailedSignIn({ address: address ?? null, email: who, why: TALLIED_AS[reason], now, windowSeconds: LOGIN_THROTTLE.windowSeconds });
  try {
    return await store.transaction(async (tx) => {
      const users = usersRepo(tx);
      // Counted with whatever the refusal changed, in its transaction.
      const refuse = async (reason: SsoRefusal, account: User | null): Promise<SsoOutcome> => {
        await tally(tx, reason, account?.email ?? email);
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
          // Another identity's first sign-in may have linked it since it was read: that one has it.
          if (!(await users.linkIdentity(byEmail.id, identity.issuer, identity.subject))) return refuse("email_taken", null);
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
        // Removed from every mapped group: the sessions they still hold end now, not when they
        // expire, and what acts with their rights stops (see the top of this file).
        await users.endSessions(account.id, now);
        if (!settings.breakGlass?.includes(account.email)) await applyGrant(tx, account, NO_REACH, address, options.afterRightsChange, "no_group");
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
    // Two first sign-ins of the same e-mail at once: the second's transaction is gone, its refusal is counted on its own.
    if (e instanceof UserExistsError) {
      await tally(store, "email_taken", email);
      return { ok: false, reason: "email_taken" };
    }
    throw e;
  }
}

function actorOf(user: Pick<User, "id" | "email">, address: string | null | undefined): AuditActor {
  return { kind: "user", id: user.id, email: user.email, ...(address !== undefined ? { address } : {}) };
}

/**
 * The mapped role and routing permission onto the account, audited and followed as an admin's change
 * is; with `refusal`, what an account keeps when its sign-in is refused for being in no mapped group.
 */
async function applyGrant(
  tx: Sql,
  account: User,
  grant: { role: SessionUser["role"]; routing: boolean },
  address: string | null | undefined,
  afterRightsChange: AfterRightsChange | undefined,
  refusal?: "no_group",
): Promise<void> {
  const users = usersRepo(tx);
  const subject = { kind: "user", id: account.id, label: account.email };
  const why: Record<string, AuditDetailValue> = refusal ? { refusal } : {};
  const words: string[] = [];
  if (grant.role !== account.role) {
    await users.setRole(account.id, grant.role);
    await appendAudit(tx, { action: "user.role_changed", actor: actorOf(account, address), subject, detail: { method: "sso", from_role: account.role, role: grant.role, ...why } });
    words.push(`role changed from ${account.role} to ${grant.role}`);
  }
  if (grant.routing !== account.routing) {
    await users.setRouting(account.id, grant.routing);
    await appendAudit(tx, {
      action: "user.role_changed",
      actor: actorOf(account, address),
      subject,
      detail: { method: "sso", role: grant.role, from_routing: account.routing, routing: grant.routing, ...why },
    });
    words.push(`routing permission ${grant.routing ? "granted" : "withdrawn"}`);
  }
  if (words.length === 0) return;
  const source = refusal ? "in no group at the identity provider that OIDC_ROLE_MAP grants a role" : "from their groups at the identity provider";
  const what = `${words.join(", ")} (now ${describe(grant.role, grant.routing)}, ${source})`;
  await afterRightsChange?.(tx, account.id, { actor: { id: account.id, email: account.email, role: grant.role, ...(address !== undefined ? { address } : {}) }, before: account, what });
}
