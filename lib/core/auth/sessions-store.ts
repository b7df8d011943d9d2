/**
 * Sessions ended by signing out. A JWT session lives in its cookie, so ending it on the server means
 * remembering its id until it would have expired anyway; a copied cookie then stops working.
 */
import type { Sql } from "@/lib/core/store/sql";

export function sessionsRepo(db: Sql) {
  return {
    async revoke(sessionId: string, expiresAt: Date, now = new Date()): Promise<void> {
      await db.query("INSERT INTO revoked_sessions (session_id, expires_at) VALUES ($1, $2) ON CONFLICT (session_id) DO NOTHING", [sessionId, expiresAt]);
      // Ids past their expiry can never be presented again.
      await db.query("DELETE FROM revoked_sessions WHERE expires_at < $1", [now]);
    },
    async isRevoked(sessionId: string): Promise<boolean> {
      const rows = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM revoked_sessions WHERE session_id = $1", [sessionId]);
      return (rows[0]?.n ?? 0) > 0;
    },
  };
}
