/** The in-app inbox: what alerts and subscriptions told each user. */
import type { Sql } from "@/lib/core/store/sql";
import type { InboxMessage } from "./model";

interface Row {
  id: string | number;
  created_at: Date;
  read_at: Date | null;
  title: string;
  body: string;
  link: string | null;
  source_kind: string;
}

const toMessage = (r: Row): InboxMessage => ({
  id: Number(r.id),
  createdAt: new Date(r.created_at).toISOString(),
  readAt: r.read_at ? new Date(r.read_at).toISOString() : null,
  title: r.title,
  body: r.body,
  link: r.link,
  sourceKind: r.source_kind,
});

export function inboxRepo(db: Sql) {
  return {
    async add(userIds: readonly string[], m: { title: string; body: string; link: string | null; sourceKind: string; sourceId: string | null }): Promise<void> {
      for (const userId of new Set(userIds)) {
        await db.query("INSERT INTO inbox_messages (user_id, title, body, link, source_kind, source_id) VALUES ($1, $2, $3, $4, $5, $6)", [
          userId,
          m.title,
          m.body,
          m.link,
          m.sourceKind,
          m.sourceId,
        ]);
      }
    },
    async list(userId: string, limit = 100): Promise<InboxMessage[]> {
      return (await db.query<Row>("SELECT * FROM inbox_messages WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2", [userId, limit])).map(toMessage);
    },
    async unread(userId: string): Promise<number> {
      const rows = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM inbox_messages WHERE user_id = $1 AND read_at IS NULL", [userId]);
      return rows[0]?.n ?? 0;
    },
    /** Marks one message (or, with null, all of them) read; only the user's own. */
    async markRead(userId: string, id: number | null): Promise<number> {
      const rows =
        id === null
          ? await db.query("UPDATE inbox_messages SET read_at = now() WHERE user_id = $1 AND read_at IS NULL RETURNING id", [userId])
          : await db.query("UPDATE inbox_messages SET read_at = COALESCE(read_at, now()) WHERE user_id = $1 AND id = $2 RETURNING id", [userId, id]);
      return rows.length;
    },
  };
}
