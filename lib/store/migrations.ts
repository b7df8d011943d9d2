/**
 * Versioned schema changes, applied in order on first use and recorded in `schema_migrations`.
 * Append new entries (saved reports, share links, …); never edit one that has shipped.
 */
import type { Sql, Store } from "./sql";

export interface Migration {
  version: number;
  name: string;
  up: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "users and login attempts",
    up: `
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL UNIQUE CHECK (email = lower(email) AND email <> ''),
        password_hash text NOT NULL,
        role text NOT NULL CHECK (role IN ('admin', 'analyst', 'viewer')),
        disabled boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_login_at timestamptz,
        -- Sessions that signed in before this moment are void (set on disable and password change).
        sessions_valid_after timestamptz
      );
      -- Failed sign-ins, keyed "account:<email>" or "address:<ip>", for throttling.
      CREATE TABLE login_attempts (
        key text NOT NULL,
        at timestamptz NOT NULL
      );
      CREATE INDEX login_attempts_key_at ON login_attempts (key, at);
    `,
  },
];

// Any constant will do; it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK_ID = 7_286_125_001;

function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration #${i} has version ${m.version}; versions must be 1, 2, 3, …`);
  });
}

/** Applies pending migrations in one transaction; returns the versions it applied. Idempotent. */
export async function migrate(store: Store, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  checkOrder(migrations);
  return store.transaction(async (tx: Sql) => {
    // Serializes processes migrating the same PostgreSQL database at once.
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_ID]);
    await tx.exec(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    const rows = await tx.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version");
    const done = new Set(rows.map((r) => r.version));
    const newest = rows.at(-1)?.version ?? 0;
    if (newest > migrations.length) {
      throw new Error(`the dashboard store is at schema version ${newest}, newer than this code (${migrations.length}); upgrade the dashboard`);
    }
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await tx.exec(m.up);
      await tx.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [m.version, m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}
