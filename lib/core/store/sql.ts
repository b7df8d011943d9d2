/**
 * The dashboard store's SQL surface, the same over PGlite and PostgreSQL: `$1`-style bound
 * parameters only (values never go into SQL text), rows as plain objects.
 */
export interface Sql {
  query<T extends object = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Store extends Sql {
  readonly kind: "pglite" | "postgres";
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<R>(fn: (tx: Sql) => Promise<R>): Promise<R>;
  close(): Promise<void>;
  /**
   * PGlite only: calls `fn` on every NOTIFY on `channel`, before the statement (or the COMMIT) that
   * notified resolves for its caller. Every write to a PGlite store is made in this process, so what
   * `fn` counts is exact as soon as any write's caller learns it is done. Absent for PostgreSQL, whose
   * notifications from other instances arrive later than the next request may: nothing that must be
   * exact can be built on them.
   */
  listenInProcess?(channel: string, fn: () => void): Promise<void>;
}

/** True for PostgreSQL's unique_violation (both drivers expose the SQLSTATE as `code`). */
export function isUniqueViolation(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { code?: unknown }).code === "23505";
}

/** A json/jsonb column's value: parsed by the driver (pg), or text (some PGlite paths). */
export function fromJson<T = unknown>(v: unknown): T {
  return (typeof v === "string" ? JSON.parse(v) : v) as T;
}
