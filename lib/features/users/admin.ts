/**
 * User management from the dashboard (admins): the operations of `npm run users`, with the checks a
 * browser needs. A generated password is returned once, to the admin who asked, and stored only as
 * an scrypt hash. An admin cannot change their own role, disable themselves or reset their own
 * password here, so the dashboard can never lose its last admin by a slip. Each change is written to
 * the audit log in its own transaction; `actor.address` is the client's (else the current request's).
 */
import { z } from "zod";
import { generatePassword, hashPassword } from "@/lib/core/auth/password";
import type { SessionUser } from "@/lib/core/auth/authenticate";
import { appendAudit, userActor } from "@/lib/core/audit/log";
import { ROLES } from "@/lib/core/auth/roles";
import { mailsInLastDayByUser } from "@/lib/core/mail/counts";
import { ApiError } from "@/lib/contract/errors";
import type { Sql, Store } from "@/lib/core/store/sql";
import { UserExistsError, usersRepo, type User } from "@/lib/core/auth/users";
import { passwordRefusal, type SsoSettings } from "@/lib/core/auth/sso-settings";

/** What decides whether a password still signs an account in: the deployment's company sign-in settings, null without them. */
export type PasswordSettings = Pick<SsoSettings, "ssoOnly" | "breakGlass"> | null;

export const NewUserInput = z.strictObject({
  email: z.email({ error: "email must be an e-mail address" }).max(320),
  role: z.enum(ROLES),
});
export const UserPatch = z
  .strictObject({
    role: z.enum(ROLES).optional(),
    disabled: z.boolean().optional(),
    /** The routing permission: may change live routing without being an admin. */
    routing: z.boolean({ error: "routing must be true or false" }).optional(),
  })
  .refine((p) => p.role !== undefined || p.disabled !== undefined || p.routing !== undefined, { error: "give role, disabled or routing" });

/** A user as the admin page and its API show it: no hash, dates as ISO strings. */
export interface UserView {
  id: string;
  email: string;
  role: User["role"];
  /** Holds the routing permission (admins may change routing without it). */
  routing: boolean;
  disabled: boolean;
  created_at: string;
  last_login_at: string | null;
  /**
   * How they can sign in under the deployment's settings today: locally (the dashboard's own e-mail
   * and password), through the company's identity provider (whose groups set their role and routing
   * permission again at each sign-in), both (a linked account whose password is still honoured: a
   * break-glass account), or neither yet (a local account whose password SSO-only refuses).
   */
  sign_in: SignIn;
  /** E-mails this user's alert rules and scheduled reports queued in the last 24 hours. */
  mail_last_day: number;
}

export type SignIn = "local" | "company" | "company and local" | "password refused";

/** The same rule sign-in applies (`passwordRefusal`), so the list never promises a password that is refused. */
function signInOf(u: User, sso: PasswordSettings): SignIn {
  const password = u.hasPassword && passwordRefusal(u, sso) === null;
  if (u.company) return password ? "company and local" : "company";
  return password ? "local" : "password refused";
}

export function userView(u: User, sso: PasswordSettings, mailLastDay = 0): UserView {
  return {
    id: u.id,
    email: u.email,
    role: u.role,
    routing: u.routing,
    disabled: u.disabled,
    created_at: u.createdAt.toISOString(),
    last_login_at: u.lastLoginAt?.toISOString() ?? null,
    sign_in: signInOf(u, sso),
    mail_last_day: mailLastDay,
  };
}

export async function listUsers(store: Store, sso: PasswordSettings): Promise<UserView[]> {
  const mail = await mailsInLastDayByUser(store);
  return (await usersRepo(store).list()).map((u) => userView(u, sso, mail.get(u.id) ?? 0));
}

/** The admin acting, with the address they act from when the caller knows it. */
export type ActingUser = SessionUser & { address?: string | null };

export async function createUser(store: Store, actor: ActingUser, input: z.infer<typeof NewUserInput>, sso: PasswordSettings): Promise<{ user: UserView; password: string }> {
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  try {
    const user = await store.transaction(async (tx) => {
      // The admin is shown the password, so the account counts as theirs until someone else sets one (lib/features/routing/approval.ts).
      const created = await usersRepo(tx).create({ email: input.email, role: input.role, passwordHash, setBy: actor.id });
      await appendAudit(tx, { action: "user.created", actor: userActor(actor), subject: { kind: "user", id: created.id, label: created.email }, detail: { role: created.role } });
      return created;
    });
    return { user: userView(user, sso), password };
  } catch (e) {
    if (e instanceof UserExistsError) throw ApiError.badRequest(e.message, [{ path: "email", message: "already in use" }]);
    throw e;
  }
}

async function otherUser(store: Store, actor: SessionUser, id: string, what: string) {
  const target = await usersRepo(store).findById(id);
  if (!target) throw new ApiError(404, "No such user");
  if (target.id === actor.id) throw new ApiError(403, `You cannot ${what} your own account here; another admin can`);
  return target;
}

/** A change to a user's rights or credentials as the features that follow it see it. */
export interface RightsChange {
  /** The admin who made it. */
  actor: ActingUser;
  /** The user as they were before it. */
  before: User;
  /** What changed, in words ("routing permission granted", "password reset", …); empty when nothing did. */
  what: string;
}

/**
 * What follows a change to a user's role, state or password in the same transaction, from the
 * features that act with the user's rights (their alert rules and scheduled reports stopping where
 * they may no longer run them; routing changes they could approve being withdrawn), which depend on
 * users and so are handed in by the caller.
 */
export type AfterRightsChange = (tx: Sql, userId: string, change: RightsChange) => Promise<unknown>;

function changedWords(target: User, patch: z.infer<typeof UserPatch>): string {
  const words: string[] = [];
  if (patch.role !== undefined && patch.role !== target.role) words.push(`role changed from ${target.role} to ${patch.role}`);
  if (patch.routing !== undefined && patch.routing !== target.routing) words.push(`routing permission ${patch.routing ? "granted" : "withdrawn"}`);
  if (patch.disabled === true && !target.disabled) words.push("account disabled");
  if (patch.disabled === false && target.disabled) words.push("account enabled");
  return words.join(", ");
}

/** Role, routing permission and enabled state in one transaction. Disabling ends the user's sessions at once. */
export async function updateUser(
  store: Store,
  actor: ActingUser,
  id: string,
  patch: z.infer<typeof UserPatch>,
  sso: PasswordSettings,
  afterRightsChange?: AfterRightsChange,
): Promise<UserView> {
  const what = patch.role !== undefined ? "change the role of" : patch.routing !== undefined ? "change the routing permission of" : "disable or enable";
  const target = await otherUser(store, actor, id, what);
  return store.transaction(async (tx) => {
    const users = usersRepo(tx);
    const subject = { kind: "user", id: target.id, label: target.email };
    if (patch.role !== undefined && patch.role !== target.role) {
      await users.setRole(id, patch.role);
      await appendAudit(tx, { action: "user.role_changed", actor: userActor(actor), subject, detail: { from_role: target.role, role: patch.role } });
    }
    // A permission is part of what the user may do, so it is recorded as a role change.
    if (patch.routing !== undefined && patch.routing !== target.routing) {
      await users.setRouting(id, patch.routing);
      await appendAudit(tx, {
        action: "user.role_changed",
        actor: userActor(actor),
        subject,
        detail: { role: patch.role ?? target.role, from_routing: target.routing, routing: patch.routing },
      });
    }
    if (patch.disabled === true && !target.disabled) {
      await users.disable(target.email);
      await appendAudit(tx, { action: "user.disabled", actor: userActor(actor), subject });
    }
    if (patch.disabled === false && target.disabled) {
      await users.enable(target.email);
      await appendAudit(tx, { action: "user.enabled", actor: userActor(actor), subject });
    }
    await afterRightsChange?.(tx, id, { actor, before: target, what: changedWords(target, patch) });
    return userView((await users.findById(id))!, sso);
  });
}

/** A new generated password, shown to the admin who asked (who therefore knows it); the user's sessions end. */
export async function resetPassword(store: Store, actor: ActingUser, id: string, sso: PasswordSettings, afterRightsChange?: AfterRightsChange): Promise<{ user: UserView; password: string }> {
  const target = await otherUser(store, actor, id, "reset the password of");
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  await store.transaction(async (tx) => {
    await usersRepo(tx).setPassword(target.email, passwordHash, new Date(), actor.id);
    await appendAudit(tx, { action: "user.password_reset", actor: userActor(actor), subject: { kind: "user", id: target.id, label: target.email } });
    await afterRightsChange?.(tx, id, { actor, before: target, what: "password reset" });
  });
  return { user: userView({ ...target, hasPassword: true }, sso), password };
}
