/**
 * Opens the dashboard store: PGlite in a directory this process locks, or a PostgreSQL pool; then
 * applies pending migrations. Callers in the Next.js server go through `getStore()` (one per
 * process); tools (`npm run users`, `npm start`) open, work and close.
 */
import type { Pool } from "pg";
import { acquireDirLock } from "./lock";
import { migrate } from "./migrations";
import type { StoreConfig } from "./config";
import type { Sql, Store } from "./sql";

export interface OpenOptions {
  /** Named in the lock file and in the message another process gets, e.g. "dashboard". */
  owner: string;
  /** Skip migrations (tests of the migrator). */
  migrate?: boolean;
}

interface PgliteLike {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(sql: string): Promise<unknown>;
}

function wrapPglite(db: PgliteLike): Sql {
  return {
    async query<T extends object>(sql: string, params: readonly unknown[] = []) {
      return (await db.query<T>(sql, [...params])).rows;
    },
    async exec(sql: string) {
      await db.exec(sql);
    },
  };
}

async function openPglite(dir: string, owner: string): Promise<Store> {
  const release = acquireDirLock(dir, owner);
  try {
    const { PGlite } = await import("@electric-sql/pglite");
    const db = await PGlite.create(dir);
    const sql = wrapPglite(db);
    return {
      kind: "pglite",
      ...sql,
      transaction: (fn) => db.transaction((tx) => fn(wrapPglite(tx))),
      // PGlite runs the listeners while it reads the notifying statement's results (queued as
      // microtasks), so they have run before that statement's caller resumes.
      async listenInProcess(channel: string, fn: () => void) {
        await db.listen(channel, () => fn());
      },
      async close() {
        try {
          await db.close();
        } finally {
          release();
        }
      },
    };
  } catch (e) {
    release();
    throw e;
  }
}

async function openPostgres(url: string): Promise<Store> {
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: url, max: 10, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on("error", (e) => console.error(JSON.stringify({ level: "error", msg: "dashboard store connection lost", error: e.message })));
  const wrap = (q: Pick<Pool, "query">): Sql => ({
    async query<T extends object>(sql: string, params: readonly unknown[] = []) {
      return (await q.query(sql, [...params])).rows as T[];
    },
    async exec(sql: string) {
      await q.query(sql);
    },
  });
  return {
    kind: "postgres",
    ...wrap(pool),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const out = await fn(wrap(client));
        await client.query("COMMIT");
        return out;
      } catch (e) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw e;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

export async function openStore(config: StoreConfig, options: OpenOptions): Promise<Store> {
  const store = config.kind === "pglite" ? await openPglite(config.dir, options.owner) : await openPostgres(config.url);
  if (options.migrate !== false) {
    try {
      await migrate(store);
    } catch (e) {
      await store.close().catch(() => undefined);
      throw e;
    }
  }
  return store;
}
