/** The dashboard's users. E-mail addresses are stored trimmed and lower-cased, unique. */
import type { Role } from "./roles";
import { isUniqueViolation, type Sql } from "@/lib/core/store/sql";

export interface User {
  id: string;
  email: string;
  role: Role;
  /** May change live routing without being an admin (lib/features/routing/permissions.ts). */
  routing: boolean;
  disabled: boolean;
  createdAt: Date;
  lastLoginAt: Date | null;
  /** When the password, role, routing permission or enabled state last changed (lib/features/routing/approval.ts). */
  standingSince: Date;
  /** The dashboard admin who last set the password (and so knows it); null when the CLI or the user set it. */
  passwordSetBy: string | null;
  /** Signs in through the company's identity provider (an identity is linked). */
  company: boolean;
  /** Has a password that can sign in (accounts made by company sign-in have none until an admin sets one). */
  hasPassword: boolean;
}

/** With the secrets: only for authentication and the session re-check, never for listing. */
export interface UserWithCredentials extends User {
  passwordHash: string;
  sessionsValidAfter: Date | null;
}

interface UserRow {
  id: string;
  email: string;
  role: Role;
  routing: boolean;
  disabled: boolean;
  created_at: Date;
  last_login_at: Date | null;
  standing_since: Date;
  password_set_by: string | null;
  company: boolean;
  has_password: boolean;
  password_hash: string;
  sessions_valid_after: Date | null;
}

/**
 * The password hash of an account made by company sign-in, which has no password: it parses as no
 * hash, so no password ever matches it (lib/core/auth/password.ts verifyPassword).
 */
export const NO_PASSWORD = "!no-password";

// A constant of this module, never input: whether the account can sign in with a password, without reading its hash out.
const PUBLIC_COLUMNS = `id, email, role, routing, disabled, created_at, last_login_at, standing_since, password_set_by,
  oidc_subject IS NOT NULL AS company, password_hash <> '${NO_PASSWORD}' AS has_password`;
const ALL_COLUMNS = `${PUBLIC_COLUMNS}, password_hash, sessions_valid_after`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class UserExistsError extends Error {
  constructor(email: string) {
    super(`a user with e-mail ${email} already exists`);
    this.name = "UserExistsError";
  }
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

function toUser(r: UserRow): User {
  return { id: r.id, email: r.email, role: r.role, routing: r.routing === true, disabled: r.disabled, createdAt: r.created_at, lastLoginAt: r.last_login_at, standingSince: r.standing_since, passwordSetBy: r.password_set_by, company: r.company === true, hasPassword: r.has_password === true };
}

function toUserWithCredentials(r: UserRow): UserWithCredentials {
  return { ...toUser(r), passwordHash: r.password_hash, sessionsValidAfter: r.sessions_valid_after };
}

export function usersRepo(db: Sql) {
  return {
    /** `setBy`: the dashboard admin creating the account, who is shown its password (null: the CLI or the demo seeding). */
    async create(input: { email: string; role: Role; passwordHash: string; setBy?: string | null }): Promise<User> {
      const email = normalizeEmail(input.email);
      try {
        const rows = await db.query<UserRow>(
          `INSERT INTO users (email, role, password_hash, password_set_by) VALUES ($1, $2, $3, $4) RETURNING ${PUBLIC_COLUMNS}`,
          [email, input.role, input.passwordHash, input.setBy ?? null],
        );
        return toUser(rows[0]!);
      } catch (e) {
        if (isUniqueViolation(e)) throw new UserExistsError(email);
        throw e;
      }
    },

    /** The account company sign-in signs this identity in as (lib/features/users/sso.ts). */
    async findByIdentity(issuer: string, subject: string): Promise<UserWithCredentials | null> {
      const rows = await db.query<UserRow>(`SELECT ${ALL_COLUMNS} FROM users WHERE oidc_issuer = $1 AND oidc_subject = $2`, [issuer, subject]);
      return rows[0] ? toUserWithCredentials(rows[0]) : null;
    },

    /** The identity provider's account linked to `id`, or null (a password-only account). */
    async identityOf(id: string): Promise<{ issuer: string; subject: string } | null> {
      if (!UUID.test(id)) return null;
      const rows = await db.query<{ oidc_issuer: string | null; oidc_subject: string | null }>("SELECT oidc_issuer, oidc_subject FROM users WHERE id = $1", [id]);
      const r = rows[0];
      return r?.oidc_issuer && r.oidc_subject ? { issuer: r.oidc_issuer, subject: r.oidc_subject } : null;
    },

    /** An account made at a first company sign-in: no password, found by its identity from then on. */
    async createForIdentity(input: { email: string; role: Role; routing: boolean; issuer: string; subject: string }): Promise<User> {
      const email = normalizeEmail(input.email);
      try {
        const rows = await db.query<UserRow>(
          `INSERT INTO users (email, role, routing, password_hash, oidc_issuer, oidc_subject) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${PUBLIC_COLUMNS}`,
          [email, input.role, input.routing, NO_PASSWORD, input.issuer, input.subject],
        );
        return toUser(rows[0]!);
      } catch (e) {
        if (isUniqueViolation(e)) throw new UserExistsError(email);
        throw e;
      }
    },

    /** Links an account that has no identity yet to one; false when it already has one (or is gone). */
    async linkIdentity(id: string, issuer: string, subject: string): Promise<boolean> {
      const rows = await db.query("UPDATE users SET oidc_issuer = $2, oidc_subject = $3 WHERE id = $1 AND oidc_subject IS NULL RETURNING id", [id, issuer, subject]);
      return rows.length > 0;
    },

    /** Ends every session of the account that began before `now`, without disabling it. */
    async endSessions(id: string, now = new Date()): Promise<void> {
      await db.query("UPDATE users SET sessions_valid_after = $2 WHERE id = $1", [id, now]);
    },

    async findByEmail(email: string): Promise<UserWithCredentials | null> {
      const rows = await db.query<UserRow>(`SELECT ${ALL_COLUMNS} FROM users WHERE email = $1`, [normalizeEmail(email)]);
      return rows[0] ? toUserWithCredentials(rows[0]) : null;
    },

    async findById(id: string): Promise<UserWithCredentials | null> {
      // A malformed id (not a uuid) is simply unknown rather than a SQL error.
      if (!UUID.test(id)) return null;
      const rows = await db.query<UserRow>(`SELECT ${ALL_COLUMNS} FROM users WHERE id = $1`, [id]);
      return rows[0] ? toUserWithCredentials(rows[0]) : null;
    },

    /**
     * The session re-check's one read (kept between requests only while exact:
     * lib/core/auth/session-checks.ts): the user as `findById` has them, and whether the session
     * `sessionId` was signed out (lib/core/auth/sessions-store.ts); null without such a user.
     */
    async findForSession(id: string, sessionId: string): Promise<{ user: UserWithCredentials; sessionRevoked: boolean } | null> {
      if (!UUID.test(id)) return null;
      const rows = await db.query<UserRow & { session_revoked: boolean }>(
        `SELECT ${ALL_COLUMNS}, EXISTS (SELECT 1 FROM revoked_sessions WHERE session_id = $2) AS session_revoked FROM users WHERE id = $1`,
        [id, sessionId],
      );
      return rows[0] ? { user: toUserWithCredentials(rows[0]), sessionRevoked: rows[0].session_revoked === true } : null;
    },

    async list(): Promise<User[]> {
      const rows = await db.query<UserRow>(`SELECT ${PUBLIC_COLUMNS} FROM users ORDER BY email`);
      return rows.map(toUser);
    },

    /** Disables the account and voids its sessions; false when there is no such user. */
    async disable(email: string, now = new Date()): Promise<boolean> {
      const rows = await db.query(
        "UPDATE users SET disabled = true, sessions_valid_after = $2, standing_since = now() WHERE email = $1 RETURNING id",
        [normalizeEmail(email), now],
      );
      return rows.length > 0;
    },

    /** Changes the role; sessions stay, since every request re-reads the role. False when there is no such user. */
    async setRole(id: string, role: Role): Promise<boolean> {
      const rows = await db.query("UPDATE users SET role = $2, standing_since = now() WHERE id = $1 RETURNING id", [id, role]);
      return rows.length > 0;
    },

    /** Grants or withdraws the routing permission; false when there is no such user. */
    async setRouting(id: string, routing: boolean): Promise<boolean> {
      const rows = await db.query("UPDATE users SET routing = $2, standing_since = now() WHERE id = $1 RETURNING id", [id, routing]);
      return rows.length > 0;
    },

    async enable(email: string): Promise<boolean> {
      const rows = await db.query("UPDATE users SET disabled = false, standing_since = now() WHERE email = $1 RETURNING id", [normalizeEmail(email)]);
      return rows.length > 0;
    },

    /**
     * Replaces the password hash and voids existing sessions; false when there is no such user.
     * `setBy`: the dashboard admin who set it and was shown it (null: the CLI or the demo seeding).
     */
    async setPassword(email: string, passwordHash: string, now = new Date(), setBy: string | null = null): Promise<boolean> {
      const rows = await db.query(
        "UPDATE users SET password_hash = $2, sessions_valid_after = $3, password_set_by = $4, standing_since = now() WHERE email = $1 RETURNING id",
        [normalizeEmail(email), passwordHash, now, setBy],
      );
      return rows.length > 0;
    },

    /** Same password, stronger parameters: sessions stay valid. */
    async rehash(id: string, passwordHash: string): Promise<void> {
      await db.query("UPDATE users SET password_hash = $2 WHERE id = $1", [id, passwordHash]);
    },

    async recordLogin(id: string, now = new Date()): Promise<void> {
      await db.query("UPDATE users SET last_login_at = $2 WHERE id = $1", [id, now]);
    },
  };
}

