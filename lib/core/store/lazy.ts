import "server-only";
/**
 * The process's store as a `Store` that opens it on first use: for parts built synchronously at
 * start-up (the report gateway) that talk to PostgreSQL only later, when it may have come up.
 */
import { getStore } from "./index";
import type { Sql, Store } from "./sql";

export function lazyStore(kind: Store["kind"]): Store {
  return {
    kind,
    query: async <T extends object>(sql: string, params?: readonly unknown[]) => (await getStore()).query<T>(sql, params),
    exec: async (sql: string) => (await getStore()).exec(sql),
    transaction: async <R>(fn: (tx: Sql) => Promise<R>) => (await getStore()).transaction(fn),
    close: async () => undefined, // the process's store is closed with the process
  };
}
